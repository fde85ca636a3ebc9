package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A fresh JVM that runs one of the tests' main classes with gmp-core (and nothing
 * else of the test class path) on its class path: for what only a fresh JVM shows (what loads,
 * what is printed, JFR's state at start).
 */
final class ChildJvm {
  private ChildJvm() {}

  /** What the child printed; it exited, or the caller's assertion already failed. */
  record Result(int exitValue, List<String> stdout, String stderr) {}

  static Path codeSource(Class<?> c) throws Exception {
    return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  /** Runs {@code main} with {@code jvmArgs}, waits up to {@code seconds} for it to exit. */
  static Result run(Class<?> main, long seconds, String... jvmArgs) throws Exception {
    String cp = String.join(File.pathSeparator,
        codeSource(GmpExecutor.class).toString(),
        codeSource(main).toString());
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(List.of(jvmArgs));
    cmd.addAll(List.of("-cp", cp, main.getName()));
    Path out = Files.createTempFile("gmp-child", ".out");
    Path err = Files.createTempFile("gmp-child", ".err");
    try {
      Process p = new ProcessBuilder(cmd)
          .redirectOutput(out.toFile())
          .redirectError(err.toFile())
          .start();
      boolean exited = p.waitFor(seconds, TimeUnit.SECONDS);
      if (!exited) {
        p.destroyForcibly();
      }
      String stderr = Files.readString(err, StandardCharsets.UTF_8);
      assertTrue(exited, "the child JVM did not exit; stdout " + Files.readAllLines(out)
          + ", stderr: " + stderr);
      return new Result(p.exitValue(), Files.readAllLines(out), stderr);
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
