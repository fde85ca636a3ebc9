package dev.gmp.bench.report;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The plots of a fresh-JVM run (ThreeViews' summary.json): for each view in it (quiet, busy) and
 * each column (the first operation, operations 1-30, after the warm-up), gmp time / ForkJoinPool
 * time per workload, one bar per parallelism, medians over the rounds ({@code Report views-svg
 * OUTDIR SUMMARY.json}; docs/benchmarks/views-*.svg). The spreads are in the run's table.md.
 */
final class ViewsPlot {
  private ViewsPlot() {}

  private static final String[][] COLUMNS = {
    {"op1", "first operation in a fresh JVM"},
    {"sum", "operations 1-30 in a fresh JVM"},
    {"steady", "10 operations after 0.6 s"},
  };

  static void write(PrintStream out, Path dir, Path summary) throws IOException {
    JsonNode cells = JsonMapper.builder().build().readTree(Files.readString(summary)).path("cells");
    TreeSet<Integer> ps = new TreeSet<>();
    List<String> views = new ArrayList<>();
    for (JsonNode c : cells.values()) {
      ps.add(c.path("p").asInt());
      String view = c.path("view").asString();
      if (!views.contains(view)) {
        views.add(view);
      }
    }
    List<Integer> pList = new ArrayList<>(ps);
    List<String> series = new ArrayList<>();
    for (int p : pList) {
      series.add("parallelism " + p);
    }
    for (String view : views) {
      for (String[] col : COLUMNS) {
        // workload label -> median ratio per parallelism
        Map<String, double[]> byLabel = new LinkedHashMap<>();
        for (JsonNode c : cells.values()) {
          if (!view.equals(c.path("view").asString())) {
            continue;
          }
          String metric = c.path("metric").asString();
          String label = c.path("workload").asString() + ("time".equals(metric) ? "" : " " + metric);
          double[] v = byLabel.computeIfAbsent(label, k -> RatioByParallelism.filled(pList.size()));
          v[pList.indexOf(c.path("p").asInt())] = c.path(col[0]).path(0).asDouble(Double.NaN);
        }
        if (byLabel.isEmpty()) {
          continue;
        }
        Report.write(
            out,
            dir.resolve("views-" + view + "-" + col[0] + ".svg"),
            Svg.hbars(
                "gmp time / ForkJoinPool time, " + col[1] + " (" + view + " machine)",
                "median over fresh-JVM rounds (log scale; < 1 = gmp faster)",
                new ArrayList<>(byLabel.keySet()),
                series,
                byLabel.values().toArray(new double[0][]),
                1.0,
                false));
      }
    }
  }
}
