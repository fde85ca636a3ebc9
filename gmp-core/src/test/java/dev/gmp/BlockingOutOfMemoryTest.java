package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A marked blocking call made with the heap full and a JFR recording running leaves the executor
 * whole (BlockingOutOfMemoryMain): before 2849f67 the P stayed marked blocked under an M that went
 * on running tasks, and the executor never terminated (6 runs of 6).
 */
class BlockingOutOfMemoryTest {

  @Test
  void anErrorEnteringABlockingCallLeavesNothingHalfEntered() throws Exception {
    ChildJvm.Result r = ChildJvm.run(BlockingOutOfMemoryMain.class, 120,
        "-XX:+UseSerialGC", "-Xmx64m",
        "-Xlog:jfr*=off", // JFR's own out-of-memory warnings, and its emergency dump (a run
        "-XX:FlightRecorderOptions:dumppath=" + System.getProperty("java.io.tmpdir")); // that fails)
    assertEquals(List.of("ok"), r.stdout(), "stdout; stderr: " + r.stderr());
    assertEquals(0, r.exitValue());
  }
}
