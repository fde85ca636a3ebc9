package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A P handed to an idle M whose thread is late to run (it waits for a CPU) sits in that M's
 * nextp doing nothing; an M that needs a P while work is queued takes it back
 * (Spares#takeLateHandoffLocked) instead of parking beside it. Driven on the production code with
 * a scheduler whose Ms have no threads: the "late" M is one that was handed a P and never picks
 * it up. The hand-off's age is set on the P's hint directly, so no test waits for a clock.
 */
class LateHandoffTest {
  private final Scheduler s =
      new Scheduler(
          new Config(2, 64, 8, 10_000_000L, 60_000_000_000L, "late", Thread::new, null, null),
          false);

  /** An idle M (checked in and parked, so on the idle list), handed {@code pp} by startm. */
  private M handTo(P pp, long id) {
    M late = new M(s, id);
    late.setLife(M.RUNNING);
    s.lock.lock();
    try {
      s.idle.mput(late);
      assertSame(late, s.idle.claimMLocked(pp, false), "startm takes the idle M");
    } finally {
      s.lock.unlock();
    }
    return late;
  }

  private P idleP() {
    s.lock.lock();
    try {
      return s.idle.pidleget();
    } finally {
      s.lock.unlock();
    }
  }

  private static G task(int status) {
    G g = new G();
    g.task = () -> {};
    g.setStatus(status);
    return g;
  }

  private void queueTask() {
    queueTask(s);
  }

  private static void queueTask(Scheduler sc) {
    G g = task(G.Grunnable);
    sc.lock.lock();
    try {
      sc.global.put(g);
    } finally {
      sc.lock.unlock();
    }
  }

  private P takeBack(M thief) {
    s.lock.lock();
    try {
      return Spares.takeLateHandoffLocked(s, thief);
    } finally {
      s.lock.unlock();
    }
  }

  /** p0 handed to an idle M a second ago (late by any threshold), with a task queued. */
  private M handedLateWithWorkQueued(P p0) {
    M m = handTo(p0, 1);
    queueTask();
    age(p0, TimeUnit.SECONDS.toNanos(1));
    return m;
  }

  private static void age(P pp, long nanos) {
    pp.handedAt -= nanos;
  }

  @Test
  void aLateHandoffIsTakenBackByAnMThatNeedsAPWhileWorkIsQueued() {
    P p0 = idleP();
    M late = handedLateWithWorkQueued(p0);
    M thief = new M(s, 2);

    P got = takeBack(thief);

    assertSame(p0, got, "the P the late M has not picked up");
    assertNull(late.takeNextp(), "the late M, when it runs, finds no P (and parks again)");
    assertTrue(s.acquirep(thief, got), "the thief runs it");
    assertSame(thief, p0.m());
    assertEquals(1, s.counters.lateHandoffTakes.sum());
    assertNull(takeBack(new M(s, 3)), "taken once");
  }

  @Test
  void aHandoffThatIsNotLateYetStaysWithItsM() {
    P p0 = idleP();
    M woken = handTo(p0, 1);
    queueTask();
    age(p0, -TimeUnit.SECONDS.toNanos(1)); // handed "in a second": within any threshold

    assertNull(takeBack(new M(s, 2)));
    assertSame(p0, woken.takeNextp());
    assertEquals(0, s.counters.lateHandoffTakes.sum());
  }

  @Test
  void withNothingQueuedALateHandoffIsLeftAlone() {
    P p0 = idleP();
    M late = handTo(p0, 1);
    age(p0, TimeUnit.SECONDS.toNanos(1));

    assertNull(takeBack(new M(s, 2)), "no work waits for it: the thief has nothing to run");
    assertSame(p0, late.takeNextp());
  }

  @Test
  void aHandoffAlreadyPickedUpIsNotTakenAgain() {
    P p0 = idleP();
    M woken = handedLateWithWorkQueued(p0);
    P mine = woken.takeNextp(); // it woke (late) and took its P; the hint is still there
    assertTrue(s.acquirep(woken, mine));

    assertNull(takeBack(new M(s, 2)), "a running P is nobody's to take back");
    assertSame(woken, p0.m());
  }

  @Test
  void aPThatWentBackToTheIdleListIsNoLongerAHandoff() {
    P p0 = idleP();
    M woken = handedLateWithWorkQueued(p0);
    P mine = woken.takeNextp();
    s.lock.lock();
    try {
      s.idle.pidleput(mine); // it ran, then gave the P back (releasep / pidleput)
    } finally {
      s.lock.unlock();
    }

    assertNull(takeBack(new M(s, 2)), "an idle-list P is pidleget's, not a late hand-off");
    assertSame(p0, idleP());
  }

  /**
   * A blocking call returns to no P while its own P, retaken by sysmon, sits late in an idle M's
   * hand-off: within the spare budget it finishes its task P-less (the late M will run the
   * queued task beside it), and takes the hand-off back only past the budget.
   */
  @Test
  void aReturningCallRunsOnAsASpareFirstAndTakesALateHandoffBackOnlyPastTheBudget() {
    for (int budget : new int[] {8, 1}) {
      Scheduler sc =
          new Scheduler(
              new Config(2, 64, budget, 10_000_000L, 60_000_000_000L, "late", Thread::new, null,
                  null),
              false);
      M caller = TestSupport.mWithP(sc, 1);
      TestSupport.mWithP(sc, 2); // P1 busy: no idle P for the returning call
      G gp = task(G.Grunning);
      caller.setCurg(gp);
      P p0 = caller.p;
      Syscall.entersyscall(caller, gp); // nothing queued yet: no eager hand-off
      p0.runq.put(task(G.Grunnable), false, sc.global);
      M late = new M(sc, 3);
      late.setLife(M.RUNNING);
      sc.lock.lock();
      try {
        sc.idle.mput(late);
      } finally {
        sc.lock.unlock();
      }
      assertTrue(sc.retake.retakeSyscall(p0, p0.statusRaw(), false), "sysmon's retake");
      assertSame(p0, late.nextp, "P0 handed to the idle M");
      age(p0, TimeUnit.SECONDS.toNanos(1));
      if (budget == 1) {
        // The one spare slot is someone else's when the call returns: what the locked slow path
        // can meet (it uncounts the caller, and a call counting itself takes the slot first).
        caller.clearSpare();
        assertTrue(new M(sc, 4).markSpare());
        assertEquals(1, sc.spares.count);
      }

      Syscall.exitsyscall(caller, gp);

      if (budget == 8) {
        assertNull(caller.p, "within the budget the call runs on P-less");
        assertTrue(caller.spare());
        assertSame(p0, late.takeNextp(), "and leaves the late M its P");
      } else {
        assertSame(p0, caller.p, "past the budget it takes the late hand-off back");
        assertSame(caller, p0.m());
        assertNull(late.takeNextp());
        assertEquals(1, sc.counters.lateHandoffTakes.sum());
      }
    }
  }

  /**
   * The stall this is for: a spare whose task is done needs a P (Spares.reacquire) while
   * the only free P sits late in an idle M's hand-off and work is queued. It takes the P back
   * instead of parking beside it (without the take-back, reacquire parks and this test times out).
   */
  @Test
  void aSpareWhoseTaskIsDoneTakesALateHandoffBackInsteadOfParking() throws Exception {
    P p0 = idleP();
    TestSupport.mWithP(s, 9); // P1 taken: nothing idle
    M late = handedLateWithWorkQueued(p0);
    M spare = new M(s, 2);
    s.lock.lock();
    try {
      assertTrue(s.spares.addSelf(spare)); // it finished its task P-less after a blocking call
    } finally {
      s.lock.unlock();
    }

    java.util.concurrent.FutureTask<Boolean> r =
        new java.util.concurrent.FutureTask<>(
            () -> Spares.reacquire(spare) == SchedulingLoop.RETRY);
    Thread t = new Thread(r, "late-handoff-reacquire");
    t.setDaemon(true); // if it parks (the bug), it stays parked: nothing will wake it
    t.start();

    assertTrue(r.get(10, TimeUnit.SECONDS), "reacquire found a P");
    assertSame(p0, spare.p, "the late hand-off's P");
    assertEquals(0, s.spares.count, "a spare no more");
    assertNull(late.takeNextp());
  }

  /**
   * A slow ThreadFactory: the P handed to a new M waits in its nextp for the whole factory call.
   * An M that needs a P while work is queued takes it back after the same threshold as from an
   * idle M. A new M the starter has not come to yet is dropped (no thread is made for it) and its
   * spinning claim goes with the P; one whose factory call has begun is left to come up as an idle
   * M. The factory here waits on a gate, so the starter is held inside the first call.
   */
  @Test
  void aPHandedToANewMIsTakenBackDuringASlowFactoryCall() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch gate = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    Scheduler sc = gatedScheduler("slow", calls, entered, gate);
    P p0;
    P p1;
    M inFactory;
    M queued;
    sc.lock.lock();
    try {
      p0 = sc.idle.pidleget();
      p1 = sc.idle.pidleget();
      inFactory = sc.idle.claimMLocked(p0, false); // no idle M: a new one
      assertTrue(sc.idle.claimSpinning(), "no P idle, nobody spinning");
      queued = sc.idle.claimMLocked(p1, true);
    } finally {
      sc.lock.unlock();
    }
    assertEquals(M.NEW, inFactory.life());
    assertEquals(M.NEW, queued.life());
    sc.threads.startOffSysmon(inFactory);
    TestSupport.await(entered, "the starter calls the factory for the first new M");
    sc.threads.startOffSysmon(queued); // behind it: the starter is inside the factory
    queueTask(sc);
    age(p0, TimeUnit.SECONDS.toNanos(1));
    age(p1, TimeUnit.SECONDS.toNanos(1));
    assertEquals(2, sc.threads.mcount);

    M first = new M(sc, 8);
    M second = new M(sc, 9);
    P a;
    P b;
    sc.lock.lock();
    try {
      a = Spares.takeLateHandoffLocked(sc, first);
      b = Spares.takeLateHandoffLocked(sc, second);
    } finally {
      sc.lock.unlock();
    }

    assertSame(p0, a, "the P of the M inside the factory call");
    assertEquals(M.NEW, inFactory.life(), "its thread is on its way: it stays, with no P");
    assertNull(inFactory.takeNextp());
    assertFalse(first.spinning);
    assertSame(p1, b, "the P of the M still queued for the starter");
    assertEquals(M.DEAD, queued.life(), "dropped: no thread will be made for it");
    assertEquals(1, sc.threads.mcount);
    assertTrue(second.spinning, "its spinning claim came with its P");
    assertFalse(queued.spinning, "and is not given back again for it");
    assertEquals(1, sc.idle.nmspinning());
    assertEquals(2, sc.counters.lateHandoffTakes.sum());

    gate.countDown();
    TestSupport.awaitCondition("the factory's thread reached newm's bookkeeping",
        () -> inFactory.life() == M.STARTING);
    assertEquals(1, calls.get(), "no factory call for the dropped M");
    assertEquals(1, sc.idle.nmspinning());
  }

  /**
   * The watchdog's side of a slow factory (or a starter that died): no M needs a P, but an M is
   * parked idle while the only P waits for a new M's thread. Past Threads#CHECK_IN_NANOS sysmon's
   * round (Threads#checkStarting) takes the P back and hands it to the idle M, the queued new M
   * is dropped, and its spinning claim is given back.
   */
  @Test
  void sysmonTakesAPFromANewMWithoutAThreadForAnIdleM() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch gate = new CountDownLatch(1);
    Scheduler sc = gatedScheduler("unmade", new AtomicInteger(), entered, gate);
    P p0;
    M inFactory;
    M queued;
    sc.lock.lock();
    try {
      P p1 = sc.idle.pidleget();
      p0 = sc.idle.pidleget();
      inFactory = sc.idle.claimMLocked(p1, false);
      assertTrue(sc.idle.claimSpinning(), "no P idle, nobody spinning");
      queued = sc.idle.claimMLocked(p0, true);
    } finally {
      sc.lock.unlock();
    }
    sc.threads.startOffSysmon(inFactory);
    TestSupport.await(entered, "the starter is inside the factory");
    sc.threads.startOffSysmon(queued); // behind it
    M idle = new M(sc, 9);
    idle.setLife(M.RUNNING);
    sc.lock.lock();
    try {
      sc.idle.mput(idle); // parked idle beside the P that waits for a thread
    } finally {
      sc.lock.unlock();
    }
    queueTask(sc);
    age(p0, 2 * Threads.CHECK_IN_NANOS);

    sc.threads.checkStarting(System.nanoTime());

    assertSame(p0, idle.takeNextp(), "handed to the idle M");
    assertEquals(M.DEAD, queued.life(), "the new M not made yet is dropped");
    assertFalse(queued.spinning);
    assertEquals(0, sc.idle.nmspinning(), "its spinning claim given back");
    assertEquals(1, sc.counters.lateThreadStarts.sum());
    gate.countDown();
  }

  /**
   * A driven scheduler (parallelism 2) whose ThreadFactory counts its calls, says it was entered
   * and waits for the gate, then returns a thread that never runs its M: the starter stays inside
   * the first call until the test opens the gate.
   */
  private static Scheduler gatedScheduler(
      String name, AtomicInteger calls, CountDownLatch entered, CountDownLatch gate) {
    ThreadFactory gated = r -> {
      calls.incrementAndGet();
      entered.countDown();
      TestSupport.await(gate, "the test opens the gate");
      Thread t = new Thread(() -> {}, "dud"); // never runs its M: nothing here runs a loop
      t.setDaemon(true);
      return t;
    };
    return new Scheduler(
        new Config(2, 64, 8, 10_000_000L, 60_000_000_000L, name, gated, null, null), false);
  }
}
