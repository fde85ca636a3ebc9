package dev.gmp.bench.report;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The plot of gmp time / ForkJoinPool time per workload, one bar per parallelism measured (1, 2,
 * 4, ...), so a reader sees at once where gmp wins at one processor count and loses at another
 * ({@code Report parallelism-svg OUT FILE...}; docs/benchmarks/ratio-by-parallelism.svg).
 * Written only when the runs hold more than one parallelism.
 */
final class RatioByParallelism {
  private RatioByParallelism() {}

  static void write(PrintStream out, Path file, List<Report.Row> rows) throws IOException {
    List<Integer> ps = Report.parallelisms(rows);
    if (ps.size() < 2) {
      return;
    }
    // workload label -> ratio per parallelism (NaN where one executor is missing)
    Map<String, double[]> byLabel = new LinkedHashMap<>();
    for (Report.Row row : rows) {
      if (Report.PACED.contains(row.workload())) {
        continue;
      }
      double r = Report.ratioOf(row, "gmp", "fjp");
      if (Double.isNaN(r)) {
        continue;
      }
      double[] v = byLabel.computeIfAbsent(row.label(), k -> filled(ps.size()));
      v[ps.indexOf(row.parallelism())] = r;
    }
    if (byLabel.isEmpty()) {
      return;
    }
    List<String> series = new ArrayList<>();
    for (int p : ps) {
      series.add("parallelism " + p);
    }
    Report.write(
        out,
        file,
        Svg.hbars(
            "gmp time / ForkJoinPool time at each parallelism",
            "ratio of medians (log scale; < 1 = gmp faster)",
            new ArrayList<>(byLabel.keySet()),
            series,
            byLabel.values().toArray(new double[0][]),
            1.0,
            false));
  }

  /** n NaNs: the bars a plot leaves out until a value is known. */
  static double[] filled(int n) {
    double[] v = new double[n];
    java.util.Arrays.fill(v, Double.NaN);
    return v;
  }
}
