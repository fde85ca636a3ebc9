package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/**
 * Regression test for a race found with ExitsyscallVsRetakeStress (its "nmspare=1" outcome):
 * sysmon's retake won the CAS Psyscall -> Pidle, but the returning M took the lock first
 * (exitsyscall's slow path: it found another idle P and ran on), and only then did sysmon mark
 * that M as a spare (P-less) M. The M held a P and had left its blocking call, yet nmspare stayed
 * 1, so shutdown never reached TIDYING (tryTidyLocked requires nmspare == 0) and sysmon never
 * slept. Fixed in gmp-core d70fbf2 (the retake CAS moved under the scheduler lock).
 *
 * <p>The interleaving is forced with the scheduler lock: this thread (acting as M1) holds it
 * while sysmon's retake runs on another thread. Before the fix, the retake did its CAS and then
 * blocked in noteSyscallRetake, and M1's exitsyscall ran its slow path (the lock is reentrant)
 * and returned with P1, leaking the spare mark. Since the fix the CAS itself waits for the lock,
 * so the test lets the retake finish first; either way the invariant must hold at the end.
 */
class SyscallRetakeSpareLeakTest {
  @Test
  void anMThatLeftItsBlockingCallWithAPIsNeverCountedSpare() throws Exception {
    Scheduler s = StressSupport.sched(2);
    M m1 = StressSupport.mWithP(s, 1, false);
    P p0 = m1.p;
    G gp = StressSupport.g(1);
    gp.setStatus(G.Grunning);
    m1.setCurg(gp);
    Syscall.entersyscall(m1, gp); // nothing queued yet: P0 stays attached (no eager handoff)
    p0.runq.put(StressSupport.g(2), false, s.global); // work waits: retake goes ahead
    p0.sysmonSyscalltick = p0.syscalltick();

    Thread sysmon = new Thread(() -> s.sysmon.retake(System.nanoTime()), "retake");
    boolean exited = false;
    s.lock.lock();
    try {
      sysmon.start();
      long deadline = System.nanoTime() + 200_000_000L;
      while (p0.status() != P.Pidle && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      if (p0.status() == P.Pidle) { // the retake CASed without the lock (the old code)
        Syscall.exitsyscall(m1, gp); // fast path fails; the slow path takes P1 under our lock
        exited = true;
      }
    } finally {
      s.lock.unlock();
    }
    sysmon.join(10_000);
    if (!exited) {
      Syscall.exitsyscall(m1, gp);
    }

    assertSame(s.procs.all[1], m1.p, "M1 runs on with the other P");
    assertEquals(1, StressSupport.handedTo(s, p0), "P0 went to exactly one new M");
    assertEquals(0, s.spares.count, "M1 holds a P and left its blocking call: it is not a spare M");
  }
}
