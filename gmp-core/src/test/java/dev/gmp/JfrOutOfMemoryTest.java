package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * JFR's emitters never throw: with the heap full each drops its event (before, each threw
 * OutOfMemoryError from inside the scheduler step that called it: a steal lost the task it had
 * taken, a blocking call left its P marked blocked).
 */
class JfrOutOfMemoryTest {

  @Test
  void emittersDropTheirEventRatherThanThrow() throws Exception {
    ChildJvm.Result r = ChildJvm.run(JfrOutOfMemoryMain.class, 120,
        "-XX:+UseSerialGC", "-Xmx64m",
        "-Xlog:jfr*=off", // JFR's own out-of-memory warnings, and its emergency dump (a run
        "-XX:FlightRecorderOptions:dumppath=" + System.getProperty("java.io.tmpdir")); // that fails)
    assertEquals(List.of("ok"), r.stdout(), "stdout; stderr: " + r.stderr());
    assertEquals(0, r.exitValue());
  }
}
