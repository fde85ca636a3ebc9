package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * While sysmon's sleeps end late (threads wait for a CPU) and the calls in flight are short next
 * to that wait, hand-offs that would grow the calls in flight wait: a call that work waits behind
 * keeps its P, uncounted, and sysmon retakes it only once it is 10 ms old. Thread-less Ms driven
 * from the test thread, a scheduler without a sysmon thread (its rules are called directly); a
 * retake's hand-off starts a thread that runs nothing (the factory drops the M's body).
 */
class OversubscriptionTest {
  private static final long US = 1_000;

  private final Scheduler s =
      new Scheduler(
          new Config(2, 64, 64, 10_000_000L, 60_000_000_000L, "oversub",
              r -> new Thread(() -> {}, "never-runs"), null, null),
          false);
  private final Oversubscription o = s.sysmon.oversubscription;

  private static void samples(Oversubscription o, int n, long late, long call) {
    for (int i = 0; i < n; i++) {
      o.sample(late, call);
    }
  }

  /** Fills the spare budget up to the floor below which nothing is held back. */
  private void sparesInFlight(int n) {
    for (int i = 0; i < n; i++) {
      assertTrue(s.spares.addSelf(new M(s, 100 + i)));
    }
  }

  @Test
  void lateSleepsBesideShortCallsTurnItOnAndPromptSleepsTurnItOffAgain() {
    samples(o, 40, 1_000 * US, 1_500 * US); // 10 us calls, ~140 in flight: ~1.5 ms each
    assertTrue(o.on(), "sysmon 1 ms late, calls 1.5 ms long");
    samples(o, 3, 80 * US, 1_500 * US);
    assertTrue(o.on(), "a few prompt rounds do not flip it (an average)");
    samples(o, 40, 80 * US, 1_500 * US); // timer slack only
    assertFalse(o.on(), "off once sleeps end on time");
  }

  @Test
  void waitsInsideTheJvmMustLastFourSlicesWhileSysmonIsLate() {
    long slice = 10_000 * US;
    assertEquals(slice, o.vmWaitNanos(slice), "sysmon on time: one slice");
    samples(o, 40, 1_000 * US, 0); // 1 ms late, no call at all (tasks that only compute)
    assertEquals(Oversubscription.VM_WAIT_SLICES * slice, o.vmWaitNanos(slice));
    samples(o, 80, 0, 0);
    assertEquals(slice, o.vmWaitNanos(slice), "on time again");
  }

  @Test
  void withNoCallReturnedYetNothingIsHeldBack() {
    samples(o, 40, 1_000 * US, 0); // no call has outlived its P: their length is unknown
    assertFalse(o.on(), "a first wave of long calls (a latch) must not wait 10 ms each");
  }

  @Test
  void longCallsAreNeverHeldBack() {
    samples(o, 40, 1_000 * US, 20_000 * US); // 20 ms calls: their wait is small beside them
    assertFalse(o.on());
    samples(o, 40, 1_000 * US, 1_500 * US);
    assertTrue(o.on());
    samples(o, 1, 1_000 * US, 20_000 * US);
    assertFalse(o.on(), "the calls grew long: off at once");
  }

  @Test
  void withFewSparesInFlightNothingIsHeldBack() {
    samples(o, 40, 1_000 * US, 1_500 * US);
    int floor = Oversubscription.MIN_SPARES_PER_P * s.gomaxprocs;
    sparesInFlight(floor - 1);
    assertFalse(o.holdsBack(s), "a handful of calls blocked on each other always get their Ps");
    sparesInFlight(1);
    assertTrue(o.holdsBack(s));
    o.reset();
    assertFalse(o.holdsBack(s), "sysmon's deep sleep starts afresh");
  }

  @Test
  void whileHeldBackACallThatWorkWaitsBehindKeepsItsPUntilItIsTenMillisecondsOld() {
    sparesInFlight(Oversubscription.MIN_SPARES_PER_P * s.gomaxprocs);
    samples(o, 40, 1_000 * US, 1_500 * US);
    M m = TestSupport.mWithP(s, 1);
    TestSupport.mWithP(s, 2); // no idle P
    G gp = TestSupport.running(m);
    P p0 = m.p;
    p0.runq.put(TestSupport.g(1), false, s.global);
    int spares = s.spares.count;

    Syscall.entersyscall(m, gp);

    assertFalse(m.spare(), "not counted: the call keeps its P, as past the budget");
    assertEquals(spares, s.spares.count);
    assertEquals(0, m.precountTok);
    assertFalse(Spares.takeFree(new M(s, 99)), "so no returning M takes it without the lock");
    long start = p0.syscallwhen();
    assertEquals(0, s.sysmon.retake(start + 1_000 * US), "sysmon holds back at 1 ms");
    assertEquals(P.Psyscall, p0.status());
    assertEquals(1, s.sysmon.retake(start + Sysmon.SYSCALL_RETAKE_NANOS + US), "not past 10 ms");
    assertEquals(P.Pidle, p0.status(), "handed on");
    assertEquals(1, s.counters.retakes.sum());
    Syscall.exitsyscall(m, gp);
    assertEquals(G.Grunning, gp.status(), "the call's return settles as after any retake");
  }

  @Test
  void notHeldBackTheSameCallCountsItselfAndSysmonRetakesItAtOnce() {
    sparesInFlight(Oversubscription.MIN_SPARES_PER_P * s.gomaxprocs);
    samples(o, 40, 80 * US, 1_500 * US); // sleeps on time
    M m = TestSupport.mWithP(s, 1);
    TestSupport.mWithP(s, 2);
    G gp = TestSupport.running(m);
    P p0 = m.p;
    p0.runq.put(TestSupport.g(1), false, s.global);

    Syscall.entersyscall(m, gp);

    assertTrue(m.spare(), "counted as it starts (Syscall#entersyscall)");
    assertSame(p0, m.oldp);
    assertEquals(1, s.sysmon.retake(p0.syscallwhen() + 1_000 * US), "retaken at 1 ms");
  }
}
