package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.Test;

/**
 * "Is there work" and "can I take it" mean the same for a spinner (Go's idlepMask): a P in transit
 * to an M is stealable, and an injection slot claimed but not yet filled is neither visible nor
 * takeable. Driven on thread-less Ms of a scheduler without sysmon.
 */
class VisibleIsTakeableTest {
  private static final ThreadFactory NO_THREADS = r -> {
    throw new AssertionError("no thread in a driven test");
  };

  private static Scheduler sched(int n) {
    return new Scheduler(new Config(n, 16, 8, 10_000_000, 60_000_000_000L, "driven", NO_THREADS,
        null, null), false);
  }

  @Test
  void aPInTransitIsStealable() {
    Scheduler s = sched(2);
    M thief = TestSupport.mWithP(s, 1);
    P inTransit;
    s.lock.lock();
    try {
      inTransit = s.idle.pidleget(); // off the idle list, handed to no M yet (startm's state)
    } finally {
      s.lock.unlock();
    }
    G g = TestSupport.g(9);
    inTransit.runq.put(g, false, s.global);
    assertEquals(P.Pidle, inTransit.status());
    assertEquals(true, s.idle.workVisible(), "the spinner's recheck sees it");
    assertSame(g, Steal.stealWork(thief, thief.p), "and a spinner can take it");
  }

  @Test
  void aClaimedButUnfilledInjectionSlotIsNotVisible() throws Exception {
    Scheduler s = sched(1);
    claimInjectionSlot(s.global);
    assertEquals(0, s.global.size());
    s.lock.lock();
    try {
      assertEquals(0, s.global.liveSizeLocked());
      assertNull(s.global.get());
    } finally {
      s.lock.unlock();
    }
    assertFalse(s.idle.workVisible());
  }

  /** The spinner that sees only such a slot parks instead of looping (it used to spin at 100%). */
  @Test
  void aSpinnerBesideAnUnfilledSlotParks() throws Exception {
    Scheduler s = sched(2);
    M m = TestSupport.mWithP(s, 1);
    s.idle.becomeSpinning(m);
    claimInjectionSlot(s.global);
    Thread t = new Thread(() -> SchedulingLoop.findRunnable(m), "driven-spinner");
    t.setDaemon(true);
    m.thread = t; // for the wake-up at the end (M#wakeup unparks it)
    t.start();
    TestSupport.awaitCondition(() -> "the spinner parked: " + t.getState() + " parks="
        + s.counters.parks.sum(), TestSupport.LIVENESS_SECONDS,
        () -> s.counters.parks.sum() == 1 && (t.getState() == Thread.State.WAITING
            || t.getState() == Thread.State.TIMED_WAITING)); // parked (keepAlive's timeout)
    assertEquals(0, s.idle.nmspinning());
    assertEquals(2, s.idle.npidle);
    s.lock.lock();
    try {
      m.exitRequested = true;
    } finally {
      s.lock.unlock();
    }
    m.wakeup();
    t.join();
  }

  /** Makes the global queue's injection side hold a slot whose producer has not stored yet. */
  static void claimInjectionSlot(GlobalQueue q) {
    q.claimInjectionSlotForTest();
  }
}
