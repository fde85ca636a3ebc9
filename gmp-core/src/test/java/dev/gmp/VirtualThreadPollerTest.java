package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The JDK's socket sub-pollers never end up on gmp (VirtualThreads starts them from a platform
 * thread when the first builder is made): in a fresh JVM, socket I/O in gmp virtual threads,
 * gmp shut down and terminated, then socket I/O in default virtual threads still works.
 */
class VirtualThreadPollerTest {
  @Test
  void socketIoOnGmpLeavesTheJdkPollersOffIt() throws Exception {
    ChildJvm.Result r = ChildJvm.run(
        VirtualThreadPollerMain.class, 120, "--add-opens", "java.base/java.lang=ALL-UNNAMED");
    assertEquals(List.of("gmp 20", "terminated true", "gmp vthreads 0", "default 20"),
        r.stdout(), "stderr: " + r.stderr());
    assertEquals("", r.stderr(), "nothing on stderr");
    assertEquals(0, r.exitValue());
  }
}
