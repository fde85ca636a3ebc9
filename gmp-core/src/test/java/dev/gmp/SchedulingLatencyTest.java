package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gmp.micrometer.GmpExecutorMetrics;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Scheduling latency: the histogram, the sampling, and what stats, JMX and Micrometer show. */
class SchedulingLatencyTest {

  @Test
  void everyValueFallsInTheBucketWhoseBoundsHoldIt() {
    for (int i = 0; i < SchedLatency.BUCKETS; i++) {
      assertEquals(i, SchedLatency.bucket(SchedLatency.lower(i)), "lower bound of " + i);
      if (i < SchedLatency.BUCKETS - 1) {
        assertEquals(i, SchedLatency.bucket(SchedLatency.upper(i)), "upper bound of " + i);
        assertEquals(SchedLatency.upper(i) + 1, SchedLatency.lower(i + 1), "contiguous at " + i);
        // 8 sub-buckets per power of two: an upper bound is at most 1/8 above its lower bound.
        assertTrue(SchedLatency.upper(i) - SchedLatency.lower(i) <= SchedLatency.lower(i) / 8,
            "width of " + i);
      }
    }
    assertEquals(SchedLatency.BUCKETS - 1, SchedLatency.bucket(Long.MAX_VALUE));
    assertEquals(0, SchedLatency.bucket(0));
  }

  @Test
  void percentilesAreUpperBoundsOfTheRankedSample() {
    long[] c = new long[SchedLatency.BUCKETS];
    for (long v = 1; v <= 1000; v++) {
      c[SchedLatency.bucket(v * 1000)]++; // 1 us .. 1 ms
    }
    SchedulingLatency l = SchedLatency.of(c);
    assertEquals(1000, l.samples());
    assertBetween(500_000, l.p50Nanos());
    assertBetween(990_000, l.p99Nanos());
    assertBetween(999_000, l.p999Nanos());
    assertBetween(1_000_000, l.maxNanos());
    assertEquals(new SchedulingLatency(0, 64, 0, 0, 0, 0, 0),
        SchedLatency.of(new long[SchedLatency.BUCKETS]));
  }

  /** Never below the true value, at most 1/8 above it. */
  private static void assertBetween(long exact, long reported) {
    assertTrue(reported >= exact && reported <= exact + exact / 8, exact + " as " + reported);
  }

  /** Spawns {@code kids} tasks from one task (consecutive goids) and waits for all of them. */
  private static void spawnFromATask(GmpExecutor ex, int kids) throws Exception {
    CountDownLatch done = new CountDownLatch(kids);
    ex.execute(() -> {
      for (int i = 0; i < kids; i++) {
        ex.execute(done::countDown);
      }
    });
    TestSupport.await(done, "children ran");
  }

  @Test
  void samplingStartsAtTheFirstDemand() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().name("lat-lazy")
        .parallelism(1).build())) {
      GmpExecutor ex = c.ex();
      spawnFromATask(ex, 640);
      assertFalse(ex.sched.sampleLatency, "nobody asked: no G was wrapped");
      assertEquals(0, ex.schedulingLatency().samples(), "the first read finds none");
      assertTrue(ex.sched.sampleLatency, "the first read started the sampling");
      spawnFromATask(ex, 640); // ten multiples of 64 among 640 consecutive goids
      long n = ex.schedulingLatency().samples();
      assertTrue(n == 10 || n == 11, n + " samples"); // 11: the spawner's draw sampled it too
    }
  }

  @Test
  void theBuilderRecordsFromTheFirstTask() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().name("lat-eager")
        .parallelism(1).recordSchedulingLatency(true).build())) {
      GmpExecutor ex = c.ex();
      assertTrue(ex.sched.sampleLatency);
      spawnFromATask(ex, 640);
      long n = ex.schedulingLatency().samples();
      assertTrue(n == 10 || n == 11, n + " samples");
    }
  }

  @Test
  void tasksQueuedBehindALongOneShowItsLength() throws Exception {
    // One processor and a time slice beyond the test: children spawned by a task that then holds
    // the processor for 50 ms (on the CPU, so sysmon's detector does not take it) start after it
    // ends. Each sampled child became runnable before the 50 ms began and started after they
    // ended, so its latency exceeds them whatever the machine's speed.
    long holdNanos = TimeUnit.MILLISECONDS.toNanos(50);
    int kids = 640; // ten multiples of 64 among their consecutive goids
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().name("lat")
        .parallelism(1).timeSlice(Duration.ofMinutes(5)).build())) {
      GmpExecutor ex = c.ex();
      PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      new GmpExecutorMetrics(ex, "lat", Tags.empty()).bindTo(r);
      CountDownLatch done = new CountDownLatch(kids);
      ex.submit(() -> {
        for (int i = 0; i < kids; i++) {
          ex.execute(done::countDown);
        }
        long end = System.nanoTime() + holdNanos;
        while (System.nanoTime() - end < 0) {
          Thread.onSpinWait();
        }
      }).get(LIVENESS_SECONDS, TimeUnit.SECONDS);
      TestSupport.await(done, "children ran");
      SchedulingLatency l = ex.schedulingLatency();
      // The ten children, and the parent if its draw sampled it (an outside submission).
      assertTrue(l.samples() == 10 || l.samples() == 11, l.toString());
      assertEquals(64, l.sampleEvery());
      assertTrue(l.p50Nanos() >= holdNanos, "the median sample waited out the hold: " + l);
      assertTrue(l.p50Nanos() <= l.p90Nanos() && l.p90Nanos() <= l.p99Nanos()
          && l.p99Nanos() <= l.p999Nanos() && l.p999Nanos() <= l.maxNanos(), l.toString());
      // Micrometer's Timer got every sample, from the worker that started each task.
      Timer t = r.get("executor.idle").tags("name", "lat").timer();
      assertEquals(l.samples(), t.count());
      assertTrue(t.max(TimeUnit.NANOSECONDS) >= holdNanos, t.toString());
      String scrape = r.scrape();
      assertTrue(scrape.contains("executor_idle_seconds{name=\"lat\",quantile=\"0.99\"}"), scrape);
      assertTrue(scrape.contains("executor_idle_seconds_count{name=\"lat\"} " + l.samples()),
          scrape);
    }
  }
}
