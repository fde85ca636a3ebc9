package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;
import org.junit.jupiter.api.Test;

/**
 * The block detector loads the CPU clock (about 30 ms of the JVM's management classes in a fresh
 * JVM) only once a task waits: tasks that compute never pay for it, a task that blocks is still
 * retaken. In a child JVM, since any other test in this one may have loaded the clock.
 */
class DetectorClockTest {

  @Test
  void theClockLoadsAtTheFirstWaitNotForTasksThatCompute() throws Exception {
    String cp = String.join(File.pathSeparator,
        NoMicrometerTest.codeSource(GmpExecutor.class).toString(),
        NoMicrometerTest.codeSource(MpscUnboundedAtomicArrayQueue.class).toString(),
        NoMicrometerTest.codeSource(DetectorClockMain.class).toString());
    Path out = Files.createTempFile("gmp-clock", ".out");
    Path err = Files.createTempFile("gmp-clock", ".err");
    try {
      Process p = new ProcessBuilder(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "-cp", cp, DetectorClockMain.class.getName())
          .redirectOutput(out.toFile())
          .redirectError(err.toFile())
          .start();
      boolean exited = p.waitFor(180, TimeUnit.SECONDS);
      if (!exited) {
        p.destroyForcibly();
      }
      assertTrue(exited, "the child JVM did not exit");
      String stderr = Files.readString(err, StandardCharsets.UTF_8);
      assertEquals(List.of(
              "computing: looks>=200 true clock false retakes 0",
              "sleeping: ran true clock true"),
          Files.readAllLines(out), "stdout; stderr: " + stderr);
      assertEquals(0, p.exitValue(), stderr);
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
