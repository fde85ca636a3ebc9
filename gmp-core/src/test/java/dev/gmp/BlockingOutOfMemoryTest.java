package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An OutOfMemoryError inside {@code blocking()}'s entry, after the P has changed state, leaves no
 * call half entered: before the fix the P stayed in its blocking state and the G in Gsyscall
 * under an M that went on running tasks, and the executor never terminated (6 runs of 6).
 */
class BlockingOutOfMemoryTest {

  @Test
  void anErrorEnteringABlockingCallLeavesNothingHalfEntered() throws Exception {
    ChildJvm.Result r = ChildJvm.run(BlockingOutOfMemoryMain.class, 120,
        "-XX:+UseSerialGC", "-Xmx64m", "-Xlog:jfr*=off"); // JFR's own out-of-memory warnings
    assertEquals(List.of("ok"), r.stdout(), "stdout; stderr: " + r.stderr());
    assertEquals(0, r.exitValue());
  }
}
