package dev.gmp.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * JMH runs read from result JSON files (Jackson's tree model), with the statistics the report
 * prints.
 */
final class Results {
  private Results() {}

  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** One JMH run: a benchmark at one parameter combination, all forks and iterations. */
  record Run(
      String benchmark,
      String workload,
      Map<String, String> params,
      String unit,
      double[] samples,
      Map<String, double[]> secondary,
      List<String> jvmArgs,
      String source) {

    String executor() {
      return params.getOrDefault("executor", "?");
    }

    int parallelism() {
      String p = params.get("parallelism");
      return p == null ? 0 : Integer.parseInt(p);
    }

    /** The parameters other than executor and parallelism, as "k=v k=v" (sorted by key). */
    String otherParams() {
      StringBuilder b = new StringBuilder();
      for (Map.Entry<String, String> e : new TreeMap<>(params).entrySet()) {
        if (e.getKey().equals("executor") || e.getKey().equals("parallelism")) {
          continue;
        }
        if (b.length() > 0) {
          b.append(' ');
        }
        b.append(e.getKey()).append('=').append(e.getValue());
      }
      return b.toString();
    }

    /** Identifies the row a run belongs to: workload, other params, parallelism. */
    String rowKey() {
      return workload + "|" + otherParams() + "|" + parallelism();
    }
  }

  static List<Run> load(List<Path> files) throws IOException {
    List<Run> runs = new ArrayList<>();
    for (Path f : files) {
      String text = Files.readString(f);
      if (text.isBlank()) {
        continue;
      }
      for (JsonNode r : JSON.readTree(text).values()) {
        runs.add(run(r, f.getFileName().toString()));
      }
    }
    return runs;
  }

  private static Run run(JsonNode r, String source) {
    String bench = r.path("benchmark").asString();
    String[] parts = bench.split("\\.");
    String workload = parts.length >= 2 ? parts[parts.length - 1] : bench;
    Map<String, String> params = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : r.path("params").properties()) {
      params.put(e.getKey(), e.getValue().asString());
    }
    JsonNode primary = r.path("primaryMetric");
    Map<String, double[]> secondary = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : r.path("secondaryMetrics").properties()) {
      secondary.put(e.getKey(), raw(e.getValue()));
    }
    List<String> jvmArgs = new ArrayList<>();
    for (JsonNode a : r.path("jvmArgs").values()) {
      jvmArgs.add(a.asString());
    }
    return new Run(
        bench,
        workload,
        params,
        primary.path("scoreUnit").asString(),
        raw(primary),
        secondary,
        jvmArgs,
        source);
  }

  /** All iterations of all forks (JMH's rawData: one list per fork). */
  private static double[] raw(JsonNode metric) {
    List<Double> v = new ArrayList<>();
    for (JsonNode fork : metric.path("rawData").values()) {
      for (JsonNode x : fork.values()) {
        double d = num(x);
        if (!Double.isNaN(d)) {
          v.add(d);
        }
      }
    }
    if (v.isEmpty()) {
      double s = num(metric.path("score"));
      if (!Double.isNaN(s)) {
        v.add(s);
      }
    }
    double[] a = new double[v.size()];
    for (int i = 0; i < a.length; i++) {
      a[i] = v.get(i);
    }
    return a;
  }

  /** A number, or NaN: JMH writes a missing value as the string "NaN". */
  private static double num(JsonNode n) {
    if (n.isNumber()) {
      return n.doubleValue();
    }
    if (n.isString()) {
      try {
        return Double.parseDouble(n.stringValue());
      } catch (NumberFormatException e) {
        return Double.NaN;
      }
    }
    return Double.NaN;
  }

  static double median(double[] v) {
    if (v.length == 0) {
      return Double.NaN;
    }
    double[] s = v.clone();
    Arrays.sort(s);
    int n = s.length;
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }

  /** Half the min-max range, as a percentage of the median: "+-x%". */
  static double spreadPct(double[] v) {
    if (v.length < 2) {
      return Double.NaN;
    }
    double min = Arrays.stream(v).min().orElse(0);
    double max = Arrays.stream(v).max().orElse(0);
    double med = median(v);
    return med == 0 ? Double.NaN : 100.0 * (max - min) / 2 / Math.abs(med);
  }
}
