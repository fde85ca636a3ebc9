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
 * Micrometer is an optional dependency: gmp-core loads and runs without it, on a stock JVM with
 * no flags, and prints nothing on stderr (no warning of any kind).
 */
class NoMicrometerTest {

  static Path codeSource(Class<?> c) throws Exception {
    return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  @Test
  void gmpCoreRunsWithoutMicrometerAndWarnsAboutNothing() throws Exception {
    String cp = String.join(File.pathSeparator,
        codeSource(GmpExecutor.class).toString(),
        codeSource(MpscUnboundedAtomicArrayQueue.class).toString(),
        codeSource(NoMicrometerMain.class).toString());
    Path out = Files.createTempFile("gmp-nomicrometer", ".out");
    Path err = Files.createTempFile("gmp-nomicrometer", ".err");
    try {
      Process p = new ProcessBuilder(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "-cp", cp, NoMicrometerMain.class.getName())
          .redirectOutput(out.toFile())
          .redirectError(err.toFile())
          .start();
      boolean exited = p.waitFor(60, TimeUnit.SECONDS);
      if (!exited) {
        p.destroyForcibly();
      }
      assertTrue(exited, "the child JVM did not exit");
      String stderr = Files.readString(err, StandardCharsets.UTF_8);
      assertEquals(List.of("ok"), Files.readAllLines(out), "stdout; stderr: " + stderr);
      assertEquals("", stderr, "nothing on stderr");
      assertEquals(0, p.exitValue());
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
