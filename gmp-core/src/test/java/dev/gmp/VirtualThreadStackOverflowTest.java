package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
 * wake-ups in each of 7 runs of a user's check. The JDK's own scheduler lost none there.
 *
 * <p>The JDK's own frames can strand a thread too, whatever the scheduler: an overflow after
 * unpark has set the thread's permit and before it has changed its state leaves it parked with
 * the permit set, so that no later unpark wakes it. Such a waiter, whose unpark's error has no
 * gmp frame, is not counted against gmp.
 */
class VirtualThreadStackOverflowTest {
  private static final int WAITERS = 2_000;

  private final Thread[] waiters = new Thread[WAITERS];
  private final AtomicBoolean[] go = new AtomicBoolean[WAITERS];
  private final StackOverflowError[] overflowed = new StackOverflowError[WAITERS];
  private final AtomicInteger next = new AtomicInteger();

  /**
   * Recurses to the end of the stack; on the way back each frame wakes the next waiter, the first
   * ones with almost no stack left, so that unparks overflow at every depth of the JDK's path
   * and gmp's.
   */
  private int depth(int n) {
    try {
      return depth(n + 1) + 1;
    } catch (StackOverflowError e) {
      int i = next.getAndIncrement();
      if (i >= WAITERS) {
        return 0;
      }
      // An overflow here, with i taken, leaves waiter i unwoken by the waker: the test's own
      // miss, not a strand (the loop after the waker sets its flag). Until 2026-12-07 that loop
      // only unparked, and waiter 0, woken with the least stack left, woke, read its flag unset
      // and parked for good whenever the JIT had left this store a frame to overflow in.
      go[i].set(true);
      try {
        LockSupport.unpark(waiters[i]);
      } catch (StackOverflowError again) {
        overflowed[i] = again;
      }
      throw e;
    }
  }

  @Test
  void aThreadWokenFromASpentStackRuns() throws Exception {
    // Not closed by a Closer: a thread the JDK stranded (below) would keep it from terminating.
    GmpExecutor ex = GmpExecutor.create(2);
    {
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
      for (int i = 0; i < WAITERS; i++) {
        // From a stack with room: a waiter left parked by an overflow wakes, and one whose flag
        // the waker's own overflow left unset (in depth, before its unpark) now ends too.
        go[i].set(true);
        LockSupport.unpark(waiters[i]);
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TestSupport.LIVENESS_SECONDS);
      List<String> strandedByGmp = new ArrayList<>();
      int strandedByTheJdk = 0;
      int strandedInTheHandler = 0;
      for (int i = 0; i < WAITERS; i++) {
        StackOverflowError e = overflowed[i];
        if (e != null && Arrays.stream(e.getStackTrace()).noneMatch(f -> f.getClassName()
            .startsWith("dev.gmp.") && !f.getClassName().equals(getClass().getName()))) {
          // The JDK's frames alone (Continuation.pin after the state change, or the permit
          // set before it): stranded or not, not gmp's doing, and not waited for.
          strandedByTheJdk += waiters[i].isAlive() ? 1 : 0;
          continue;
        }
        if (e != null && e.getStackTrace().length > 0
            && e.getStackTrace()[0].getClassName().equals(Carriers.class.getName() + "$Handle")) {
          // The deferral itself, in Handle's handler, with the stack spent to its last frame (a
          // contended monitor's slow path): the limit design.md 12.4 leaves.
          strandedInTheHandler += waiters[i].isAlive() ? 1 : 0;
          continue;
        }
        long left = Math.max(1, deadline - System.nanoTime());
        if (!waiters[i].join(Duration.ofNanos(left))) {
          strandedByGmp.add("waiter " + i + " (" + waiters[i].getState() + "), its unpark "
              + (e == null ? "returned" : "threw at " + Arrays.toString(
                  Arrays.copyOf(e.getStackTrace(), Math.min(6, e.getStackTrace().length)))));
        }
      }
      assertTrue(strandedByGmp.isEmpty(), strandedByGmp.size() + " waiters never ran again ("
          + strandedByTheJdk + " more alive after an overflow in the JDK's own frames, "
          + strandedInTheHandler + " in the deferral's own): " + strandedByGmp
          + " " + ex.stats());
      ex.shutdown();
      if (strandedByTheJdk + strandedInTheHandler == 0) { // else one keeps it alive, idle
        assertTrue(ex.awaitTermination(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS),
            ex.toString());
      }
    }
  }
}
