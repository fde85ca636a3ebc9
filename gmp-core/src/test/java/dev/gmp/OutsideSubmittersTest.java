package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Many outside submitters on an oversubscribed machine (more submitting threads and Ps than
 * cores): every accepted task runs exactly once, including across a shutdown racing them.
 */
class OutsideSubmittersTest {

  @Test
  void manySubmittersEveryTaskRunsOnce() throws Exception {
    int threads = 16;
    int each = 5_000;
    GmpExecutor ex = GmpExecutor.create(4);
    AtomicIntegerArray runs = new AtomicIntegerArray(threads * each);
    CountDownLatch done = new CountDownLatch(threads * each);
    List<Thread> subs = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int base = t * each;
      Thread th = new Thread(() -> {
        for (int i = 0; i < each; i++) {
          int id = base + i;
          ex.execute(() -> {
            runs.incrementAndGet(id);
            done.countDown();
          });
        }
      });
      subs.add(th);
      th.start();
    }
    for (Thread th : subs) {
      th.join();
    }
    TestSupport.await(done, LIVENESS_SECONDS * 3, "every outside task runs: " + ex.stats());
    for (int i = 0; i < runs.length(); i++) {
      assertEquals(1, runs.get(i), "task " + i + " ran once");
    }
    TestSupport.terminate(ex);
  }

  /**
   * More outside submissions than the injection side holds, while the only worker is busy: the
   * rest go through the locked path, and every one runs once, in submission order up to Go's
   * fairness rules (a batch of 128 goes to the ring and every 61st tick takes one from the global
   * queue first, so a task may overtake a few of its batch, never a whole injection ring).
   */
  @Test
  void moreSubmissionsThanTheInjectionSideHoldsAllRunInOrder() throws Exception {
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).maxSpareThreads(0).build();
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
    TestSupport.await(started, "the worker is busy");
    int n = 3 * GlobalQueue.INJECT_CAPACITY;
    List<Integer> order = new java.util.concurrent.CopyOnWriteArrayList<>();
    CountDownLatch done = new CountDownLatch(n);
    for (int i = 0; i < n; i++) {
      int id = i;
      ex.execute(() -> {
        order.add(id);
        done.countDown();
      });
    }
    release.countDown();
    TestSupport.await(done, "every submission runs: " + ex.stats());
    int[] pos = new int[n];
    for (int k = 0; k < n; k++) {
      pos[order.get(k)] = k;
    }
    for (int i = 0; i + RunQueue.SIZE < n; i++) {
      assertTrue(pos[i] < pos[i + RunQueue.SIZE],
          "task " + i + " ran after task " + (i + RunQueue.SIZE) + " (positions " + pos[i] + ", "
              + pos[i + RunQueue.SIZE] + ")");
    }
    assertEquals(n, order.size(), "each ran once");
    TestSupport.terminate(ex);
  }

  /** accepted == ran + returned, with submitters racing shutdownNow. */
  @Test
  void submittersRacingShutdownNowLoseNothing() throws Exception {
    for (int round = 0; round < 20; round++) {
      GmpExecutor ex = GmpExecutor.create(2);
      AtomicLong accepted = new AtomicLong();
      AtomicLong ran = new AtomicLong();
      List<Thread> subs = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        Thread th = new Thread(() -> {
          for (int i = 0; i < 2_000; i++) {
            try {
              ex.execute(ran::incrementAndGet);
              accepted.incrementAndGet();
            } catch (RejectedExecutionException e) {
              return;
            }
          }
        });
        subs.add(th);
        th.start();
      }
      Thread.yield();
      int returned = ex.shutdownNow().size();
      for (Thread th : subs) {
        th.join();
      }
      assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS), ex.stats().toString());
      assertEquals(accepted.get(), ran.get() + returned,
          "round " + round + ": accepted == ran + returned");
    }
  }
}
