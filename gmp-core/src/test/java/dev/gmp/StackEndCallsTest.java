package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Calls other than submissions, made from every frame of a recursion to the end of a small stack
 * on the way back up (SubmitNearStackEndTest covers the submissions). Near the end the JDK delays
 * an overflow out of a lock's acquisition to its caller, so a call that took the scheduler lock
 * without a stack check (StackGuard) left it held by a thread that then exited, and the executor
 * ran nothing again; a cancel that overflowed in its wake-up left waiters blocked on a future
 * that reads done. Each test fails without its check (the stats one in 2 of 3 runs, where the
 * JIT leaves the lock the deepest step).
 */
class StackEndCallsTest {
  private static final int CALLS = 6_000;

  /** Fresh executors a test dives against: where the overflow lands varies from one to the next. */
  private static final int ROUNDS = 5;

  /** A timer cancelled after shutdown: the cancel tidies up (Timers#tidyAfterCancel). */
  @Test
  void timersCancelledAfterShutdown() throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      GmpExecutor ex = GmpExecutor.builder().parallelism(2).build();
      List<ScheduledFuture<?>> timers = new ArrayList<>();
      for (int i = 0; i < CALLS; i++) {
        timers.add(ex.schedule(() -> {}, 1, TimeUnit.HOURS));
      }
      ex.shutdown(); // one-shot timers stay pending through shutdown
      AtomicInteger next = new AtomicInteger();
      diveAndCall(() -> {
        int i = next.getAndIncrement();
        if (i < CALLS) {
          timers.get(i).cancel(false);
        }
      });
      assertLockFree(ex, "after the cancels of round " + round);
      for (ScheduledFuture<?> t : timers) {
        t.cancel(false);
      }
      assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS),
          "terminated: " + ex.stats());
    }
  }

  /** stats() while a thread's exit moves its counts: the snapshot counts again, under the lock. */
  @Test
  void statsWhileAThreadExits() throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      GmpExecutor ex = GmpExecutor.builder().parallelism(2).build();
      try {
        ex.submit(() -> {}).get();
        // An exit's window, held open: the seqlock's odd value (Threads#exitSeq, written under
        // the scheduler lock, as here), so every snapshot takes the locked re-count.
        bumpExitSeq(ex);
        for (int i = 0; i < 20_000; i++) {
          ex.stats(); // compiled, its frames before the lock are small: the lock is the deepest
        }
        diveAndCall(ex::stats);
        assertLockFree(ex, "after the stats calls of round " + round);
        bumpExitSeq(ex);
      } finally {
        // Else shutdownNow would wait for the lock forever: the failure above says why.
        if (TestSupport.lockFree(ex, 1)) {
          TestSupport.terminate(ex);
        }
      }
    }
  }

  private static void bumpExitSeq(GmpExecutor ex) {
    ex.sched.lock.lock();
    try {
      ex.sched.threads.exitSeq++;
    } finally {
      ex.sched.lock.unlock();
    }
  }

  /** awaitTermination on a terminated executor: it reads the exited threads under the lock. */
  @Test
  void awaitTerminationOnceTerminated() throws Exception {
    GmpExecutor ex = GmpExecutor.builder().parallelism(2).build();
    ex.submit(() -> {}).get();
    ex.shutdown();
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS), "terminated");
    diveAndCall(() -> {
      try {
        ex.awaitTermination(0, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    assertLockFree(ex, "after the awaitTermination calls");
  }

  /** A cancel wakes the threads waiting in get(), whatever stack it runs on. */
  @Test
  void cancelsWakeTheirWaiters() throws Exception {
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).build();
    AtomicBoolean release = new AtomicBoolean();
    CountDownLatch holding = new CountDownLatch(1);
    try {
      ex.execute(() -> { // holds the only P on the CPU: the futures below stay queued
        holding.countDown();
        while (!release.get()) {
          Thread.onSpinWait();
        }
      });
      TestSupport.await(holding, "the P held");
      List<Future<?>> futures = new ArrayList<>();
      List<CountDownLatch> waits = new ArrayList<>();
      for (int i = 0; i < CALLS; i++) {
        Future<?> f = ex.submit(() -> {});
        futures.add(f);
        waits.add(((HelpingFuture<?>) f).latchToWaitOn()); // what a waiting get() blocks on
      }
      AtomicInteger next = new AtomicInteger();
      diveAndCall(() -> {
        int i = next.getAndIncrement();
        if (i < CALLS) {
          futures.get(i).cancel(false);
        }
      });
      List<Integer> stranded = new ArrayList<>();
      for (int i = 0; i < CALLS; i++) {
        if (futures.get(i).isCancelled() && waits.get(i).getCount() != 0) {
          stranded.add(i);
        }
      }
      assertEquals(List.of(), stranded, "cancelled futures whose waiters were never woken");
      assertTrue(next.get() > 0, "some cancels ran");
    } finally {
      release.set(true);
      TestSupport.terminate(ex);
    }
  }

  /** Calls {@code call} from every frame of a recursion to the end of a 256 KB stack. */
  static void diveAndCall(Runnable call) throws InterruptedException {
    Thread diver = new Thread(null, () -> dive(call), "diver", 256 * 1024);
    diver.start();
    diver.join(TimeUnit.SECONDS.toMillis(LIVENESS_SECONDS));
    assertFalse(diver.isAlive(), "a call from the stack's end never returned");
  }

  private static void dive(Runnable call) {
    try {
      dive(call);
    } catch (StackOverflowError bottom) {
      // the end: call from here up
    }
    try {
      call.run();
    } catch (StackOverflowError tooDeep) {
      // this frame's call did not fit: the next frame up tries
    } catch (RuntimeException refused) {
      // a rejection, say: the lock is what matters here
    }
  }

  /** Fails if the scheduler lock cannot be taken within the liveness bound: left held. */
  static void assertLockFree(GmpExecutor ex, String when) throws InterruptedException {
    assertTrue(TestSupport.lockFree(ex, LIVENESS_SECONDS),
        "the scheduler lock stays held " + when + ": " + ex.stats());
  }
}
