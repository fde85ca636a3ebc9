package dev.gmp.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report reads JMH's JSON and computes medians, spreads and ratios as documented. */
class ReportTest {
  private static String run(String executor, String unit, String raw, String secondary) {
    return """
        {"benchmark": "dev.gmp.bench.TokioRt.ping_pong", "mode": "avgt",
         "params": {"executor": "%s", "parallelism": "2"},
         "jvmArgs": ["-Xmx1g"],
         "primaryMetric": {"score": 1.0, "scoreUnit": "%s", "rawData": %s},
         "secondaryMetrics": {%s}}
        """
        .formatted(executor, unit, raw, secondary);
  }

  @Test
  void medianSpreadAndRatio(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("r.json");
    Files.writeString(
        f,
        "["
            + run("gmp", "us/op", "[[100.0, 110.0], [90.0, \"NaN\"]]",
                "\"p99Us\": {\"score\": 3, \"scoreUnit\": \"#\", \"rawData\": [[2.0, 4.0]]}")
            + ","
            + run("fjp", "us/op", "[[200.0, 200.0, 200.0]]", "")
            + "]");
    List<Results.Run> runs = Results.load(List.of(f));
    assertEquals(2, runs.size());
    Results.Run gmp = runs.get(0);
    assertEquals("ping_pong", gmp.workload());
    assertEquals(3, gmp.samples().length, "NaN samples are dropped");
    assertEquals(100.0, Results.median(gmp.samples()), 1e-9);
    assertEquals(10.0, Results.spreadPct(gmp.samples()), 1e-9); // (110 - 90) / 2 / 100
    assertEquals(3.0, Results.median(gmp.secondary().get("p99Us")), 1e-9);

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    Report.compare(out, runs, "gmp", "fjp");
    String table = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(table.contains("| ping_pong"), table);
    assertTrue(table.contains("100 us"), table);
    assertTrue(table.contains("200 us"), table);
    assertTrue(table.contains("0.50"), table); // ratio of medians
    assertTrue(table.contains("met (<= 0.5)"), table); // ping-pong target
  }

  private static String timed(String bench, String executor, int p, double us) {
    return """
        {"benchmark": "dev.gmp.bench.%s", "mode": "avgt",
         "params": {"executor": "%s", "parallelism": "%d"},
         "primaryMetric": {"score": 1.0, "scoreUnit": "us/op", "rawData": [[%s]]},
         "secondaryMetrics": {}}
        """
        .formatted(bench, executor, p, us);
  }

  /**
   * The targets are checked at every parallelism in the data, each with its geometric mean:
   * ratios 0.5 and 2.0 at parallelism 4 give a geometric mean of 1.0 there (missed), while
   * parallelism 1 (0.5 and 0.5) meets it; the plot with one bar per parallelism is written.
   */
  @Test
  void targetsAndGeometricMeanAtEveryParallelism(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("p.json");
    Files.writeString(
        f,
        "["
            + String.join(
                ",",
                timed("TokioRt.yield_many", "gmp", 1, 50),
                timed("TokioRt.yield_many", "fjp", 1, 100),
                timed("ForkJoinTree.forkJoinTree", "gmp", 1, 50),
                timed("ForkJoinTree.forkJoinTree", "fjp", 1, 100),
                timed("TokioRt.yield_many", "gmp", 4, 50),
                timed("TokioRt.yield_many", "fjp", 4, 100),
                timed("ForkJoinTree.forkJoinTree", "gmp", 4, 200),
                timed("ForkJoinTree.forkJoinTree", "fjp", 4, 100))
            + "]");
    List<Results.Run> runs = Results.load(List.of(f));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    Report.targets(out, runs, "gmp", "fjp");
    String text = bytes.toString(StandardCharsets.UTF_8);
    int p1 = text.indexOf("Targets (parallelism 1");
    int p4 = text.indexOf("Targets (parallelism 4");
    assertTrue(p1 >= 0 && p4 > p1, text);
    assertTrue(text.substring(p1, p4).contains("geometric mean over 2 workloads: 0.50 -> met"), text);
    assertTrue(text.substring(p4).contains("geometric mean over 2 workloads: 1.00 -> MISSED"), text);
    assertTrue(text.substring(p4).contains("missed: forkJoinTree 2.00"), text);
    Path svg = dir.resolve("by-p.svg");
    Report.main(new String[] {"parallelism-svg", svg.toString(), f.toString()});
    assertTrue(Files.readString(svg).contains("parallelism 4"));
  }

  /** JSON escapes, integer numbers and a file of nothing: what JMH may write, read as JMH meant. */
  @Test
  void escapesIntegersAndEmptyFiles(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("e.json");
    Files.writeString(
        f,
        """
        [{"benchmark": "dev.gmp.bench.Http\\u0053erver.httpServer", "mode": "thrpt",
          "params": {"executor": "gmp", "parallelism": "1", "path": "/a\\"b"},
          "primaryMetric": {"score": 7, "scoreUnit": "ops/s", "rawData": [[5, 7, 9]]},
          "secondaryMetrics": {"p99Us": {"score": "NaN", "rawData": []}}}]
        """);
    Path empty = dir.resolve("empty.json");
    Files.writeString(empty, "\n");
    List<Results.Run> runs = Results.load(List.of(f, empty));
    assertEquals(1, runs.size());
    Results.Run r = runs.get(0);
    assertEquals("dev.gmp.bench.HttpServer.httpServer", r.benchmark());
    assertEquals("httpServer", r.workload());
    assertEquals("/a\"b", r.params().get("path"));
    assertEquals(1, r.parallelism());
    assertEquals(7.0, Results.median(r.samples()), 1e-9);
    assertEquals(0, r.secondary().get("p99Us").length, "a NaN score is no sample");
  }

  /** A miss is never printed as the target itself ("1.00 MISSED (<= 1.0)"). */
  @Test
  void viewsPlotsOneFilePerViewAndColumnWithABarPerParallelism(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("summary.json");
    Files.writeString(
        f,
        """
        {"rounds": 3, "cells": [
          {"view": "quiet", "gmp": "gmp", "workload": "chains", "metric": "time", "p": 1,
           "op1": [2.5, 2.0, 3.0], "sum": [1.5, 1.2, 1.8], "steady": [0.75, 0.5, 1.0]},
          {"view": "quiet", "gmp": "gmp", "workload": "chains", "metric": "time", "p": 2,
           "op1": [1.25, 1.0, 1.5], "sum": [1.1, 1.0, 1.2], "steady": [0.9, 0.8, 1.0]},
          {"view": "busy", "gmp": "gmp", "workload": "burst", "metric": "p99", "p": 2,
           "op1": [4.0, 3.0, 5.0], "sum": [2.0, 1.5, 2.5], "steady": [1.0, 0.9, 1.1]}]}
        """);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ViewsPlot.write(new PrintStream(bytes, true, StandardCharsets.UTF_8), dir, f);
    String quietSum = Files.readString(dir.resolve("views-quiet-sum.svg"));
    assertTrue(quietSum.contains("operations 1-30"), quietSum);
    assertTrue(quietSum.contains(">chains<"), quietSum);
    assertTrue(quietSum.contains("parallelism 1") && quietSum.contains("parallelism 2"), quietSum);
    assertTrue(quietSum.contains(">1.50<") && quietSum.contains(">1.10<"), quietSum);
    String busyOp1 = Files.readString(dir.resolve("views-busy-op1.svg"));
    assertTrue(busyOp1.contains(">burst p99<") && busyOp1.contains(">4.00<"), busyOp1);
    assertTrue(Files.exists(dir.resolve("views-busy-steady.svg")));
    assertEquals(6, bytes.toString(StandardCharsets.UTF_8).lines().count()); // "wrote" per file
  }

  @Test
  void aMissIsNotRoundedOntoTheTarget() {
    assertEquals("1.004", Report.ratio(1.004, 1.0));
    assertEquals("1.00", Report.ratio(0.998, 1.0));
    assertEquals("1.01", Report.ratio(1.006, 1.0));
    assertEquals("0.503", Report.ratio(0.503, 0.5));
    assertEquals("0.50", Report.ratio(0.5, 0.5));
  }
}
