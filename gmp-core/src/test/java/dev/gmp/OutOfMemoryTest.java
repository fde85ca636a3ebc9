package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An OutOfMemoryError in execute loses no task that was already accepted: the overflow half a
 * spawn claims from its ring reaches the global queue even when its array cannot grow
 * (GlobalQueue's spill). Before the spill, 128 Gs were lost at each failed doubling.
 */
class OutOfMemoryTest {

  @Test
  void executeOutOfMemoryLosesNoAcceptedTask() throws Exception {
    ChildJvm.Result r = ChildJvm.run(OutOfMemoryMain.class, 120, "-XX:+UseSerialGC", "-Xmx64m");
    assertEquals(List.of("ok"), r.stdout(), "stdout; stderr: " + r.stderr());
    assertEquals(0, r.exitValue());
  }
}
