package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Micrometer is an optional dependency: gmp-core loads and runs without it, on a stock JVM with
 * no flags, and prints nothing on stderr (no warning of any kind).
 */
class NoMicrometerTest {

  @Test
  void gmpCoreRunsWithoutMicrometerAndWarnsAboutNothing() throws Exception {
    ChildJvm.Result r = ChildJvm.run(NoMicrometerMain.class, 60);
    assertEquals(List.of("ok"), r.stdout(), "stdout; stderr: " + r.stderr());
    assertEquals("", r.stderr(), "nothing on stderr");
    assertEquals(0, r.exitValue());
  }
}
