package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Chained timers on an otherwise idle executor, each set by the task its predecessor ran: every
 * one fires. Between a fire and the next add every heap is empty, so the sleeper gives its role
 * up just as the next timer arrives; an adder that found it still holding the role only kicked
 * it, and the timer then waited for nobody (TimerSleeper#vacateIfNone). Before that was fixed a
 * chain stalled for good about once in 2,600 timers at parallelism 2.
 */
class TimerChainTest {
  /** 3,000 timers of 1 ms (about 3.5 s): the stall needs the sleeper to park, not just spin. */
  private static final int CHAINS = 150;
  private static final int LINKS = 20;

  @Test
  void everyChainedTimerFiresOnAnIdleExecutor() throws Exception {
    try (GmpExecutor ex = GmpExecutor.create(2)) {
      for (int c = 0; c < CHAINS; c++) {
        CountDownLatch done = new CountDownLatch(1);
        AtomicInteger left = new AtomicInteger(LINKS);
        Runnable[] link = new Runnable[1];
        link[0] = () -> {
          if (left.decrementAndGet() == 0) {
            done.countDown();
          } else {
            ex.schedule(link[0], 1, TimeUnit.MILLISECONDS);
          }
        };
        ex.execute(() -> ex.schedule(link[0], 1, TimeUnit.MILLISECONDS));
        assertTrue(done.await(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS),
            "chain " + c + ": " + left.get() + " timers never fired\n" + ex.dump());
      }
    }
  }
}
