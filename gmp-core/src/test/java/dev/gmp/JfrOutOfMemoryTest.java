package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * With the heap full and a JFR recording running, the scheduler's steps that emit events stay
 * whole. Each check runs in a child JVM with a 64 MB Serial heap that its main fills to the last
 * bytes.
 */
class JfrOutOfMemoryTest {

  /**
   * Jfr's emitters drop their event rather than throw (before, the steal and P-state emitters
   * threw OutOfMemoryError from inside the step that called them: a steal lost the task it had
   * taken).
   */
  @Test
  void emittersDropTheirEventRatherThanThrow() throws Exception {
    assertOk(JfrOutOfMemoryMain.class);
  }

  /**
   * A marked blocking call leaves the executor whole: before 2849f67 its P stayed marked blocked
   * under an M that went on running tasks, and the executor never terminated (6 runs of 6).
   */
  @Test
  void aBlockingCallLeavesTheExecutorWhole() throws Exception {
    assertOk(BlockingOutOfMemoryMain.class);
  }

  private static void assertOk(Class<?> main) throws Exception {
    ChildJvm.Result r = ChildJvm.run(main, 120, "-XX:+UseSerialGC", "-Xmx64m",
        "-Xlog:jfr*=off", // JFR's own out-of-memory warnings, and its emergency dump (a run
        "-XX:FlightRecorderOptions:dumppath=" + System.getProperty("java.io.tmpdir")); // that fails)
    assertEquals(List.of("ok"), r.stdout(), "stdout; stderr: " + r.stderr());
    assertEquals(0, r.exitValue());
  }
}
