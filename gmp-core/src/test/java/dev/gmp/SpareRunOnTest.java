package dev.gmp;

import static dev.gmp.TestSupport.await;
import static dev.gmp.TestSupport.awaitCondition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A spare whose task blocked runs the next queued task without a P when none is to be had
 * (Spares#runOnLocked), and keeps doing so only while its tasks block. The stage, at
 * parallelism 1 with a time slice nobody reaches: task A blocks in a marked call, sysmon hands
 * its P to a second M, which runs C, a task that spins until the test lets it go and so holds the
 * only P; D and E are queued behind it. When A's call returns, A's M finds no P.
 */
class SpareRunOnTest {
  @RegisterExtension final TrackedExecutors tracked = new TrackedExecutors();

  private final CountDownLatch aInCall = new CountDownLatch(1);
  private final CountDownLatch releaseA = new CountDownLatch(1);
  private final CountDownLatch cRunning = new CountDownLatch(1);
  private final AtomicBoolean releaseC = new AtomicBoolean();
  private final AtomicReference<Thread> aThread = new AtomicReference<>();

  /** Lets A and C go even when an assertion failed, so that the executor can terminate. */
  @AfterEach
  void releaseAll() {
    releaseA.countDown();
    releaseC.set(true);
  }

  /** Waits for {@code latch}, describing the executor as it is when the wait fails. */
  private static void awaitLatch(CountDownLatch latch, GmpExecutor ex, String what) {
    awaitCondition(() -> what + ": " + ex.stats() + BlockingTest.describeMs(ex),
        TestSupport.LIVENESS_SECONDS, () -> latch.getCount() == 0);
  }

  /** A in its call, C holding the only P (on another M). */
  private GmpExecutor stage() {
    GmpExecutor ex =
        tracked.track(
            GmpExecutor.builder()
                .parallelism(1)
                .timeSlice(Duration.ofHours(1))
                .name("runon")
                .build());
    ex.execute(() -> {
      aThread.set(Thread.currentThread());
      try {
        GmpExecutor.blocking(() -> {
          aInCall.countDown();
          releaseA.await();
          return null;
        });
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    await(aInCall, "A in its call");
    ex.execute(() -> { // C: queued while A blocks, so sysmon hands A's P to a new M for it
      cRunning.countDown();
      while (!releaseC.get()) {
        Thread.onSpinWait(); // RUNNABLE, on the CPU: neither the detector nor the slice takes it
      }
    });
    awaitLatch(cRunning, ex, "C holding the P");
    return ex;
  }

  @Test
  void aSpareWhoseTaskBlockedRunsTheNextQueuedTaskWithoutAProcessor() {
    GmpExecutor ex = stage();
    AtomicReference<Thread> dThread = new AtomicReference<>();
    CountDownLatch dRan = new CountDownLatch(1);
    AtomicInteger eRan = new AtomicInteger();
    CountDownLatch eDone = new CountDownLatch(1);
    ex.execute(() -> {
      dThread.set(Thread.currentThread());
      dRan.countDown();
    });
    ex.execute(() -> {
      eRan.incrementAndGet();
      eDone.countDown();
    });
    releaseA.countDown();

    // The only P stays with C, so D can run now only on A's M, P-less (Go's way: it parks).
    awaitLatch(dRan, ex, "D while C holds the only P");
    assertSame(aThread.get(), dThread.get(), "D ran on the M whose call had lost its P");
    // D did not block, so the chain ends there: A's M parks, E waits for the P.
    awaitCondition(() -> "A's M parked after D: " + ex.stats() + BlockingTest.describeMs(ex),
        TestSupport.LIVENESS_SECONDS, () -> ex.stats().idleThreads() == 1);
    assertEquals(0, eRan.get(), "E ran P-less after a task that did not block");
    assertEquals(0, ex.stats().spareThreads(), "A's M is a spare no more");
    assertEquals(1, ex.sched.counters.runOns.sum(), "one task run on");
    String dump = ex.dump();
    assertTrue(dump.contains(" runons=1"), dump);
    assertTrue(dump.matches("(?s).* oversubscribed=(true|false)\\b.*"), dump); // sysmon's hint

    releaseC.set(true);
    await(eDone, "E once C let go of the P");
    assertEquals(1, eRan.get());
  }

  /** Chances taken (true) and passed up, in order, over {@code n} chances. */
  private static String chances(M m, int n) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      b.append(Spares.mayRunOn(m) ? 'T' : '-');
    }
    return b.toString();
  }

  @Test
  void eachTaskRunOnThatDidNotBlockDoublesTheChancesPassedUpAndOneThatBlockedClearsThem() {
    Scheduler s =
        new Scheduler(
            new Config(1, 64, 8, 10_000_000L, 60_000_000_000L, "backoff", Thread::new, null, null),
            false);
    M m = new M(s, 1);
    assertEquals("TTT", chances(m, 3), "no miss yet: every chance taken");
    Spares.runOnOutcome(m, false);
    assertEquals("-T", chances(m, 2));
    Spares.runOnOutcome(m, false);
    assertEquals("--T", chances(m, 3));
    Spares.runOnOutcome(m, false);
    assertEquals("----T", chances(m, 5));
    for (int i = 0; i < 10; i++) {
      Spares.runOnOutcome(m, false);
    }
    String capped = chances(m, Spares.RUN_ON_MAX_BACKOFF + 1);
    assertEquals(Spares.RUN_ON_MAX_BACKOFF, capped.indexOf('T'), "capped: " + capped);
    Spares.runOnOutcome(m, false);
    Spares.runOnOutcome(m, true); // a task that blocked: the gamble pays again
    assertTrue(Spares.mayRunOn(m), "cleared by a task that blocked");
    Spares.runOnOutcome(m, false);
    assertFalse(Spares.mayRunOn(m), "one miss after the reset: one chance passed up");
  }

  @Test
  void theChainGoesOnWhileItsTasksBlock() {
    GmpExecutor ex = stage();
    AtomicReference<Thread> eThread = new AtomicReference<>();
    CountDownLatch eRan = new CountDownLatch(1);
    ex.execute(() -> {
      try {
        GmpExecutor.blocking(() -> null); // D blocks (a marked call, here without a P)
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    ex.execute(() -> {
      eThread.set(Thread.currentThread());
      eRan.countDown();
    });
    releaseA.countDown();

    awaitLatch(eRan, ex, "E while C holds the only P");
    assertSame(aThread.get(), eThread.get(), "D blocked, so A's M ran E too");
    assertEquals(2, ex.sched.counters.runOns.sum(), "D and E run on");
  }
}
