package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JDK's socket sub-pollers never end up on gmp (VirtualThreads starts them from a platform
 * thread when the first builder is made): in a fresh JVM, socket I/O in gmp virtual threads,
 * gmp shut down and terminated, then socket I/O in default virtual threads still works.
 */
class VirtualThreadPollerTest {
  @TempDir Path dir;

  @Test
  void socketIoOnGmpLeavesTheJdkPollersOffIt() throws Exception {
    String cp = String.join(File.pathSeparator,
        NoMicrometerTest.codeSource(GmpExecutor.class).toString(),
        NoMicrometerTest.codeSource(MpscUnboundedAtomicArrayQueue.class).toString(),
        NoMicrometerTest.codeSource(VirtualThreadPollerMain.class).toString());
    Path out = dir.resolve("out");
    Path err = dir.resolve("err");
    Process p = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--add-opens", "java.base/java.lang=ALL-UNNAMED",
            "-cp", cp, VirtualThreadPollerMain.class.getName())
        .redirectOutput(out.toFile())
        .redirectError(err.toFile())
        .start();
    boolean exited = p.waitFor(120, TimeUnit.SECONDS);
    if (!exited) {
      p.destroyForcibly();
    }
    assertTrue(exited, "the child JVM did not exit: " + Files.readAllLines(out));
    String stderr = Files.readString(err);
    assertEquals(List.of("gmp 20", "terminated true", "gmp vthreads 0", "default 20"),
        Files.readAllLines(out), "stderr: " + stderr);
    assertEquals("", stderr, "nothing on stderr");
    assertEquals(0, p.exitValue());
  }
}
