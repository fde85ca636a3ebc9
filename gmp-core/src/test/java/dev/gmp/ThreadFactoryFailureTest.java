package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ThreadFactoryFailureTest {

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  @Test
  void flakyFactoryLosesNoWork() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    AtomicInteger good = new AtomicInteger();
    ThreadFactory flaky = r -> {
      int n = calls.incrementAndGet();
      if (n == 1) {
        good.incrementAndGet();
        return daemon(r, "flaky-good-" + n);
      }
      if (n % 2 == 0) {
        throw new IllegalStateException("factory failure " + n);
      }
      return null;
    };
    try (TestSupport.Closer cex = TestSupport.closer(GmpExecutor.builder().parallelism(4).threadFactory(flaky)
        .uncaughtExceptionHandler((t, e) -> {}).build())) {
      GmpExecutor ex = cex.ex();
      // First task: creates the one good thread.
      assertEquals(1, ex.submit(() -> 1).get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      // While it runs a task, a submission finds nobody spinning and idle Ps: it asks the
      // factory for another thread (at once, or sysmon after the backoff), which fails. (Without
      // this, the good thread may serve every wake-up below by spinning, and nobody asks.)
      CountDownLatch running = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      ex.execute(() -> {
        running.countDown();
        TestSupport.awaitQuietly(release);
      });
      TestSupport.await(running, "the good thread runs a task");
      Future<?> asks = ex.submit(() -> {});
      TestSupport.awaitCondition("the factory is asked again", () -> calls.get() >= 2);
      release.countDown();
      asks.get(LIVENESS_SECONDS, TimeUnit.SECONDS);
      int n = 500;
      CountDownLatch done = new CountDownLatch(n + 100);
      for (int i = 0; i < n; i++) {
        ex.execute(done::countDown);
      }
      ex.execute(() -> {
        for (int i = 0; i < 100; i++) {
          ex.execute(done::countDown);
        }
      });
      TestSupport.await(done, "every task runs on the threads that exist");
      TestSupport.awaitCondition(() -> "failures counted: " + ex.stats(), LIVENESS_SECONDS,
          () -> ex.stats().threadStartFailures() > 0);
      GmpStats s = ex.stats();
      assertEquals(1, good.get());
      assertEquals(1, s.threads(), "only the good thread exists: " + s);
      // Still usable afterwards.
      assertEquals("ok", ex.submit(() -> "ok").get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    }
  }

  /**
   * Regression: sysmon retakes the P of a long task whose spawns wait in its ring; the hand-off
   * needs a new thread, the factory fails, and the P (with the spawns moved onto it) went to the
   * idle list with its work. Thieves skip idle Ps, so the spawns were stranded while the only
   * thread spun. Failing starts must leave no work on an idle P.
   */
  @Test
  void retakeWithFailingFactoryStrandsNothing() throws Exception {
    for (int round = 0; round < 10; round++) {
      AtomicInteger calls = new AtomicInteger();
      ThreadFactory oneThread = r -> {
        if (calls.incrementAndGet() == 1) {
          return daemon(r, "only-thread");
        }
        throw new IllegalStateException("no more threads");
      };
      try (TestSupport.Closer c =
          TestSupport.closer(GmpExecutor.builder().parallelism(2).threadFactory(oneThread)
              .uncaughtExceptionHandler((t, e) -> {})
              .timeSlice(java.time.Duration.ofMillis(1)).build())) {
        GmpExecutor ex = c.ex();
        int kids = 100;
        CountDownLatch done = new CountDownLatch(kids);
        CountDownLatch spawned = new CountDownLatch(1);
        ex.execute(() -> {
          for (int i = 0; i < kids; i++) {
            ex.execute(done::countDown);
          }
          spawned.countDown();
          // Hold the P until sysmon has retaken it (bounded; no timing claim).
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
          while (ex.stats().retakes() == 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
          }
        });
        TestSupport.await(spawned, "spawner ran");
        TestSupport.await(done, "round " + round + ": spawned tasks run on the only thread: "
            + ex.stats());
        // Eventually one thread: a start the spawner's retake set off may still be failing
        // (counted from allocm until its factory call throws), which is not a stranded thread.
        TestSupport.awaitCondition(() -> ex.stats() + BlockingTest.describeMs(ex),
            LIVENESS_SECONDS, () -> ex.stats().threads() == 1);
      }
    }
  }

  /**
   * With no thread at all and none to be had, a submission is rejected with the factory's failure
   * as cause (nothing is queued that no thread can run); once the factory works, tasks run.
   */
  @Test
  void factoryFailingEveryCallThenRecovering() throws Exception {
    AtomicBoolean works = new AtomicBoolean(false);
    AtomicInteger calls = new AtomicInteger();
    ThreadFactory tf = r -> {
      int n = calls.incrementAndGet();
      if (!works.get()) {
        if (n % 2 == 0) {
          return null;
        }
        throw new OutOfMemoryError("unable to create native thread (synthetic)");
      }
      return daemon(r, "recovered-" + n);
    };
    GmpExecutor ex = GmpExecutor.builder().parallelism(2).threadFactory(tf)
        .uncaughtExceptionHandler((t, e) -> {}).build();
    try {
      CountDownLatch ran = new CountDownLatch(1);
      for (int i = 0; i < 10; i++) {
        RejectedExecutionException e = assertThrows(RejectedExecutionException.class,
            () -> ex.execute(ran::countDown));
        assertTrue(e.getCause() instanceof OutOfMemoryError
            || e.getCause() instanceof IllegalStateException, e.toString());
      }
      GmpStats s = ex.stats();
      assertEquals(0, s.threads(), "no thread started: " + s);
      assertEquals(10, s.threadStartFailures(), "one try per submission: " + s);
      assertEquals(0, s.globalQueueLength(), "nothing queued: " + s);

      works.set(true);
      ex.execute(ran::countDown);
      TestSupport.await(ran, "a new task runs once the factory works again");
      assertTrue(ex.stats().threads() >= 1);
    } finally {
      TestSupport.terminate(ex);
    }
  }

  @Test
  void shutdownWithNoThreadEverStartedTerminates() throws Exception {
    GmpExecutor ex =
        GmpExecutor.builder()
            .parallelism(2)
            .uncaughtExceptionHandler((t, e) -> {})
            .threadFactory(r -> {
              throw new IllegalStateException("never");
            })
            .build();
    assertThrows(RejectedExecutionException.class, () -> ex.execute(() -> {}));
    ex.shutdown();
    assertTrue(ex.shutdownNow().isEmpty(), "the rejected task was never queued");
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS), ex.stats().toString());
  }
}
