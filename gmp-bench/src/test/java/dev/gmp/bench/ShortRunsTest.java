package dev.gmp.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.Test;

/** Every fresh-JVM workload completes on gmp and ForkJoinPool; ThreeViews' statistics. */
class ShortRunsTest {
  @Test
  void everyWorkloadCompletesOnBothExecutors() {
    for (String executor : List.of("gmp", "fjp")) {
      ExecutorService ex = Execs.create(executor, 2);
      try {
        for (ShortRuns.Workload w : ShortRuns.WORKLOADS.values()) {
          long[] m = w.op().run(ex);
          if (m == null) {
            assertEquals(List.of("time"), w.metrics(), w.name());
          } else {
            assertEquals(w.metrics().size(), m.length, w.name());
            assertTrue(m[0] > 0 && m[0] <= m[1], w.name() + ": p50 <= p99");
          }
        }
      } finally {
        Execs.shutdown(ex);
      }
    }
  }

  @Test
  void ratiosPerRound() {
    ThreeViews.Run g = new ThreeViews.Run(Map.of("short/time", new long[] {40, 20, 20},
        "steady/time", new long[] {3, 1, 2}));
    ThreeViews.Run f = new ThreeViews.Run(Map.of("short/time", new long[] {10, 10, 20},
        "steady/time", new long[] {1, 1, 1}));
    List<ThreeViews.Run[]> rounds = List.<ThreeViews.Run[]>of(new ThreeViews.Run[] {g, f});
    assertArrayEquals(new double[] {4.0}, ThreeViews.ratios(rounds, "time", "op1"));
    assertArrayEquals(new double[] {2.0}, ThreeViews.ratios(rounds, "time", "sum"));
    assertArrayEquals(new double[] {2.0}, ThreeViews.ratios(rounds, "time", "steady"));
    assertNull(ThreeViews.ratios(rounds, "p99", "op1"));
    assertArrayEquals(new double[] {2.0, 1.0, 5.0}, ThreeViews.mmm(new double[] {5, 1, 2}));
    assertArrayEquals(new double[] {2.5, 1.0, 5.0}, ThreeViews.mmm(new double[] {5, 1, 2, 3}));
  }
}
