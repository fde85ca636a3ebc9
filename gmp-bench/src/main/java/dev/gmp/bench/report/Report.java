package dev.gmp.bench.report;

import dev.gmp.bench.report.Results.Run;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads JMH JSON result files and prints the comparison tables (markdown, readable as plain text)
 * and writes the SVG plots for docs/benchmarks.md. The JSON is read with Jackson (Results).
 *
 * <pre>
 * Report compare  [--subject gmp] [--baseline fjp] FILE...   subject vs baseline, ratios, targets
 * Report table    FILE...                                     every executor, every parallelism
 * Report ablation BASELINE.json LABEL.json...                 gmp only; labels are file names
 * Report svg      OUTDIR FILE...                              ratio, executors, scaling, latency
 * Report ablation-svg OUTFILE BASELINE.json LABEL.json...     the ablation as a chart
 * </pre>
 *
 * Statistics: the value is the median of every measured iteration of every fork; the spread is
 * half the min-max range of those iterations as a percentage of the median; a ratio is the ratio
 * of medians.
 */
public final class Report {
  private Report() {}

  /** Workloads whose primary score is only pacing: they are reported by secondary metrics. */
  static final Set<String> PACED = Set.of("submitToStart", "idle");

  /** Workloads with the stricter ping-pong / actor-pair target (ratio <= 0.5). */
  static final Set<String> PING_PONG = Set.of("ping_pong", "singlePingPong", "coresCountPingPongs");

  static final List<String> ORDER =
      List.of(
          "spawn_many_local",
          "spawn_many_remote_idle",
          "spawn_many_remote_busy1",
          "spawn_many_remote_busy2",
          "ping_pong",
          "yield_many",
          "chained_spawn",
          "remote_spawn",
          "CreateGoroutines",
          "CreateGoroutinesParallel",
          "CreateGoroutinesSingle",
          "PingPongHog",
          "WakeupParallelSpinning",
          "Matmult",
          "singlePingPong",
          "coresCountPingPongs",
          "cycledActors",
          "forkJoinTree",
          "blockingMix",
          "httpServer",
          "submitToStart",
          "idle");

  static final List<String> EXECUTORS =
      List.of("gmp", "fjp", "fjpAsync", "tpe", "cached", "vthread", "none");

  static final Map<String, String> NAMES =
      Map.of(
          "gmp", "gmp",
          "fjp", "ForkJoinPool",
          "fjpAsync", "FJP async",
          "tpe", "ThreadPoolExecutor",
          "cached", "cached pool",
          "vthread", "virtual threads",
          "none", "none");

  public static void main(String[] args) throws IOException {
    if (args.length == 0) {
      usage();
      return;
    }
    String cmd = args[0];
    List<String> rest = new ArrayList<>(Arrays.asList(args).subList(1, args.length));
    PrintStream out = System.out;
    switch (cmd) {
      case "compare" -> {
        String subject = option(rest, "--subject", "gmp");
        String baseline = option(rest, "--baseline", "fjp");
        List<Run> runs = Results.load(paths(rest));
        compare(out, runs, subject, baseline);
        out.println();
        secondary(out, runs, List.of(subject, baseline, "none"));
        out.println();
        targets(out, runs, subject, baseline);
      }
      case "table" -> {
        List<Run> runs = Results.load(paths(rest));
        full(out, runs);
        out.println();
        secondary(out, runs, EXECUTORS);
      }
      case "targets" -> targets(out, Results.load(paths(rest)), "gmp", "fjp");
      case "ablation" -> ablation(out, labelled(rest));
      case "ablation-svg" -> {
        Path file = Path.of(rest.remove(0));
        Files.writeString(file, ablationSvg(labelled(rest)));
        out.println("wrote " + file);
      }
      case "parallelism-svg" -> {
        Path file = Path.of(rest.remove(0));
        RatioByParallelism.write(out, file, rows(Results.load(paths(rest))));
      }
      case "views-svg" -> {
        Path dir = Path.of(rest.remove(0));
        Files.createDirectories(dir);
        ViewsPlot.write(out, dir, Path.of(rest.remove(0)));
      }
      case "svg" -> {
        Path dir = Path.of(rest.remove(0));
        Files.createDirectories(dir);
        svg(out, dir, Results.load(paths(rest)));
      }
      default -> usage();
    }
  }

  private static void usage() {
    System.err.println(
        "usage: Report compare|table|targets FILE... | ablation BASELINE.json LABEL.json... |"
            + " ablation-svg OUT BASELINE.json LABEL.json... | svg OUTDIR FILE... |"
            + " parallelism-svg OUT FILE... | views-svg OUTDIR SUMMARY.json");
    System.exit(2);
  }

  private static String option(List<String> args, String name, String dflt) {
    int i = args.indexOf(name);
    if (i < 0) {
      return dflt;
    }
    String v = args.get(i + 1);
    args.remove(i + 1);
    args.remove(i);
    return v;
  }

  private static List<Path> paths(List<String> args) {
    List<Path> p = new ArrayList<>();
    for (String a : args) {
      p.add(Path.of(a));
    }
    if (p.isEmpty()) {
      throw new IllegalArgumentException("no JMH JSON files given");
    }
    return p;
  }

  /** Each file is labelled by its name without ".json" (e.g. "runnext=false"). */
  private static Map<String, List<Run>> labelled(List<String> args) throws IOException {
    Map<String, List<Run>> m = new LinkedHashMap<>();
    for (String a : args) {
      Path p = Path.of(a);
      String label = p.getFileName().toString().replaceFirst("\\.json$", "");
      m.put(label, Results.load(List.of(p)));
    }
    return m;
  }

  // ------------------------------------------------------------------ rows

  /** Rows (workload, other params, parallelism) in a stable, readable order. */
  record Row(String workload, String params, int parallelism, Map<String, Run> byExecutor) {
    String label() {
      return params.isEmpty() ? workload : workload + " (" + params + ")";
    }
  }

  static List<Row> rows(List<Run> runs) {
    Map<String, Row> rows = new LinkedHashMap<>();
    for (Run r : runs) {
      Row row =
          rows.computeIfAbsent(
              r.rowKey(),
              k -> new Row(r.workload(), r.otherParams(), r.parallelism(), new LinkedHashMap<>()));
      Run prev = row.byExecutor().get(r.executor());
      if (prev == null) {
        row.byExecutor().put(r.executor(), r);
      } else {
        row.byExecutor().put(r.executor(), merge(prev, r));
      }
    }
    List<Row> list = new ArrayList<>(rows.values());
    list.sort(
        Comparator.comparingInt((Row r) -> order(r.workload()))
            .thenComparing(Row::workload)
            .thenComparingInt(Row::parallelism)
            .thenComparing(r -> naturalKey(r.params())));
    return list;
  }

  /** Two files with the same run (e.g. a re-run): pool the samples. */
  private static Run merge(Run a, Run b) {
    double[] s = Arrays.copyOf(a.samples(), a.samples().length + b.samples().length);
    System.arraycopy(b.samples(), 0, s, a.samples().length, b.samples().length);
    Map<String, double[]> sec = new LinkedHashMap<>(a.secondary());
    for (Map.Entry<String, double[]> e : b.secondary().entrySet()) {
      double[] x = sec.get(e.getKey());
      if (x == null) {
        sec.put(e.getKey(), e.getValue());
      } else {
        double[] y = Arrays.copyOf(x, x.length + e.getValue().length);
        System.arraycopy(e.getValue(), 0, y, x.length, e.getValue().length);
        sec.put(e.getKey(), y);
      }
    }
    return new Run(
        a.benchmark(), a.workload(), a.params(), a.unit(), s, sec, a.jvmArgs(), a.source());
  }

  private static int order(String workload) {
    int i = ORDER.indexOf(workload);
    return i < 0 ? ORDER.size() : i;
  }

  /** "delayUs=5" sorts before "delayUs=10": zero-pad the numbers. */
  private static String naturalKey(String s) {
    StringBuilder b = new StringBuilder();
    StringBuilder digits = new StringBuilder();
    for (char c : (s + " ").toCharArray()) {
      if (Character.isDigit(c)) {
        digits.append(c);
      } else {
        if (digits.length() > 0) {
          b.append("0".repeat(Math.max(0, 12 - digits.length()))).append(digits);
          digits.setLength(0);
        }
        b.append(c);
      }
    }
    return b.toString();
  }

  // ------------------------------------------------------------------ formatting

  /** A time in the run's unit, shown in a readable unit. */
  static String time(double v, String unit) {
    if (Double.isNaN(v)) {
      return "-";
    }
    double ns =
        switch (unit) {
          case "ns/op" -> v;
          case "us/op" -> v * 1e3;
          case "ms/op" -> v * 1e6;
          case "s/op" -> v * 1e9;
          default -> Double.NaN;
        };
    if (Double.isNaN(ns)) {
      return String.format(Locale.ROOT, "%.4g %s", v, unit);
    }
    if (ns >= 1e9) {
      return String.format(Locale.ROOT, "%.3g s", ns / 1e9);
    }
    if (ns >= 1e6) {
      return String.format(Locale.ROOT, "%.3g ms", ns / 1e6);
    }
    if (ns >= 1e3) {
      return String.format(Locale.ROOT, "%.3g us", ns / 1e3);
    }
    return String.format(Locale.ROOT, "%.3g ns", ns);
  }

  static String pct(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "±%.0f%%", v);
  }

  /** " ±x%", or nothing when there is no spread (a single sample). */
  static String sp(double v) {
    return Double.isNaN(v) ? "" : " " + pct(v);
  }

  static String ratio(double v) {
    return Double.isNaN(v) || Double.isInfinite(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
  }

  /**
   * A ratio next to its target verdict: two decimals, or three where two would round a miss onto
   * the target (1.004 is shown as 1.004 MISSED, never as 1.00 MISSED).
   */
  static String ratio(double v, double target) {
    String two = ratio(v);
    if (v > target && two.equals(ratio(target))) {
      return String.format(Locale.ROOT, "%.3f", v);
    }
    return two;
  }

  static String num(double v) {
    if (Double.isNaN(v)) {
      return "-";
    }
    if (Math.abs(v) >= 100) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    if (Math.abs(v) >= 1) {
      return String.format(Locale.ROOT, "%.2f", v);
    }
    return String.format(Locale.ROOT, "%.3g", v);
  }

  /** Prints a markdown table with padded columns (readable as plain text too). */
  static void table(PrintStream out, List<String> header, List<List<String>> body) {
    int[] w = new int[header.size()];
    for (int i = 0; i < w.length; i++) {
      w[i] = header.get(i).length();
      for (List<String> r : body) {
        w[i] = Math.max(w[i], r.get(i).length());
      }
    }
    StringBuilder b = new StringBuilder("|");
    StringBuilder sep = new StringBuilder("|");
    for (int i = 0; i < w.length; i++) {
      b.append(' ').append(pad(header.get(i), w[i], i == 0)).append(" |");
      sep.append(i == 0 ? ":" : "-").append("-".repeat(w[i])).append(i == 0 ? "-|" : ":|");
    }
    out.println(b);
    out.println(sep);
    for (List<String> r : body) {
      StringBuilder l = new StringBuilder("|");
      for (int i = 0; i < w.length; i++) {
        l.append(' ').append(pad(r.get(i), w[i], i == 0)).append(" |");
      }
      out.println(l);
    }
  }

  private static String pad(String s, int w, boolean left) {
    String p = " ".repeat(Math.max(0, w - s.length()));
    return left ? s + p : p + s;
  }

  static double med(Run r) {
    return r == null ? Double.NaN : Results.median(r.samples());
  }

  static double spread(Run r) {
    return r == null ? Double.NaN : Results.spreadPct(r.samples());
  }

  static double ratioOf(Row row, String subject, String baseline) {
    return med(row.byExecutor().get(subject)) / med(row.byExecutor().get(baseline));
  }

  // ------------------------------------------------------------------ compare

  static void compare(PrintStream out, List<Run> runs, String subject, String baseline) {
    List<List<String>> body = new ArrayList<>();
    for (Row row : rows(runs)) {
      if (PACED.contains(row.workload())) {
        continue;
      }
      Run s = row.byExecutor().get(subject);
      Run b = row.byExecutor().get(baseline);
      if (s == null || b == null) {
        continue;
      }
      double r = med(s) / med(b);
      double target = PING_PONG.contains(row.workload()) ? 0.5 : 1.0;
      body.add(
          List.of(
              row.label(),
              Integer.toString(row.parallelism()),
              time(med(s), s.unit()),
              time(med(b), b.unit()),
              ratio(r, target),
              pct(spread(s)) + " / " + pct(spread(b)),
              (r <= target ? "met" : "MISSED") + " (<= " + target + ")"));
    }
    table(
        out,
        List.of(
            "workload",
            "p",
            NAMES.getOrDefault(subject, subject),
            NAMES.getOrDefault(baseline, baseline),
            subject + "/" + baseline,
            "spread " + subject + " / " + baseline,
            "target"),
        body);
  }

  // ------------------------------------------------------------------ full table

  static void full(PrintStream out, List<Run> runs) {
    List<Row> rows = rows(runs);
    List<String> execs = present(rows);
    List<String> header = new ArrayList<>(List.of("workload", "p"));
    for (String e : execs) {
      header.add(NAMES.getOrDefault(e, e));
    }
    header.add("gmp/fjp");
    header.add("spread gmp / fjp");
    List<List<String>> body = new ArrayList<>();
    for (Row row : rows) {
      if (PACED.contains(row.workload())) {
        continue;
      }
      List<String> l = new ArrayList<>(List.of(row.label(), Integer.toString(row.parallelism())));
      for (String e : execs) {
        Run r = row.byExecutor().get(e);
        l.add(r == null ? "-" : time(med(r), r.unit()));
      }
      l.add(ratio(ratioOf(row, "gmp", "fjp")));
      l.add(pct(spread(row.byExecutor().get("gmp"))) + " / " + pct(spread(row.byExecutor().get("fjp"))));
      body.add(l);
    }
    table(out, header, body);
  }

  private static List<String> present(List<Row> rows) {
    Set<String> seen = new LinkedHashSet<>();
    for (String e : EXECUTORS) {
      for (Row r : rows) {
        if (r.byExecutor().containsKey(e) && !PACED.contains(r.workload())) {
          seen.add(e);
        }
      }
    }
    return new ArrayList<>(seen);
  }

  // ------------------------------------------------------------------ secondary metrics

  static void secondary(PrintStream out, List<Run> runs, List<String> executors) {
    List<Row> rows = rows(runs);
    Set<String> execs = new LinkedHashSet<>();
    for (String e : executors) {
      for (Row r : rows) {
        if (r.byExecutor().containsKey(e) && !r.byExecutor().get(e).secondary().isEmpty()) {
          execs.add(e);
        }
      }
    }
    if (execs.isEmpty()) {
      return;
    }
    List<String> header = new ArrayList<>(List.of("workload", "p", "metric"));
    for (String e : execs) {
      header.add(NAMES.getOrDefault(e, e));
    }
    header.add("gmp/fjp");
    List<List<String>> body = new ArrayList<>();
    for (Row row : rows) {
      Set<String> metrics = new LinkedHashSet<>();
      for (Run r : row.byExecutor().values()) {
        metrics.addAll(r.secondary().keySet());
      }
      for (String m : sortMetrics(metrics)) {
        List<String> l =
            new ArrayList<>(List.of(row.label(), Integer.toString(row.parallelism()), m));
        for (String e : execs) {
          Run r = row.byExecutor().get(e);
          double[] v = r == null ? null : r.secondary().get(m);
          double sp = v == null ? Double.NaN : Results.spreadPct(v);
          l.add(v == null ? "-" : num(Results.median(v)) + (Double.isNaN(sp) ? "" : " " + pct(sp)));
        }
        l.add(ratio(secondaryMedian(row, "gmp", m) / secondaryMedian(row, "fjp", m)));
        body.add(l);
      }
    }
    if (!body.isEmpty()) {
      out.println("Secondary results (median of iterations, ±half range):");
      out.println();
      table(out, header, body);
    }
  }

  private static List<String> sortMetrics(Set<String> metrics) {
    List<String> order = List.of("reqPerSec", "p50Us", "p90Us", "p99Us", "p999Us", "maxUs",
        "peakThreads", "cpuUsPerReq", "cpuUsPerTask", "threadCpuUsPerTask");
    List<String> l = new ArrayList<>(metrics);
    l.sort(Comparator.comparingInt(m -> order.indexOf(m) < 0 ? 99 : order.indexOf(m)));
    return l;
  }

  static double secondaryMedian(Row row, String executor, String metric) {
    Run r = row.byExecutor().get(executor);
    double[] v = r == null ? null : r.secondary().get(metric);
    return v == null ? Double.NaN : Results.median(v);
  }

  // ------------------------------------------------------------------ targets

  /** The parallelisms the time workloads ran at, ascending. */
  static List<Integer> parallelisms(List<Row> rows) {
    Set<Integer> ps = new java.util.TreeSet<>();
    for (Row row : rows) {
      if (!PACED.contains(row.workload())) {
        ps.add(row.parallelism());
      }
    }
    return new ArrayList<>(ps);
  }

  /**
   * Per-workload time targets at one parallelism (<= 1.0, ping-pong and actor pairs <= 0.5) and
   * the geometric mean over the workloads (<= 0.85).
   */
  private static void timeTargets(
      PrintStream out, List<Row> rows, int p, String subject, String baseline) {
    out.println("Targets (parallelism " + p + ", " + subject + " vs " + baseline + "):");
    int met = 0;
    int missed = 0;
    double logSum = 0;
    List<String> misses = new ArrayList<>();
    for (Row row : rows) {
      if (row.parallelism() != p || PACED.contains(row.workload())) {
        continue;
      }
      double r = ratioOf(row, subject, baseline);
      if (Double.isNaN(r) || r <= 0 || Double.isInfinite(r)) {
        continue;
      }
      logSum += Math.log(r);
      double target = PING_PONG.contains(row.workload()) ? 0.5 : 1.0;
      if (r <= target) {
        met++;
      } else {
        missed++;
        misses.add(row.label() + " " + ratio(r, target) + " (target <= " + target + ")");
      }
    }
    out.printf(Locale.ROOT, "- time ratio: %d met, %d missed%n", met, missed);
    for (String m : misses) {
      out.println("  - missed: " + m);
    }
    if (met + missed > 0) {
      double g = Math.exp(logSum / (met + missed));
      out.printf(
          Locale.ROOT,
          "- geometric mean over %d workloads: %s -> %s (target <= 0.85)%n",
          met + missed,
          ratio(g, 0.85),
          g <= 0.85 ? "met" : "MISSED");
    }
  }

  static void targets(PrintStream out, List<Run> runs, String subject, String baseline) {
    List<Row> rows = rows(runs);
    for (int p : parallelisms(rows)) {
      timeTargets(out, rows, p, subject, baseline);
    }
    for (Row row : rows) {
      if (row.parallelism() != 2) {
        continue;
      }
      if (row.workload().equals("submitToStart") && row.params().contains("mode=burst")) {
        for (String m : List.of("p99Us", "cpuUsPerTask", "threadCpuUsPerTask")) {
          double s = secondaryMedian(row, subject, m);
          double b = secondaryMedian(row, baseline, m);
          if (!Double.isNaN(s) && !Double.isNaN(b)) {
            out.printf(
                Locale.ROOT,
                "- burst %s: %s %s vs %s %s -> %s%n",
                m,
                subject,
                num(s),
                baseline,
                num(b),
                s <= b ? "met (no worse)" : "MISSED (worse)");
          }
        }
      }
      if (row.workload().equals("idle")) {
        double s = secondaryMedian(row, subject, "idleCpuPctOfCore");
        double none = secondaryMedian(row, "none", "idleCpuPctOfCore");
        if (!Double.isNaN(s)) {
          out.printf(
              Locale.ROOT,
              "- idle CPU: %s %.3f%% of a core (JVM alone: %s) -> %s (target < 0.1%%)%n",
              subject,
              s,
              Double.isNaN(none) ? "-" : String.format(Locale.ROOT, "%.3f%%", none),
              s < 0.1 ? "met" : (!Double.isNaN(none) && s - none < 0.1 ? "met above the JVM's own" : "MISSED"));
        }
      }
    }
  }

  // ------------------------------------------------------------------ ablation

  static void ablation(PrintStream out, Map<String, List<Run>> labelled) {
    List<String> labels = new ArrayList<>(labelled.keySet());
    if (labels.isEmpty()) {
      throw new IllegalArgumentException("ablation needs JSON files, the baseline first");
    }
    String base = labels.get(0);
    List<Row> baseRows = gmpRows(labelled.get(base));
    Map<String, Map<String, Run>> byLabel = new LinkedHashMap<>();
    for (String l : labels) {
      Map<String, Run> m = new LinkedHashMap<>();
      for (Row row : gmpRows(labelled.get(l))) {
        m.put(row.label() + "|" + row.parallelism(), row.byExecutor().get("gmp"));
      }
      byLabel.put(l, m);
    }
    List<String> header = new ArrayList<>(List.of("workload (gmp)", "p", base));
    for (String l : labels.subList(1, labels.size())) {
      header.add(l);
    }
    List<List<String>> body = new ArrayList<>();
    for (Row row : baseRows) {
      String key = row.label() + "|" + row.parallelism();
      Run b = row.byExecutor().get("gmp");
      List<String> line = new ArrayList<>(List.of(row.label(), Integer.toString(row.parallelism())));
      line.add(time(med(b), b.unit()) + sp(spread(b)));
      for (String l : labels.subList(1, labels.size())) {
        Run r = byLabel.get(l).get(key);
        line.add(r == null ? "-" : "x" + ratio(med(r) / med(b)) + sp(spread(r)));
      }
      body.add(line);
    }
    out.println(
        "Ablation: each column flips one switch from its default (time relative to the"
            + " baseline, all defaults; > 1 = slower with the switch flipped):");
    out.println();
    table(out, header, body);

    // the paced workloads (latency): their secondary results, relative to the baseline
    List<List<String>> sec = new ArrayList<>();
    for (Row row : rows(labelled.get(base))) {
      Run b = row.byExecutor().get("gmp");
      if (b == null || !PACED.contains(row.workload())) {
        continue;
      }
      for (String m : sortMetrics(new LinkedHashSet<>(b.secondary().keySet()))) {
        double bv = Results.median(b.secondary().get(m));
        List<String> line =
            new ArrayList<>(List.of(row.label() + " " + m, Integer.toString(row.parallelism())));
        line.add(num(bv) + sp(Results.spreadPct(b.secondary().get(m))));
        for (String l : labels.subList(1, labels.size())) {
          double v = Double.NaN;
          for (Row x : rows(labelled.get(l))) {
            Run r = x.byExecutor().get("gmp");
            if (r != null && x.label().equals(row.label()) && x.parallelism() == row.parallelism()
                && r.secondary().containsKey(m)) {
              v = Results.median(r.secondary().get(m));
            }
          }
          line.add(Double.isNaN(v) ? "-" : "x" + ratio(v / bv));
        }
        sec.add(line);
      }
    }
    if (!sec.isEmpty()) {
      out.println();
      out.println("Latency and CPU per task under the same switches (relative to the baseline):");
      out.println();
      List<String> h2 = new ArrayList<>(header);
      h2.set(0, "metric (gmp)");
      table(out, h2, sec);
    }
  }

  private static List<Row> gmpRows(List<Run> runs) {
    List<Row> l = new ArrayList<>();
    for (Row r : rows(runs)) {
      if (r.byExecutor().containsKey("gmp") && !PACED.contains(r.workload())) {
        l.add(r);
      }
    }
    return l;
  }

  static String ablationSvg(Map<String, List<Run>> labelled) {
    List<String> labels = new ArrayList<>(labelled.keySet());
    String base = labels.get(0);
    List<Row> baseRows = gmpRows(labelled.get(base));
    List<String> series = labels.subList(1, labels.size());
    List<String> cats = new ArrayList<>();
    double[][] v = new double[baseRows.size()][series.size()];
    for (int c = 0; c < baseRows.size(); c++) {
      Row row = baseRows.get(c);
      cats.add(row.label() + " p=" + row.parallelism());
      double b = med(row.byExecutor().get("gmp"));
      for (int s = 0; s < series.size(); s++) {
        Run r = null;
        for (Row x : gmpRows(labelled.get(series.get(s)))) {
          if (x.label().equals(row.label()) && x.parallelism() == row.parallelism()) {
            r = x.byExecutor().get("gmp");
          }
        }
        v[c][s] = r == null ? Double.NaN : med(r) / b;
      }
    }
    return Svg.hbars(
        "gmp ablation: time with one switch flipped / time with the defaults",
        "ratio to baseline (log scale; > 1 = slower with the switch flipped)",
        cats,
        series,
        v,
        1.0,
        false);
  }

  // ------------------------------------------------------------------ plots

  static void svg(PrintStream out, Path dir, List<Run> runs) throws IOException {
    List<Row> rows = rows(runs);
    // 1. gmp / ForkJoinPool at parallelism 2
    List<String> cats = new ArrayList<>();
    List<Double> vals = new ArrayList<>();
    for (Row row : rows) {
      if (row.parallelism() == 2 && !PACED.contains(row.workload())) {
        double r = ratioOf(row, "gmp", "fjp");
        if (!Double.isNaN(r)) {
          cats.add(row.label());
          vals.add(r);
        }
      }
    }
    double[][] v = new double[cats.size()][1];
    for (int i = 0; i < cats.size(); i++) {
      v[i][0] = vals.get(i);
    }
    write(
        out,
        dir.resolve("ratio.svg"),
        Svg.hbars(
            "gmp time / ForkJoinPool time, parallelism 2 (green: gmp faster)",
            "ratio of medians (log scale; < 1 = gmp faster)",
            cats,
            List.of("gmp/fjp"),
            v,
            1.0,
            true));

    // 2. every executor relative to ForkJoinPool at parallelism 2
    List<String> execs = new ArrayList<>(present(rows));
    execs.remove("none");
    List<String> cats2 = new ArrayList<>();
    List<double[]> vals2 = new ArrayList<>();
    for (Row row : rows) {
      if (row.parallelism() == 2 && !PACED.contains(row.workload())
          && row.byExecutor().containsKey("fjp") && row.byExecutor().size() > 2) {
        double[] x = new double[execs.size()];
        for (int s = 0; s < execs.size(); s++) {
          x[s] = ratioOf(row, execs.get(s), "fjp");
        }
        cats2.add(row.label());
        vals2.add(x);
      }
    }
    if (!cats2.isEmpty()) {
      write(
          out,
          dir.resolve("executors.svg"),
          Svg.hbars(
              "Every executor's time / ForkJoinPool's, parallelism 2",
              "ratio of medians (log scale; < 1 = faster than ForkJoinPool)",
              cats2,
              names(execs),
              vals2.toArray(new double[0][]),
              1.0,
              false));
    }

    // 3. scaling: time at parallelism 1 / time at parallelism 2 (speed-up), per executor
    Map<String, Row> p1 = new LinkedHashMap<>();
    for (Row row : rows) {
      if (row.parallelism() == 1) {
        p1.put(row.workload() + "|" + row.params(), row);
      }
    }
    List<String> cats3 = new ArrayList<>();
    List<double[]> vals3 = new ArrayList<>();
    for (Row row : rows) {
      Row one = p1.get(row.workload() + "|" + row.params());
      if (row.parallelism() != 2 || one == null || PACED.contains(row.workload())) {
        continue;
      }
      double[] x = new double[execs.size()];
      for (int s = 0; s < execs.size(); s++) {
        x[s] = med(one.byExecutor().get(execs.get(s))) / med(row.byExecutor().get(execs.get(s)));
      }
      cats3.add(row.label());
      vals3.add(x);
    }
    if (!cats3.isEmpty()) {
      write(
          out,
          dir.resolve("scaling.svg"),
          Svg.hbars(
              "Scaling: time at parallelism 1 / time at parallelism 2",
              "speed-up from 1 to 2 processors (log scale; 2 = perfect, < 1 = slower)",
              cats3,
              names(execs),
              vals3.toArray(new double[0][]),
              1.0,
              false));
    }

    // 4. latency percentiles (steady and burst), parallelism 2
    List<String> pcts = List.of("p50Us", "p90Us", "p99Us", "p999Us");
    List<String> cats4 = new ArrayList<>();
    List<double[]> vals4 = new ArrayList<>();
    for (Row row : rows) {
      if (!row.workload().equals("submitToStart") || row.parallelism() != 2) {
        continue;
      }
      for (String e : EXECUTORS) {
        if (!row.byExecutor().containsKey(e)) {
          continue;
        }
        double[] x = new double[pcts.size()];
        for (int s = 0; s < pcts.size(); s++) {
          x[s] = secondaryMedian(row, e, pcts.get(s));
        }
        cats4.add(row.params().replace("mode=", "") + ": " + NAMES.getOrDefault(e, e));
        vals4.add(x);
      }
    }
    if (!cats4.isEmpty()) {
      write(
          out,
          dir.resolve("latency.svg"),
          Svg.hbars(
              "Submit-to-start latency, parallelism 2 (steady: 1 task / 50 us; burst: 10 after 1 ms idle)",
              "microseconds (log scale)",
              cats4,
              List.of("p50", "p90", "p99", "p99.9"),
              vals4.toArray(new double[0][]),
              Double.NaN,
              false));
    }
  }

  private static List<String> names(List<String> execs) {
    List<String> l = new ArrayList<>();
    for (String e : execs) {
      l.add(NAMES.getOrDefault(e, e));
    }
    return l;
  }

  static void write(PrintStream out, Path file, String content) throws IOException {
    Files.writeString(file, content);
    out.println("wrote " + file);
  }
}
