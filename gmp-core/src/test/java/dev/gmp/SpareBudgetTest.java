package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * One spare budget bounds every hand-off (marked blocking calls, sysmon's retakes of marked,
 * unmarked and hogging tasks): the executor never has more than parallelism + maxSpareThreads
 * threads, counted at the ThreadFactory.
 */
class SpareBudgetTest {

  private static void sleepMicros(long micros) {
    long end = System.nanoTime() + micros * 1000;
    for (long left = micros * 1000; left > 0; left = end - System.nanoTime()) {
      LockSupport.parkNanos(left);
    }
  }

  /** The loop: 200 us marked sleeps from thousands of tasks at parallelism 2. */
  @Test
  void manyShortMarkedCallsStayWithinTheBudget() throws Exception {
    TestSupport.CountingFactory tf = new TestSupport.CountingFactory();
    GmpExecutor ex = GmpExecutor.builder().parallelism(2).threadFactory(tf).build();
    int n = 5_000;
    CountDownLatch done = new CountDownLatch(n);
    for (int i = 0; i < n; i++) {
      ex.execute(() -> {
        try {
          GmpExecutor.blocking(() -> {
            sleepMicros(200);
            return null;
          });
        } catch (Exception e) {
          throw new AssertionError(e);
        }
        done.countDown();
      });
    }
    TestSupport.await(done, LIVENESS_SECONDS * 3, "every call completes: " + ex.stats());
    GmpStats s = ex.stats();
    assertTrue(s.peakThreads() <= 2 + 256, "peak within parallelism + maxSpareThreads: " + s);
    assertTrue(tf.made.size() <= 2 + 256, "threads made " + tf.made.size() + ": " + s);
    // A hand-off's thread may still be on its way through the factory (sysmon starts its own
    // through a starter thread): the two counts meet once it has been made.
    TestSupport.awaitCondition(() -> "stats count what the factory made: " + tf.made.size()
        + " " + ex.stats(), LIVENESS_SECONDS,
        () -> tf.made.size() == ex.stats().threadsCreated());
    TestSupport.terminate(ex);
  }

  /** Marked calls, unmarked blocking and CPU hogs at once, with a budget of 3. */
  @Test
  void theBudgetHoldsForMarkedUnmarkedAndHoggingTasksMixed() throws Exception {
    TestSupport.CountingFactory tf = new TestSupport.CountingFactory();
    int p = 2;
    int budget = 3;
    GmpExecutor ex =
        GmpExecutor.builder()
            .parallelism(p)
            .maxSpareThreads(budget)
            .timeSlice(Duration.ofMillis(1))
            .threadFactory(tf)
            .build();
    int each = 40;
    CountDownLatch done = new CountDownLatch(3 * each);
    AtomicInteger maxAlive = new AtomicInteger();
    for (int i = 0; i < each; i++) {
      ex.execute(() -> { // marked
        try {
          GmpExecutor.blocking(() -> {
            sleepMicros(2_000);
            return null;
          });
        } catch (Exception e) {
          throw new AssertionError(e);
        }
        maxAlive.accumulateAndGet(tf.alive(), Math::max);
        done.countDown();
      });
      ex.execute(() -> { // unmarked
        sleepMicros(3_000);
        maxAlive.accumulateAndGet(tf.alive(), Math::max);
        done.countDown();
      });
      ex.execute(() -> { // hog
        long end = System.nanoTime() + 3_000_000;
        while (System.nanoTime() < end) {
          Thread.onSpinWait();
        }
        maxAlive.accumulateAndGet(tf.alive(), Math::max);
        done.countDown();
      });
    }
    TestSupport.await(done, LIVENESS_SECONDS * 3, "every task completes: " + ex.stats());
    GmpStats s = ex.stats();
    assertTrue(tf.made.size() <= p + budget, "threads made " + tf.made.size() + ": " + s);
    assertTrue(maxAlive.get() <= p + budget, "alive at most p + budget: " + maxAlive);
    assertTrue(s.peakThreads() <= p + budget, s.toString());
    TestSupport.terminate(ex);
  }

  /** Past the budget a marked call runs holding its P: it completes, and nothing is lost. */
  @Test
  void callsPastTheBudgetStillCompleteAndNothingIsLost() throws Exception {
    TestSupport.CountingFactory tf = new TestSupport.CountingFactory();
    GmpExecutor ex =
        GmpExecutor.builder().parallelism(1).maxSpareThreads(1).threadFactory(tf).build();
    int n = 200;
    AtomicInteger ran = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(n);
    for (int i = 0; i < n; i++) {
      ex.execute(() -> {
        try {
          GmpExecutor.blocking(() -> {
            sleepMicros(500);
            return null;
          });
        } catch (Exception e) {
          throw new AssertionError(e);
        }
        ran.incrementAndGet();
        done.countDown();
      });
    }
    TestSupport.await(done, LIVENESS_SECONDS * 3, "every call completes: " + ex.stats());
    assertEquals(n, ran.get());
    assertTrue(tf.made.size() <= 2, "threads made " + tf.made.size());
    TestSupport.terminate(ex);
  }

  /** maxSpareThreads(0): no hand-off at all, marked or not. */
  @Test
  void aBudgetOfZeroMeansNoHandOff() throws Exception {
    TestSupport.CountingFactory tf = new TestSupport.CountingFactory();
    GmpExecutor ex =
        GmpExecutor.builder()
            .parallelism(2)
            .maxSpareThreads(0)
            .timeSlice(Duration.ofMillis(1))
            .threadFactory(tf)
            .build();
    int n = 40;
    CountDownLatch done = new CountDownLatch(n);
    for (int i = 0; i < n; i++) {
      boolean marked = i % 2 == 0;
      ex.execute(() -> {
        if (marked) {
          try {
            GmpExecutor.blocking(() -> {
              sleepMicros(1_000);
              return null;
            });
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        } else {
          sleepMicros(2_000);
        }
        done.countDown();
      });
    }
    TestSupport.await(done, LIVENESS_SECONDS * 3, "every task completes: " + ex.stats());
    GmpStats s = ex.stats();
    assertEquals(0, s.retakes(), "no hand-off: " + s);
    assertTrue(tf.made.size() <= 2, "threads made " + tf.made.size() + ": " + s);
    TestSupport.terminate(ex);
  }

  /** Shutdown with a hundred spares in flight: it terminates and every thread is gone. */
  @Test
  void shutdownWithManySparesInFlightTerminatesWithEveryThreadGone() throws Exception {
    TestSupport.CountingFactory tf = new TestSupport.CountingFactory();
    GmpExecutor ex =
        GmpExecutor.builder().parallelism(2).maxSpareThreads(200).threadFactory(tf).build();
    int n = 150;
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger ran = new AtomicInteger();
    for (int i = 0; i < n; i++) {
      ex.execute(() -> {
        try {
          GmpExecutor.blocking(() -> release.await(LIVENESS_SECONDS, TimeUnit.SECONDS));
        } catch (Exception e) {
          throw new AssertionError(e);
        }
        ran.incrementAndGet();
      });
    }
    TestSupport.awaitCondition(() -> "100 spares in flight: " + ex.stats(), LIVENESS_SECONDS,
        () -> ex.stats().spareThreads() >= 100);
    ex.shutdown();
    release.countDown();
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS * 3, TimeUnit.SECONDS), ex.stats().toString());
    assertEquals(n, ran.get(), "every accepted task ran");
    for (Thread t : tf.made) {
      assertFalse(t.isAlive(), t + " exited");
    }
    assertTrue(tf.made.size() <= 2 + 200, "threads made " + tf.made.size());
  }

  /**
   * A task blocked (without blocking(), or inside it) holds the only P, work waits, and the
   * budget allows no thread to take the P (maxSpareThreads 0): nothing runs until the task
   * returns. sysmon says so once that has lasted Sysmon#STALL_REPORT_NANOS, once, through the
   * executor's handler.
   */
  @Test
  void workStalledBehindABlockedTaskAtTheBudgetIsReported() throws Exception {
    stallIsReported(false);
  }

  @Test
  void workStalledBehindAMarkedCallAtTheBudgetIsReported() throws Exception {
    stallIsReported(true);
  }

  /**
   * sysmon's notices reach the handler off sysmon's thread: while a slow handler holds one, sysmon
   * goes on handing Ps on. Parallelism 1, one spare: A blocks and its P goes to B, which blocks
   * too, with C queued behind it and the budget spent, so sysmon reports a stall, and the handler
   * holds on to that report. Then A returns, a spare slot frees, and sysmon hands B's P to C:
   * with the handler on sysmon's thread, C waited for the handler.
   */
  @Test
  void aSlowHandlerOfSysmonsNoticeDoesNotHoldSysmonUp() throws Exception {
    CountDownLatch inHandler = new CountDownLatch(1);
    CountDownLatch handlerGoes = new CountDownLatch(1);
    CountDownLatch releaseA = new CountDownLatch(1);
    CountDownLatch releaseB = new CountDownLatch(1);
    CountDownLatch bRuns = new CountDownLatch(1);
    CountDownLatch cRan = new CountDownLatch(1);
    Thread.UncaughtExceptionHandler slow = (t, e) -> {
      inHandler.countDown();
      try {
        handlerGoes.await(); // released by the test, whatever happens
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
      }
    };
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().parallelism(1)
        .maxSpareThreads(1).uncaughtExceptionHandler(slow).build())) {
      GmpExecutor ex = c.ex();
      try {
        TestSupport.BlockedP a = TestSupport.blockTheOnlyP(ex, false);
        ex.execute(() -> {
          bRuns.countDown();
          try {
            releaseB.await(); // no timeout: C must not get B's P by B's return
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
        TestSupport.await(bRuns, "B runs on A's P");
        ex.execute(cRan::countDown); // behind B, with the one spare slot taken by A
        TestSupport.await(inHandler, "sysmon's stall notice reaches the handler");
        a.release().countDown();
        TestSupport.await(cRan, () -> "C runs while the handler holds the notice: " + ex.stats());
      } finally {
        handlerGoes.countDown();
        releaseB.countDown();
      }
    }
  }

  private static void stallIsReported(boolean marked) throws Exception {
    ConcurrentLinkedQueue<Throwable> reported = new ConcurrentLinkedQueue<>();
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().parallelism(1)
        .maxSpareThreads(0).uncaughtExceptionHandler((t, e) -> reported.add(e)).build())) {
      GmpExecutor ex = c.ex();
      TestSupport.BlockedP b = TestSupport.blockTheOnlyP(ex, marked);
      TestSupport.awaitCondition(() -> "a stall warning: " + ex.stats(), LIVENESS_SECONDS,
          () -> !reported.isEmpty());
      Throwable e = reported.peek();
      assertInstanceOf(IllegalStateException.class, e);
      assertTrue(e.getMessage().contains("maxSpareThreads 0"), e.getMessage());
      assertEquals(1, b.queuedRan().getCount(), "the queued task still waits");
      b.release().countDown();
      TestSupport.await(b.queuedRan(), "the queued task runs once the blocked one returns");
      assertEquals(1, reported.size(), "one warning: " + reported);
    }
  }
}
