package dev.gmp;

import static dev.gmp.TestSupport.closer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A virtual thread woken by one at the end of its stack still runs. The JDK marks the woken
 * thread runnable before it calls the scheduler, and retries only an OutOfMemoryError; a
 * StackOverflowError from gmp's queues stranded the thread for good (runnable to the JDK, queued
 * nowhere, a second unpark a no-op), and the executor never terminated: 3 to 209 of 3,000 such
 * wake-ups in each of 7 runs of a user's check. The JDK's own scheduler lost none.
 */
class VirtualThreadStackOverflowTest {
  private static final int WAITERS = 2_000;

  private final Thread[] waiters = new Thread[WAITERS];
  private final AtomicBoolean[] go = new AtomicBoolean[WAITERS];
  private final AtomicInteger next = new AtomicInteger();
  private final AtomicInteger overflowedUnparks = new AtomicInteger();

  /**
   * Recurses to the end of the stack; on the way back each frame wakes the next waiter, the first
   * ones with almost no stack left, so that some unparks overflow inside the JDK (the thread is
   * left parked: the second unpark below wakes it) and some inside gmp.
   */
  private int depth(int n) {
    try {
      return depth(n + 1) + 1;
    } catch (StackOverflowError e) {
      int i = next.getAndIncrement();
      if (i >= WAITERS) {
        return 0;
      }
      go[i].set(true);
      try {
        LockSupport.unpark(waiters[i]);
      } catch (StackOverflowError again) {
        overflowedUnparks.incrementAndGet();
      }
      throw e;
    }
  }

  @Test
  void aThreadWokenFromASpentStackRuns() throws Exception {
    GmpExecutor ex = GmpExecutor.create(2);
    try (var c = closer(ex)) {
      Thread.Builder b = ex.virtualThreadBuilder();
      for (int i = 0; i < WAITERS; i++) {
        AtomicBoolean mine = go[i] = new AtomicBoolean();
        waiters[i] = b.start(() -> {
          while (!mine.get()) {
            LockSupport.park();
          }
        });
      }
      Thread waker = b.start(() -> {
        while (next.get() < WAITERS) {
          try {
            depth(0);
          } catch (StackOverflowError e) {
            // unwound: again, until every waiter was woken once
          }
        }
      });
      assertTrue(waker.join(Duration.ofSeconds(TestSupport.LIVENESS_SECONDS)), "the waker ended");
      for (Thread t : waiters) {
        LockSupport.unpark(t); // from a stack with room: one left parked by an overflow wakes
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TestSupport.LIVENESS_SECONDS);
      int stranded = 0;
      for (Thread t : waiters) {
        long left = Math.max(1, deadline - System.nanoTime());
        if (!t.join(Duration.ofNanos(left))) {
          stranded++;
        }
      }
      assertEquals(0, stranded, "waiters that never ran again (" + overflowedUnparks
          + " unparks overflowed): " + ex.stats());
      ex.shutdown();
      assertTrue(ex.awaitTermination(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS), ex.toString());
    }
  }
}
