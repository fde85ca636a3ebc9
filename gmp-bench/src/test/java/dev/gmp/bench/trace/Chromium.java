package dev.gmp.bench.trace;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Headless Chromium for the trace page's test: the binary ({@code GMP_CHROMIUM}, else {@code
 * chromium}, {@code chromium-browser} or {@code google-chrome} on the PATH) and {@code
 * --dump-dom}, which prints the DOM after the page's scripts ran. {@code .ci/run} installs
 * Chromium when it is missing and sets {@code GMP_REQUIRE_CHROMIUM=1}, so that there a missing
 * browser fails the test instead of skipping it.
 */
final class Chromium {
  private Chromium() {}

  static Path find() {
    String given = System.getenv("GMP_CHROMIUM");
    if (given != null && !given.isBlank()) {
      return Path.of(given);
    }
    String path = System.getenv().getOrDefault("PATH", "");
    for (String name : List.of("chromium", "chromium-browser", "google-chrome")) {
      for (String dir : path.split(File.pathSeparator)) {
        Path p = Path.of(dir, name);
        if (Files.isExecutable(p)) {
          return p;
        }
      }
    }
    return null;
  }

  static boolean required() {
    return "1".equals(System.getenv("GMP_REQUIRE_CHROMIUM"));
  }

  /** The DOM of {@code page} after its scripts ran, as Chromium serializes it. */
  static String dumpDom(Path chromium, Path page, Path work) throws Exception {
    Path out = work.resolve("dom.html");
    Path err = work.resolve("chromium.err");
    Process p = new ProcessBuilder(chromium.toString(), "--headless", "--no-sandbox",
            "--disable-gpu", "--no-first-run", "--user-data-dir=" + work.resolve("profile"),
            "--window-size=1400,900", "--dump-dom", page.toUri().toString())
        .redirectOutput(out.toFile())
        .redirectError(err.toFile())
        .start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("chromium did not finish within 120 s: "
          + Files.readString(err, StandardCharsets.UTF_8));
    }
    String dom = Files.readString(out, StandardCharsets.UTF_8);
    if (p.exitValue() != 0 || dom.isBlank()) {
      throw new AssertionError("chromium failed (exit " + p.exitValue() + "): "
          + Files.readString(err, StandardCharsets.UTF_8));
    }
    return dom;
  }
}
