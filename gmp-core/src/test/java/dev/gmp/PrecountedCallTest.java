package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A blocking call that work waits behind counts its M against the spare budget as it starts
 * (Syscall#entersyscall), so that its return, and a spare taking its P or running on, settle
 * without the scheduler lock (Spares#takeFree). The lock-free claims are
 * checked with the lock held by another thread: a path that took it would block, and the step's
 * 10 s timeout would fail the test. Thread-less Ms driven from the test thread, two Ps.
 */
class PrecountedCallTest {
  private final Scheduler s = sched(8);
  private final Thread holder = new Thread(this::holdLock, "lock-holder");
  private final CountDownLatch held = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);

  private static Scheduler sched(int budget) {
    return new Scheduler(
        new Config(2, 64, budget, 10_000_000L, 60_000_000_000L, "precount", Thread::new, null,
            null),
        false);
  }

  private void holdLock() {
    s.lock.lock();
    try {
      held.countDown();
      release.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      s.lock.unlock();
    }
  }

  /** Another thread holds the scheduler lock until the test ends. */
  private void lockElsewhere() throws InterruptedException {
    holder.start();
    assertTrue(held.await(10, TimeUnit.SECONDS), "the holder took the lock");
  }

  @AfterEach
  void releaseLock() throws InterruptedException {
    release.countDown();
    if (holder.isAlive() || holder.getState() != Thread.State.NEW) {
      holder.join(10_000);
    }
  }

  /** Runs step on another thread, failing if it does not finish within 10 s (it took the lock). */
  private static <T> T withoutLock(String what, Callable<T> step) throws Exception {
    FutureTask<T> f = new FutureTask<>(step);
    Thread t = new Thread(f, what);
    t.start();
    try {
      return f.get(10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError(what + " waited for the scheduler lock", e);
    }
  }

  @Test
  void aCallThatWorkWaitsBehindCountsItselfAndAFastReturnEndsTheCount() {
    M m = TestSupport.mWithP(s, 1);
    G gp = TestSupport.running(m);
    P p0 = m.p;
    p0.runq.put(TestSupport.g(1), false, s.global);

    Syscall.entersyscall(m, gp); // no idle M: no eager hand-off

    assertTrue(m.spare(), "counted as its call starts");
    assertEquals(1, s.spares.count);
    assertEquals(p0.statusRaw(), m.precountTok, "with the call's token");
    Syscall.exitsyscall(m, gp);
    assertSame(p0, m.p, "the fast path kept the P");
    assertFalse(m.spare());
    assertEquals(0, s.spares.count, "and ended the count");
    assertEquals(0, m.precountTok);
  }

  @Test
  void aCallWithNothingQueuedDoesNotCountItself() {
    M m = TestSupport.mWithP(s, 1);
    G gp = TestSupport.running(m);
    Syscall.entersyscall(m, gp);
    assertFalse(m.spare());
    assertEquals(0, s.spares.count);
    assertEquals(0, m.precountTok);
    Syscall.exitsyscall(m, gp);
    assertEquals(0, s.spares.count);
  }

  @Test
  void pastTheBudgetACallDoesNotCountItselfAndNobodyTakesItsP() {
    Scheduler sc = sched(1);
    M spare = new M(sc, 9);
    assertTrue(sc.spares.addSelf(spare), "the one slot");
    M m = TestSupport.mWithP(sc, 1);
    TestSupport.mWithP(sc, 2); // no idle P
    G gp = TestSupport.running(m);
    P p0 = m.p;
    p0.runq.put(TestSupport.g(1), false, sc.global);

    Syscall.entersyscall(m, gp);

    assertFalse(m.spare(), "no room: not counted");
    assertEquals(1, sc.spares.count);
    assertFalse(Spares.takeFree(spare), "only a counted call's P is taken without the lock");
    assertFalse(sc.retake.retakeSyscall(p0, p0.statusRaw(), false), "nor by sysmon: no room");
    assertEquals(P.Psyscall, p0.status());
    Syscall.exitsyscall(m, gp);
    assertSame(p0, m.p);
    assertEquals(1, sc.spares.count);
  }

  @Test
  void aSpareTakesACountedCallsPWithoutTheLockAndTheReturnRunsOnCounted() throws Exception {
    M m1 = TestSupport.mWithP(s, 1);
    TestSupport.mWithP(s, 2); // P1 busy: no idle P
    G g1 = TestSupport.running(m1);
    P p0 = m1.p;
    p0.runq.put(TestSupport.g(1), false, s.global);
    Syscall.entersyscall(m1, g1);
    M spare = new M(s, 3);
    assertTrue(s.spares.addSelf(spare)); // its task, run P-less, is done
    assertEquals(2, s.spares.count);
    lockElsewhere();

    assertTrue(withoutLock("takeFree", () -> Spares.takeFree(spare)), "took P0");
    assertSame(p0, spare.p);
    assertSame(spare, p0.m());
    assertFalse(spare.spare(), "the taker holds a P: its count ended");
    assertEquals(1, s.spares.count, "the call's own count remains");

    withoutLock("exitsyscall", () -> {
      Syscall.exitsyscall(m1, g1);
      return null;
    });
    assertNull(m1.p, "its P is gone: it finishes its task P-less");
    assertTrue(m1.spare(), "still counted, by itself");
    assertEquals(G.Grunning, g1.status());
    assertEquals(1, s.spares.count);
    assertEquals(1, s.counters.retakes.sum());
  }
}
