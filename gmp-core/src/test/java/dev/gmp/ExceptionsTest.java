package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ExceptionsTest {

  /** p tasks that must all be running at once: proves p workers (and Ps) are still there. */
  private static void assertFullParallelism(GmpExecutor ex, int p) throws Exception {
    CyclicBarrier barrier = new CyclicBarrier(p);
    CountDownLatch done = new CountDownLatch(p);
    for (int i = 0; i < p; i++) {
      ex.execute(() -> {
        try {
          barrier.await(LIVENESS_SECONDS, TimeUnit.SECONDS);
          done.countDown();
        } catch (Exception e) {
          // barrier broken: done stays short and the await below fails
        }
      });
    }
    TestSupport.await(done, p + " tasks running at once after failures");
    assertEquals(p, ex.parallelism());
  }

  @Test
  void builderHandlerGetsRuntimeExceptionsAndErrorsAndWorkersSurvive() throws Exception {
    List<Throwable> caught = new CopyOnWriteArrayList<>();
    List<Thread> threads = new CopyOnWriteArrayList<>();
    int p = 2;
    try (TestSupport.Closer cex = TestSupport.closer(GmpExecutor.builder()
            .parallelism(p)
            .uncaughtExceptionHandler((t, e) -> {
              threads.add(t);
              caught.add(e);
            })
            .build())) {
      GmpExecutor ex = cex.ex();
      RuntimeException re = new IllegalStateException("runtime");
      Error err = new AssertionError("error");
      for (int i = 0; i < 20; i++) {
        Throwable x = i % 2 == 0 ? re : err;
        ex.execute(() -> {
          if (x instanceof Error e) {
            throw e;
          }
          throw (RuntimeException) x;
        });
      }
      // Also from a local spawn (runnext path).
      ex.execute(() -> ex.execute(() -> {
        throw re;
      }));
      TestSupport.awaitCondition("21 exceptions reported", () -> caught.size() >= 21);
      assertEquals(21, caught.size());
      assertEquals(11, caught.stream().filter(t -> t == re).count());
      assertEquals(10, caught.stream().filter(t -> t == err).count());
      for (Thread t : threads) {
        assertTrue(t.getName().startsWith("gmp-"), "handler called on the worker: " + t);
      }
      assertFullParallelism(ex, p);
      assertEquals(0, ex.stats().threadStartFailures());
    }
  }

  @Test
  void throwingHandlerDoesNotKillTheWorker() throws Exception {
    try (TestSupport.Closer cex = TestSupport.closer(GmpExecutor.builder()
            .parallelism(1)
            .uncaughtExceptionHandler((t, e) -> {
              throw new RuntimeException("handler itself fails");
            })
            .build())) {
      GmpExecutor ex = cex.ex();
      for (int i = 0; i < 5; i++) {
        ex.execute(() -> {
          throw new IllegalStateException();
        });
      }
      assertEquals("ok", ex.submit(() -> "ok").get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      assertFullParallelism(ex, 1);
    }
  }

  @Test
  void threadsOwnHandlerUsedWhenNoneSet() throws Exception {
    List<Throwable> caught = new CopyOnWriteArrayList<>();
    try (TestSupport.Closer cex = TestSupport.closer(GmpExecutor.builder()
            .parallelism(2)
            .threadFactory(r -> {
              Thread t = new Thread(r, "own-handler");
              t.setDaemon(true);
              t.setUncaughtExceptionHandler((th, e) -> caught.add(e));
              return t;
            })
            .build())) {
      GmpExecutor ex = cex.ex();
      RuntimeException re = new IllegalStateException("x");
      ex.execute(() -> {
        throw re;
      });
      TestSupport.awaitCondition("thread's handler called", () -> !caught.isEmpty());
      assertSame(re, caught.get(0));
      assertFullParallelism(ex, 2);
    }
  }

  @Test
  void defaultUncaughtHandlerUsedWhenNoneSet() throws Exception {
    Thread.UncaughtExceptionHandler old = Thread.getDefaultUncaughtExceptionHandler();
    List<Throwable> caught = new CopyOnWriteArrayList<>();
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> caught.add(e));
    try (TestSupport.Closer cex = TestSupport.closer(GmpExecutor.create(2))) {
      GmpExecutor ex = cex.ex();
      Error err = new StackOverflowError("synthetic");
      ex.execute(() -> {
        throw err;
      });
      TestSupport.awaitCondition("default handler called", () -> !caught.isEmpty());
      assertSame(err, caught.get(0));
      assertFullParallelism(ex, 2);
    } finally {
      Thread.setDefaultUncaughtExceptionHandler(old);
    }
  }

  @Test
  void submitFutureCarriesExceptionInsteadOfHandler() throws Exception {
    List<Throwable> caught = new CopyOnWriteArrayList<>();
    try (TestSupport.Closer cex = TestSupport.closer(GmpExecutor.builder().parallelism(1).uncaughtExceptionHandler((t, e) -> caught.add(e))
            .build())) {
      GmpExecutor ex = cex.ex();
      RuntimeException re = new IllegalArgumentException("in future");
      Future<?> f = ex.submit(() -> {
        throw re;
      });
      ExecutionException ee =
          org.junit.jupiter.api.Assertions.assertThrows(
              ExecutionException.class, () -> f.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      assertSame(re, ee.getCause());
      Error err = new AssertionError("error in future");
      Future<?> f2 = ex.submit(() -> {
        throw err;
      });
      ee = org.junit.jupiter.api.Assertions.assertThrows(
          ExecutionException.class, () -> f2.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      assertSame(err, ee.getCause());
      // A later execute()d failure does reach the handler; nothing from the futures did.
      ex.execute(() -> {
        throw new IllegalStateException("marker");
      });
      TestSupport.awaitCondition("marker reported", () -> !caught.isEmpty());
      assertEquals(1, caught.size());
      assertEquals("marker", caught.get(0).getMessage());
    }
  }
}
