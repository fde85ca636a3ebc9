package dev.gmp.bench;

import java.io.File;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The driver of the short-run, busy-machine and JIT views: launches {@link ShortRuns} in fresh
 * JVMs, gmp and ForkJoinPool interleaved (each round runs every cell once per executor, the order
 * of the pair alternating between rounds), and reports gmp time / ForkJoinPool time of the same
 * round as a median over rounds with its min-max.
 *
 * <pre>
 *   ThreeViews [options]            short runs (+ steady state in the same JVMs)
 *   ThreeViews jit [options]        JIT volume, wall and CPU of a short cold job
 * options:
 *   --jvms N          rounds, i.e. fresh JVMs per executor and cell (default 5)
 *   --p 1,2,4         parallelism values
 *   --workloads a,b   (default: all, see ShortRuns list)
 *   --ops 30          timed operations from the start of each JVM (the short-run view)
 *   --warm-ms 1000 --steady-ops 20
 *                     then run untimed until warm-ms since the first operation, then time
 *                     steady-ops more (the steady-state view; --steady-ops 0: none)
 *   --views quiet,busy  quiet: as is; busy: a CPU burner JVM (one busy thread per CPU) runs
 *                     beside every JVM of the round's busy half
 *   --gmp LABEL[=CORE_JAR]  a gmp build to compare (repeatable): its gmp-core jar goes first on
 *                     the class path; each label gets its own ForkJoinPool partner per round
 *   --jvm-opt OPTION  one more option for every measured JVM (repeatable), e.g.
 *                     -XX:+AlwaysPreTouch: the heap's pages touched before main, so that no
 *                     operation pays their first-touch faults (docs/benchmarks.md)
 *   --cp CLASSPATH    the benchmarks (default: this class's jar)
 *   --java FILE       (default: this JVM's)
 *   --out DIR         writes table.md, summary.json and raw.csv
 * </pre>
 */
public final class ThreeViews {
  private ThreeViews() {}

  static final String[] CHILD_JVM = {
    "-Xms1g", "-Xmx1g", "-XX:+IgnoreUnrecognizedVMOptions", "--sun-misc-unsafe-memory-access=allow"
  };

  record Variant(String label, String coreJar) {}

  /** One fresh JVM's results: phase/metric -> values per operation. */
  record Run(Map<String, long[]> series) {}

  // options
  static int jvms = 5;
  static int[] ps = {1, 2, 4};
  static List<String> workloads = new ArrayList<>(ShortRuns.WORKLOADS.keySet());
  static final List<String> jvmOpts = new ArrayList<>();
  static int ops = 30;
  static long warmMs = 1000;
  static int steadyOps = 20;
  static List<String> views = List.of("quiet");
  static List<Variant> variants = new ArrayList<>();
  static String cp = selfPath();
  static String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
  static Path out;

  public static void main(String[] args) throws Exception {
    boolean jit = args.length > 0 && args[0].equals("jit");
    for (int i = jit ? 1 : 0; i < args.length; i++) {
      String a = args[i];
      String v = i + 1 < args.length ? args[i + 1] : null;
      switch (a) {
        case "--jvms" -> jvms = Integer.parseInt(v);
        case "--p" -> ps = Arrays.stream(v.split(",")).mapToInt(Integer::parseInt).toArray();
        case "--workloads" -> workloads = List.of(v.split(","));
        case "--ops" -> ops = Integer.parseInt(v);
        case "--warm-ms" -> warmMs = Long.parseLong(v);
        case "--steady-ops" -> steadyOps = Integer.parseInt(v);
        case "--views" -> views = List.of(v.split(","));
        case "--gmp" -> {
          int eq = v.indexOf('=');
          variants.add(
              eq < 0 ? new Variant(v, null) : new Variant(v.substring(0, eq), v.substring(eq + 1)));
        }
        case "--jvm-opt" -> jvmOpts.add(v);
        case "--cp" -> cp = v;
        case "--java" -> javaBin = v;
        case "--out" -> out = Path.of(v);
        default -> throw new IllegalArgumentException("unknown option " + a);
      }
      i++;
    }
    for (String w : workloads) {
      if (!ShortRuns.WORKLOADS.containsKey(w)) {
        throw new IllegalArgumentException(
            "unknown workload " + w + ": " + ShortRuns.WORKLOADS.keySet());
      }
    }
    if (variants.isEmpty()) {
      variants.add(new Variant("gmp", null));
    }
    if (out != null) {
      Files.createDirectories(out);
    }
    if (jit) {
      jitView();
    } else {
      shortRuns();
    }
  }

  // ------------------------------------------------------------------ short runs

  /** key: view|variant|workload|p -> per round {gmp run, fjp run}. */
  static final Map<String, List<Run[]>> RESULTS = new LinkedHashMap<>();

  static void shortRuns() throws Exception {
    long t0 = System.nanoTime();
    int cells = views.size() * variants.size() * workloads.size() * ps.length * 2;
    System.err.printf(
        Locale.ROOT,
        "%d rounds x %d fresh JVMs (views %s, gmp %s, p %s)%n",
        jvms,
        cells,
        views,
        variants.stream().map(Variant::label).toList(),
        Arrays.toString(ps));
    StringBuilder raw =
        new StringBuilder("view,variant,workload,p,round,executor,phase,op,metric,ns\n");
    for (int r = 0; r < jvms; r++) {
      for (String view : views) {
        Process burner = view.equals("busy") ? startBurner() : null;
        try {
          for (String w : workloads) {
            for (int p : ps) {
              for (Variant v : variants) {
                Run g = null;
                Run f = null;
                for (int k = 0; k < 2; k++) {
                  boolean gmpNow = (k == 0) == (r % 2 == 0);
                  Run run = child(gmpNow ? v : null, w, p);
                  if (gmpNow) {
                    g = run;
                  } else {
                    f = run;
                  }
                  appendRaw(raw, view, v.label(), w, p, r, gmpNow ? "gmp" : "fjp", run);
                }
                RESULTS
                    .computeIfAbsent(
                        view + "|" + v.label() + "|" + w + "|" + p, x -> new ArrayList<>())
                    .add(new Run[] {g, f});
              }
            }
          }
        } finally {
          stopBurner(burner);
        }
      }
      System.err.printf(
          Locale.ROOT, " round %d/%d done, %.0f s%n", r + 1, jvms, (System.nanoTime() - t0) / 1e9);
    }
    String table = shortRunTable(Math.round((System.nanoTime() - t0) / 1e9));
    System.out.print(table);
    if (out != null) {
      Files.writeString(out.resolve("table.md"), table);
      Files.writeString(out.resolve("raw.csv"), raw);
      Files.writeString(out.resolve("summary.json"), summaryJson());
    }
  }

  static void appendRaw(
      StringBuilder raw, String view, String variant, String w, int p, int r, String ex, Run run) {
    for (Map.Entry<String, long[]> e : run.series().entrySet()) {
      String[] pm = e.getKey().split("/");
      long[] vals = e.getValue();
      for (int i = 0; i < vals.length; i++) {
        raw.append(view)
            .append(',')
            .append(variant)
            .append(',')
            .append(w)
            .append(',')
            .append(p)
            .append(',')
            .append(r + 1)
            .append(',')
            .append(ex)
            .append(',')
            .append(pm[0])
            .append(',')
            .append(i + 1)
            .append(',')
            .append(pm[1])
            .append(',')
            .append(vals[i])
            .append('\n');
      }
    }
  }

  /** Runs one fresh JVM: gmp of {@code v}, or ForkJoinPool when {@code v} is null. */
  static Run child(Variant v, String workload, int p) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(javaBin);
    cmd.addAll(List.of(CHILD_JVM));
    cmd.addAll(jvmOpts);
    cmd.add("-cp");
    cmd.add(v != null && v.coreJar() != null ? v.coreJar() + File.pathSeparator + cp : cp);
    cmd.addAll(
        List.of(
            ShortRuns.class.getName(),
            "run",
            workload,
            v != null ? "gmp" : "fjp",
            Integer.toString(p),
            Integer.toString(ops),
            Long.toString(warmMs),
            Integer.toString(steadyOps)));
    String[] io = exec(cmd);
    Map<String, long[]> series = new TreeMap<>();
    Map<String, List<Long>> acc = new TreeMap<>();
    for (String line : io[0].split("\n")) {
      if (line.startsWith("# core ")) {
        if (v != null
            && v.coreJar() != null
            && !line.contains(Path.of(v.coreJar()).getFileName().toString())) {
          throw new IllegalStateException("gmp " + v.label() + " ran another core: " + line);
        }
        continue;
      }
      String[] f = line.split(",");
      if (f.length != 4 || f[0].equals("phase")) {
        continue;
      }
      acc.computeIfAbsent(f[0] + "/" + f[2], x -> new ArrayList<>()).add(Long.parseLong(f[3]));
    }
    acc.forEach((k, l) -> series.put(k, l.stream().mapToLong(Long::longValue).toArray()));
    if (series.isEmpty()) {
      throw new IllegalStateException("no output from " + cmd + "\n" + io[1]);
    }
    System.err.print('.');
    return new Run(series);
  }

  /** Runs a command; returns {stdout, stderr}; fails on a non-zero exit. */
  static String[] exec(List<String> cmd) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(cmd);
    Path err = Files.createTempFile("threeviews", ".err");
    pb.redirectError(err.toFile());
    Process pr = pb.start();
    pr.getOutputStream().close();
    String stdout = new String(pr.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int rc = pr.waitFor();
    String stderr = Files.readString(err);
    Files.delete(err);
    if (rc != 0) {
      throw new IllegalStateException(
          "exit " + rc + ": " + String.join(" ", cmd) + "\n" + stdout + stderr);
    }
    return new String[] {stdout, stderr};
  }

  static Process startBurner() throws Exception {
    int n = Runtime.getRuntime().availableProcessors();
    Process pr =
        new ProcessBuilder(
                javaBin, "-cp", cp, ShortRuns.class.getName(), "burn", Integer.toString(n))
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    Thread.sleep(500); // its JVM up and its threads spinning before the first measured JVM
    return pr;
  }

  static void stopBurner(Process pr) throws Exception {
    if (pr == null) {
      return;
    }
    OutputStream in = pr.getOutputStream();
    in.close(); // EOF on its stdin: it exits
    if (!pr.waitFor(5, TimeUnit.SECONDS)) {
      pr.destroyForcibly();
      pr.waitFor();
    }
  }

  // ------------------------------------------------------------------ statistics

  /** median, min, max of a sample. */
  static double[] mmm(double[] x) {
    double[] s = x.clone();
    Arrays.sort(s);
    int n = s.length;
    double med = n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    return new double[] {med, s[0], s[n - 1]};
  }

  static double median(long[] x) {
    long[] s = x.clone();
    Arrays.sort(s);
    int n = s.length;
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
  }

  static long sum(long[] x) {
    long t = 0;
    for (long v : x) {
      t += v;
    }
    return t;
  }

  static final String[] STATS = {"op1", "sum", "steady"};

  /** Per-round ratios of one statistic; null when the runs lack it. */
  static double[] ratios(List<Run[]> rounds, String metric, String stat) {
    double[] r = new double[rounds.size()];
    for (int i = 0; i < r.length; i++) {
      Run[] gf = rounds.get(i);
      long[] g = gf[0].series().get((stat.equals("steady") ? "steady/" : "short/") + metric);
      long[] f = gf[1].series().get((stat.equals("steady") ? "steady/" : "short/") + metric);
      if (g == null || f == null) {
        return null;
      }
      r[i] =
          switch (stat) {
            case "op1" -> (double) g[0] / f[0];
            case "sum" -> (double) sum(g) / sum(f);
            default -> median(g) / median(f);
          };
    }
    return r;
  }

  static List<String> metrics(String workload) {
    return ShortRuns.WORKLOADS.get(workload).metrics();
  }

  static String rowName(String w, String metric) {
    return metric.equals("time") ? w : w + " " + metric;
  }

  static String fmt(double[] m) {
    if (m == null) {
      return "-";
    }
    return String.format(Locale.ROOT, "%.2f (%.2f-%.2f)", m[0], m[1], m[2]);
  }

  static String shortRunTable(long seconds) {
    StringBuilder sb = new StringBuilder();
    List<String> cols = new ArrayList<>(List.of("op1", "sum"));
    if (steadyOps > 0) {
      cols.add("steady");
    }
    Map<String, String> title =
        Map.of(
            "op1",
            "op 1",
            "sum",
            "ops 1-" + ops,
            "steady",
            "steady (" + steadyOps + " ops after " + warmMs + " ms)");
    sb.append(
        String.format(
            Locale.ROOT,
            "%ngmp time / ForkJoinPool time (< 1: gmp faster), median (min-max) over %d rounds of"
                + " fresh JVMs, executors interleaved%s; %d s%n",
            jvms,
            jvmOpts.isEmpty() ? "" : ", JVM options " + String.join(" ", jvmOpts),
            seconds));
    for (String view : views) {
      for (Variant v : variants) {
        sb.append(String.format(Locale.ROOT, "%n%s machine, gmp = %s%n%n", view, v.label()));
        sb.append("| workload | p |");
        for (String c : cols) {
          sb.append(' ').append(title.get(c)).append(" |");
        }
        sb.append('\n').append("|:--|--:|");
        sb.append("--:|".repeat(cols.size())).append('\n');
        for (String w : workloads) {
          for (String m : metrics(w)) {
            for (int p : ps) {
              List<Run[]> rounds = RESULTS.get(view + "|" + v.label() + "|" + w + "|" + p);
              sb.append("| ").append(rowName(w, m)).append(" | ").append(p).append(" |");
              for (String c : cols) {
                double[] r = ratios(rounds, m, c);
                sb.append(' ').append(fmt(r == null ? null : mmm(r))).append(" |");
              }
              sb.append('\n');
            }
          }
        }
        for (int p : ps) {
          sb.append("| **geometric mean** | ").append(p).append(" |");
          for (String c : cols) {
            sb.append(" **").append(fmt(geomean(view, v, p, c))).append("** |");
          }
          sb.append('\n');
        }
      }
    }
    return sb.toString();
  }

  /** Per round, the geometric mean over workloads of that round's ratios; then median (min-max). */
  static double[] geomean(String view, Variant v, int p, String stat) {
    double[] logs = new double[jvms];
    int n = 0;
    for (String w : workloads) {
      for (String m : metrics(w)) {
        double[] r = ratios(RESULTS.get(view + "|" + v.label() + "|" + w + "|" + p), m, stat);
        if (r == null) {
          return null;
        }
        for (int i = 0; i < jvms; i++) {
          logs[i] += Math.log(r[i]);
        }
        n++;
      }
    }
    double[] g = new double[jvms];
    for (int i = 0; i < jvms; i++) {
      g[i] = Math.exp(logs[i] / n);
    }
    return mmm(g);
  }

  static String json(double[] m) {
    return m == null ? "null" : String.format(Locale.ROOT, "[%.4f,%.4f,%.4f]", m[0], m[1], m[2]);
  }

  /** Every cell's median/min/max per statistic and per operation (ratios only). */
  static String summaryJson() {
    StringBuilder sb = new StringBuilder("{\n");
    sb.append(
        String.format(
            Locale.ROOT,
            "\"rounds\":%d,\"ops\":%d,\"warmMs\":%d,\"steadyOps\":%d,\"cpus\":%d,\"ratio\":\"gmp/fjp,"
                + " [median,min,max] over rounds\",\n"
                + "\"cells\":[\n",
            jvms,
            ops,
            warmMs,
            steadyOps,
            Runtime.getRuntime().availableProcessors()));
    boolean first = true;
    for (Map.Entry<String, List<Run[]>> e : RESULTS.entrySet()) {
      String[] k = e.getKey().split("\\|");
      for (String m : metrics(k[2])) {
        if (!first) {
          sb.append(",\n");
        }
        first = false;
        sb.append(
            String.format(
                Locale.ROOT,
                "{\"view\":\"%s\",\"gmp\":\"%s\",\"workload\":\"%s\","
                    + "\"metric\":\"%s\",\"p\":%s",
                k[0],
                k[1],
                k[2],
                m,
                k[3]));
        for (String s : STATS) {
          double[] r = ratios(e.getValue(), m, s);
          sb.append(",\"").append(s).append("\":").append(json(r == null ? null : mmm(r)));
        }
        sb.append(",\"perOp\":[");
        for (int i = 0; i < ops; i++) {
          double[] r = new double[e.getValue().size()];
          for (int j = 0; j < r.length; j++) {
            Run[] gf = e.getValue().get(j);
            r[j] =
                (double) gf[0].series().get("short/" + m)[i] / gf[1].series().get("short/" + m)[i];
          }
          sb.append(i == 0 ? "" : ",").append(json(mmm(r)));
        }
        sb.append("]}");
      }
    }
    sb.append("\n]}\n");
    return sb.toString();
  }

  // ------------------------------------------------------------------ JIT view

  static final Pattern CI_TIME = Pattern.compile("Total compilation time\\s*:\\s*([0-9.]+)");
  static final Pattern CI_METHODS = Pattern.compile("Total compiled methods\\s*:\\s*([0-9]+)");
  static final Pattern WALL =
      Pattern.compile(
          "Elapsed \\(wall clock\\) time \\(h:mm:ss or m:ss\\): (?:(\\d+):)?(\\d+):([0-9.]+)");
  static final Pattern USER = Pattern.compile("User time \\(seconds\\): ([0-9.]+)");
  static final Pattern SYS = Pattern.compile("System time \\(seconds\\): ([0-9.]+)");
  static final Pattern RSS = Pattern.compile("Maximum resident set size \\(kbytes\\): (\\d+)");

  static final String[] JIT_STATS = {"compile s", "methods", "wall s", "cpu s", "rss MB"};

  static double[] jitChild(Variant v, int p, boolean gmp) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("/usr/bin/time", "-v", javaBin));
    cmd.addAll(List.of(CHILD_JVM));
    cmd.addAll(jvmOpts);
    cmd.add("-XX:+CITime");
    cmd.add("-cp");
    cmd.add(gmp && v.coreJar() != null ? v.coreJar() + File.pathSeparator + cp : cp);
    cmd.addAll(List.of(ShortRuns.class.getName(), "jit", gmp ? "gmp" : "fjp", Integer.toString(p)));
    String[] io = exec(cmd);
    String all = io[0] + io[1];
    double[] r = new double[5];
    r[0] = Double.parseDouble(find(CI_TIME, all, cmd));
    r[1] = Double.parseDouble(find(CI_METHODS, all, cmd));
    Matcher w = WALL.matcher(all);
    if (!w.find()) {
      throw new IllegalStateException("no wall time in output of " + cmd + "\n" + all);
    }
    r[2] =
        (w.group(1) == null ? 0 : Integer.parseInt(w.group(1)) * 3600)
            + Integer.parseInt(w.group(2)) * 60
            + Double.parseDouble(w.group(3));
    r[3] = Double.parseDouble(find(USER, all, cmd)) + Double.parseDouble(find(SYS, all, cmd));
    r[4] = Double.parseDouble(find(RSS, all, cmd)) / 1024;
    System.err.print('.');
    return r;
  }

  static String find(Pattern p, String s, List<String> cmd) {
    Matcher m = p.matcher(s);
    if (!m.find()) {
      throw new IllegalStateException("no '" + p + "' in output of " + cmd + "\n" + s);
    }
    return m.group(1);
  }

  static void jitView() throws Exception {
    long t0 = System.nanoTime();
    // variant|p -> rounds of {gmp stats, fjp stats}
    Map<String, List<double[][]>> res = new LinkedHashMap<>();
    for (int r = 0; r < jvms; r++) {
      for (int p : ps) {
        for (Variant v : variants) {
          double[] g = null;
          double[] f = null;
          for (int k = 0; k < 2; k++) {
            boolean gmpNow = (k == 0) == (r % 2 == 0);
            double[] x = jitChild(v, p, gmpNow);
            if (gmpNow) {
              g = x;
            } else {
              f = x;
            }
          }
          res.computeIfAbsent(v.label() + "|" + p, x -> new ArrayList<>())
              .add(new double[][] {g, f});
        }
      }
      System.err.printf(
          Locale.ROOT, " round %d/%d done, %.0f s%n", r + 1, jvms, (System.nanoTime() - t0) / 1e9);
    }
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "%nJIT view: one cold job per fresh JVM (executor; 100 x (10k local spawns, a 1,000-hop"
                + " chain, a 2^12 fork tree)), -XX:+CITime and /usr/bin/time -v; median (min-max)"
                + " over %d rounds, gmp and ForkJoinPool interleaved%n%n",
            jvms));
    sb.append(
        "| gmp | p | compilation time gmp/fjp | compiled methods gmp / fjp (medians) | wall gmp/fjp"
            + " | CPU (user+sys) gmp/fjp | max RSS gmp/fjp |\n|:--|--:|--:|--:|--:|--:|--:|\n");
    StringBuilder js = new StringBuilder("{\"rounds\":" + jvms + ",\"cells\":[\n");
    boolean first = true;
    for (Map.Entry<String, List<double[][]>> e : res.entrySet()) {
      String[] k = e.getKey().split("\\|");
      List<double[][]> rounds = e.getValue();
      double[][] ratio = new double[5][rounds.size()];
      double[][] abs = new double[10][rounds.size()];
      for (int i = 0; i < rounds.size(); i++) {
        for (int s = 0; s < 5; s++) {
          ratio[s][i] = rounds.get(i)[0][s] / rounds.get(i)[1][s];
          abs[s][i] = rounds.get(i)[0][s];
          abs[5 + s][i] = rounds.get(i)[1][s];
        }
      }
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %.0f / %.0f (%s) | %s | %s | %s |%n",
              k[0],
              k[1],
              fmt(mmm(ratio[0])),
              mmm(abs[1])[0],
              mmm(abs[6])[0],
              fmt(mmm(ratio[1])),
              fmt(mmm(ratio[2])),
              fmt(mmm(ratio[3])),
              fmt(mmm(ratio[4]))));
      js.append(first ? "" : ",\n")
          .append(String.format(Locale.ROOT, "{\"gmp\":\"%s\",\"p\":%s", k[0], k[1]));
      first = false;
      for (int s = 0; s < 5; s++) {
        js.append(",\"").append(JIT_STATS[s]).append(" ratio\":").append(json(mmm(ratio[s])));
        js.append(",\"").append(JIT_STATS[s]).append(" gmp\":").append(json(mmm(abs[s])));
        js.append(",\"").append(JIT_STATS[s]).append(" fjp\":").append(json(mmm(abs[5 + s])));
      }
      js.append('}');
    }
    js.append("\n]}\n");
    sb.append(String.format(Locale.ROOT, "%n%.0f s%n", (System.nanoTime() - t0) / 1e9));
    System.out.print(sb);
    if (out != null) {
      Files.writeString(out.resolve("jit.md"), sb);
      Files.writeString(out.resolve("jit.json"), js);
    }
  }

  static String selfPath() {
    try {
      return Path.of(ThreeViews.class.getProtectionDomain().getCodeSource().getLocation().toURI())
          .toString();
    } catch (Exception e) {
      return System.getProperty("java.class.path");
    }
  }
}
