package dev.gmp.bench.trace;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Go's "View trace by proc" for gmp: turns a JFR recording with gmp's events into a
 * self-contained HTML page, one lane per processor over time.
 *
 * <pre>
 * TraceView html IN.jfr OUT.html [EXECUTOR]   convert a recording (default: the executor with
 *                                             the most events)
 * TraceView demo OUT.html [PARALLELISM]       run a short demo workload, record it next to
 *                                             OUT.html (OUT.jfr) and convert it
 * </pre>
 *
 * Record your own application with gmp's events on, e.g. {@code java
 * -XX:StartFlightRecording:filename=app.jfr,+dev.gmp.ProcState#enabled=true,...} (README,
 * "Observing gmp").
 */
public final class TraceView {
  private TraceView() {}

  public static void main(String[] args) throws Exception {
    if (args.length >= 3 && args[0].equals("html")) {
      convert(Path.of(args[1]), Path.of(args[2]), args.length > 3 ? args[3] : null);
    } else if (args.length >= 2 && args[0].equals("demo")) {
      Path html = Path.of(args[1]).toAbsolutePath();
      Files.createDirectories(html.getParent());
      String base = html.getFileName().toString().replaceFirst("\\.html?$", "");
      Path jfr = html.resolveSibling(base + ".jfr");
      int parallelism = args.length > 2 ? Integer.parseInt(args[2]) : 4;
      TraceDemo.record(jfr, "demo", parallelism);
      convert(jfr, html, "demo");
      System.out.println("recording: " + jfr);
    } else {
      System.err.println("usage: TraceView html IN.jfr OUT.html [EXECUTOR]\n"
          + "       TraceView demo OUT.html [PARALLELISM]");
      System.exit(2);
    }
  }

  static TraceModel convert(Path jfr, Path html, String executor) throws Exception {
    TraceModel t = TraceModel.read(jfr, executor);
    Path dir = html.toAbsolutePath().getParent();
    if (dir != null) {
      Files.createDirectories(dir);
    }
    Files.writeString(html, TracePage.html(t), StandardCharsets.UTF_8);
    System.out.println(html + ": executor " + t.executor + ", " + t.procs.size() + " lanes, "
        + t.counts);
    return t;
  }
}
