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
