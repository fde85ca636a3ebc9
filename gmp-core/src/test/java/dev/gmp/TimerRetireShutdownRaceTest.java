package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A one-shot timer scheduled while setParallelism retires its processor and shutdown() runs:
 * once accepted it fires before the executor terminates (STPE's policy), never left behind in a
 * dead processor's heap.
 */
class TimerRetireShutdownRaceTest {
  @Test
  void anAcceptedOneShotFiresBeforeTermination() throws Exception {
    for (int round = 0; round < 200; round++) {
      GmpExecutor ex = GmpExecutor.create(4);
      ex.submit(() -> 1).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS); // threads exist
      CountDownLatch go = new CountDownLatch(1);
      AtomicReference<ScheduledFuture<?>> accepted = new AtomicReference<>();
      Thread[] ts = {
        new Thread(() -> {
          await(go);
          for (int i = 0; i < 4; i++) {
            try {
              ScheduledFuture<?> f = ex.schedule(() -> {}, 1, TimeUnit.MILLISECONDS);
              accepted.compareAndSet(null, f);
            } catch (RejectedExecutionException e) {
              return; // shut down first: not accepted
            }
          }
        }),
        new Thread(() -> {
          await(go);
          ex.setParallelism(1);
        }),
        new Thread(() -> {
          await(go);
          ex.shutdown();
        })
      };
      for (Thread t : ts) {
        t.start();
      }
      go.countDown();
      for (Thread t : ts) {
        t.join();
      }
      assertTrue(ex.awaitTermination(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS),
          "round " + round + ": " + ex.dump());
      ScheduledFuture<?> f = accepted.get();
      assertTrue(f == null || f.isDone(), "round " + round + ": an accepted timer never fired");
    }
  }

  private static void await(CountDownLatch l) {
    try {
      l.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
