package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gmp.micrometer.GmpExecutorMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jvm.ExecutorServiceMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ForkJoinPool;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** dev.gmp.micrometer.GmpExecutorMetrics against a SimpleMeterRegistry and Prometheus. */
class GmpExecutorMetricsTest {
  private static final Tags TAGS = Tags.of("name", "app", "region", "eu");

  private static double gauge(SimpleMeterRegistry r, String name) {
    Gauge g = r.find(name).tags(TAGS).gauge();
    assertTrue(g != null, "gauge " + name + " with tags " + TAGS);
    return g.value();
  }

  private static double counter(SimpleMeterRegistry r, String name) {
    FunctionCounter c = r.find(name).tags(TAGS).functionCounter();
    assertTrue(c != null, "function counter " + name + " with tags " + TAGS);
    return c.count();
  }

  @Test
  void everyMeterHasItsNameTypeAndTags() {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(2))) {
      SimpleMeterRegistry r = new SimpleMeterRegistry();
      new GmpExecutorMetrics(c.ex(), "app", List.of(Tag.of("region", "eu"))).bindTo(r);
      Set<String> gauges = new TreeSet<>();
      Set<String> counters = new TreeSet<>();
      for (Meter m : r.getMeters()) {
        assertEquals("app", m.getId().getTag("name"), m.getId().toString());
        assertEquals("eu", m.getId().getTag("region"), m.getId().toString());
        if (m instanceof Gauge) {
          gauges.add(m.getId().getName());
        } else if (m instanceof FunctionCounter) {
          counters.add(m.getId().getName());
        }
      }
      assertEquals(
          new TreeSet<>(List.of(
              "executor.queued", "executor.active", "executor.running", "executor.parallelism",
              "executor.pool.size", "executor.spinning", "executor.idle.processors",
              "executor.queued.global", "executor.delayed",
              // the executor.idle timer's percentiles, as a registry without them natively has
              "executor.idle.percentile")),
          gauges);
      assertTrue(r.find("executor.idle").tags(TAGS).timer() != null, "timer executor.idle");
      assertEquals(
          new TreeSet<>(List.of(
              "executor.steals", "executor.handoffs", "executor.retakes", "executor.completed",
              "executor.parks")),
          counters);
      assertEquals(2.0, gauge(r, "executor.parallelism"));
    }
  }

  /**
   * A scrape's metadata by Prometheus family: the HELP and TYPE lines and the sample names (the
   * names a dashboard queries), tag values left out.
   */
  private static Map<String, List<String>> families(String scrape) {
    Map<String, List<String>> byFamily = new TreeMap<>();
    String family = null;
    for (String line : scrape.split("\n")) {
      if (line.startsWith("# HELP ") || line.startsWith("# TYPE ")) {
        family = line.substring(7, line.indexOf(' ', 7));
        byFamily.computeIfAbsent(family, k -> new ArrayList<>()).add(line);
      } else if (!line.isBlank() && !line.startsWith("#")) {
        int end = line.indexOf('{');
        byFamily.computeIfAbsent(family, k -> new ArrayList<>())
            .add("sample " + line.substring(0, end < 0 ? line.indexOf(' ') : end));
      }
    }
    return byFamily;
  }

  @Test
  void prometheusSeesForkJoinPoolsNamesHelpAndTypes() {
    ForkJoinPool fjp = new ForkJoinPool(2);
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(2))) {
      PrometheusMeterRegistry gmp = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      new GmpExecutorMetrics(c.ex(), "app", Tags.empty()).bindTo(gmp);
      PrometheusMeterRegistry ref = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      new ExecutorServiceMetrics(fjp, "app", Tags.empty()).bindTo(ref);
      Map<String, List<String>> ours = families(gmp.scrape());
      Map<String, List<String>> theirs = families(ref.scrape());
      // The names a ForkJoinPool dashboard queries, spelled out: a unit suffix here breaks it.
      assertEquals(
          new TreeSet<>(List.of("executor_steals_total", "executor_queued", "executor_active",
              "executor_running", "executor_parallelism_threads", "executor_pool_size_threads",
              "executor_delayed_tasks")),
          new TreeSet<>(theirs.keySet()), "ForkJoinPool's families in this Micrometer and JDK");
      for (Map.Entry<String, List<String>> f : theirs.entrySet()) {
        assertEquals(f.getValue(), ours.get(f.getKey()),
            "family " + f.getKey() + ": HELP, TYPE and sample names as ForkJoinPool's");
      }
    } finally {
      fjp.shutdownNow();
    }
  }

  @Test
  void gaugesFollowTheExecutor() throws Exception {
    // One processor, no spare threads: the queued tasks stay queued while the first one runs.
    try (TestSupport.Closer c = TestSupport.closer(
        GmpExecutor.builder().parallelism(1).maxSpareThreads(0).build())) {
      GmpExecutor ex = c.ex();
      SimpleMeterRegistry r = new SimpleMeterRegistry();
      new GmpExecutorMetrics(ex, "app", Tags.of("region", "eu")).bindTo(r);
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      ex.execute(() -> {
        started.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      TestSupport.await(started, "long task started");
      for (int i = 0; i < 5; i++) {
        ex.execute(() -> {});
      }
      assertEquals(5.0, gauge(r, "executor.queued"));
      assertEquals(5.0, gauge(r, "executor.queued.global"));
      assertEquals(1.0, gauge(r, "executor.active"));
      assertEquals(1.0, gauge(r, "executor.running"));
      assertEquals(1.0, gauge(r, "executor.parallelism"));
      assertEquals(0.0, gauge(r, "executor.idle.processors"));
      assertTrue(gauge(r, "executor.pool.size") >= 1.0);
      release.countDown();
      TestSupport.awaitCondition(
          "six completed", () -> counter(r, "executor.completed") == 6.0);
      TestSupport.awaitCondition(
          "idle again", () -> gauge(r, "executor.idle.processors") == 1.0);
      assertEquals(0.0, gauge(r, "executor.queued"));
      assertEquals(0.0, gauge(r, "executor.active"));
    }
  }

  @Test
  void aTaskInABlockingCallIsActiveButNotRunning() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(1))) {
      GmpExecutor ex = c.ex();
      SimpleMeterRegistry r = new SimpleMeterRegistry();
      new GmpExecutorMetrics(ex, "app", Tags.of("region", "eu")).bindTo(r);
      CountDownLatch release = new CountDownLatch(1);
      ex.execute(() -> {
        try {
          GmpExecutor.blocking(() -> release.await(LIVENESS_SECONDS, TimeUnit.SECONDS));
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      });
      TestSupport.awaitCondition("in the blocking call", () -> ex.stats().syscallTasks() == 1);
      // Active counts spinning threads too (ForkJoinPool's "stealing or executing"): once the
      // thread its processor went to stops spinning, only the blocked task is active.
      TestSupport.awaitCondition("blocked task active, nothing running",
          () -> gauge(r, "executor.active") == 1.0 && gauge(r, "executor.running") == 0.0);
      // A task queued behind it gets a processor: the blocked one's is handed off.
      CountDownLatch ran = new CountDownLatch(1);
      ex.execute(ran::countDown);
      TestSupport.await(ran, "a task ran while the other was blocked");
      TestSupport.awaitCondition(
          "hand-off counted", () -> counter(r, "executor.handoffs") >= 1.0
              && counter(r, "executor.retakes") >= 1.0);
      release.countDown();
    }
  }

  @Test
  void stealsAreCounted() throws Exception {
    // A time slice far beyond the test, and a spawner that waits on the CPU (a blocked one would
    // lose its processor, with its queue, to sysmon's detector): its children can only run by
    // being stolen.
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().parallelism(2)
        .timeSlice(java.time.Duration.ofMinutes(5)).build())) {
      GmpExecutor ex = c.ex();
      SimpleMeterRegistry r = new SimpleMeterRegistry();
      new GmpExecutorMetrics(ex, "app", Tags.of("region", "eu")).bindTo(r);
      // A task that spawns many and then spins until they ran: the other processor has to steal.
      int kids = 64;
      CountDownLatch done = new CountDownLatch(kids);
      ex.submit(() -> {
        for (int i = 0; i < kids; i++) {
          ex.execute(done::countDown);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIVENESS_SECONDS);
        while (done.getCount() != 0 && System.nanoTime() - deadline < 0) {
          Thread.onSpinWait();
        }
        return null;
      }).get(LIVENESS_SECONDS + 5, TimeUnit.SECONDS);
      TestSupport.awaitCondition(
          () -> "steals counted: " + ex.stats(), LIVENESS_SECONDS,
          () -> counter(r, "executor.steals") == ex.stats().steals()
              && ex.stats().steals() >= 1);
    }
  }

  /**
   * Binding the executor to the same registry twice gets the same meters back (Micrometer's
   * registries de-duplicate by name and tags); the latency Timer was fed by one listener per
   * binding, so each sample counted twice.
   */
  @Test
  void bindingTwiceCountsEachLatencySampleOnce() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().parallelism(1)
        .recordSchedulingLatency(true).build())) {
      GmpExecutor ex = c.ex();
      SimpleMeterRegistry r = new SimpleMeterRegistry();
      new GmpExecutorMetrics(ex, "app", List.of(Tag.of("region", "eu"))).bindTo(r);
      new GmpExecutorMetrics(ex, "app", List.of(Tag.of("region", "eu"))).bindTo(r);
      SimpleMeterRegistry other = new SimpleMeterRegistry();
      new GmpExecutorMetrics(ex, "app", List.of(Tag.of("region", "eu"))).bindTo(other);
      AtomicLong samples = new AtomicLong();
      java.util.function.LongConsumer count = nanos -> samples.incrementAndGet();
      ex.onSchedulingLatency(count); // after the binders' listeners
      ex.onSchedulingLatency(count); // the same listener again: still once
      runUntilSampled(ex, samples);
      assertTrue(samples.get() > 0, "sampled");
      assertEquals(samples.get(), r.find("executor.idle").tags(TAGS).timer().count());
      assertEquals(samples.get(), other.find("executor.idle").tags(TAGS).timer().count(),
          "another registry's Timer is fed too");
    }
  }

  /**
   * A closed binder's listener is gone from the executor: its registry's Timer is no longer fed,
   * nor held, so an executor that outlives many registries (one per test, a refreshed context)
   * does not keep every Timer and feed each sample to all of them (2,000 closed bindings kept
   * 17 MB and slowed 200k tasks from 43 ms to 4 s in a user's check).
   */
  @Test
  void aClosedBinderNeitherFeedsNorHoldsItsTimer() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().parallelism(1)
        .recordSchedulingLatency(true).build())) {
      GmpExecutor ex = c.ex();
      SimpleMeterRegistry kept = new SimpleMeterRegistry();
      new GmpExecutorMetrics(ex, "app", List.of(Tag.of("region", "eu"))).bindTo(kept);
      SimpleMeterRegistry closed = new SimpleMeterRegistry();
      GmpExecutorMetrics binder = new GmpExecutorMetrics(ex, "app", List.of(Tag.of("region", "eu")));
      binder.bindTo(closed);
      binder.close();
      AtomicLong samples = new AtomicLong();
      ex.onSchedulingLatency(nanos -> samples.incrementAndGet());
      runUntilSampled(ex, samples);
      assertTrue(samples.get() > 0, "sampled");
      assertEquals(samples.get(), kept.find("executor.idle").tags(TAGS).timer().count());
      assertEquals(0, closed.find("executor.idle").tags(TAGS).timer().count(), "not fed");
      WeakReference<Object> timer = new WeakReference<>(closed.find("executor.idle").timer());
      closed.clear(); // the registry lets go of it: only the executor could hold it now
      TestSupport.awaitCondition("the closed binding's Timer collected", () -> {
        System.gc();
        return timer.get() == null;
      });
    }
  }

  @Test
  void badArgumentsAreNamed() {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(1))) {
      NullPointerException npe = assertThrows(NullPointerException.class,
          () -> new GmpExecutorMetrics(null, "x", Tags.empty()));
      assertEquals("executor", npe.getMessage());
      npe = assertThrows(NullPointerException.class,
          () -> new GmpExecutorMetrics(c.ex(), null, Tags.empty()));
      assertEquals("name", npe.getMessage());
      IllegalArgumentException iae = assertThrows(IllegalArgumentException.class,
          () -> new GmpExecutorMetrics(c.ex(), " ", Tags.empty()));
      assertTrue(iae.getMessage().contains("name"), iae.getMessage());
      // Null tags: just the name tag.
      SimpleMeterRegistry r = new SimpleMeterRegistry();
      new GmpExecutorMetrics(c.ex(), "solo", null).bindTo(r);
      assertEquals(1.0, r.get("executor.parallelism").tags("name", "solo").gauge().value());
    }
  }

  /**
   * Batches of tasks until a few were sampled (which ones is the executor's choice); each batch's
   * tasks have run, so has every listener of their samples.
   */
  private static void runUntilSampled(GmpExecutor ex, AtomicLong samples) {
    for (int batch = 0; batch < 100 && samples.get() < 3; batch++) {
      int n = 4 * SchedulingLatency.SAMPLE_EVERY_DEFAULT;
      CountDownLatch done = new CountDownLatch(n);
      for (int i = 0; i < n; i++) {
        ex.execute(done::countDown);
      }
      TestSupport.await(done, "tasks run");
    }
  }
}
