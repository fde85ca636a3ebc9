package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/**
 * Regression test for exitsyscall's ABA on the P status. M1's blocking call is retaken and P0
 * handed to M2, which then makes a blocking call on P0 itself (Psyscall again). When M1 returns,
 * its fast path must not take P0 from M2: it takes the slow path (here: the idle P1), and M2's
 * own return keeps P0; nobody is left counted spare.
 *
 * <p>History: with a generation-blind fast-path CAS, M1 won P0 from M2 (two owners), and the
 * interim repair (Syscall.exitsyscallSlow, marking M2 spare) leaked nmspare when M2 had
 * already returned from its call: the soak caught it as a round that never terminated after
 * shutdown (every P idle, queues empty, spareThreads=1). gmp-core 98c0f65 went back to the
 * token CAS (P.exitSyscall), which this test pins down.
 */
class ExitsyscallAbaTest {
  @Test
  void aReturningMNeverTakesItsOldPFromAnotherMsCall() {
    Scheduler s = StressSupport.sched(2);
    M m1 = StressSupport.mWithP(s, 1, false);
    P p0 = m1.p;
    P p1 = s.procs.all[1];
    G g1 = StressSupport.g(1);
    g1.setStatus(G.Grunning);
    m1.setCurg(g1);
    Syscall.entersyscall(m1, g1); // nothing queued yet: P0 stays attached (no eager handoff)
    p0.runq.put(StressSupport.g(3), false, s.global); // work waits: the retake hands P0 off
    p0.sysmonSyscalltick = p0.syscalltick();
    s.sysmon.retake(System.nanoTime() + 1_000_000_000L); // M1's call retaken, P0 to a new M
    assertEquals(1, s.spares.count, "M1 is spare while its call runs P-less");
    M m2 = s.threads.ms()[0];
    assertSame(p0, m2.nextp);
    m2.nextp = null;
    assertEquals(true, s.acquirep(m2, p0));
    p0.runq.pollRing(); // M2 runs the queued task...
    G g2 = StressSupport.g(2);
    g2.setStatus(G.Grunning);
    m2.setCurg(g2);
    Syscall.entersyscall(m2, g2); // ...which makes a blocking call on P0 too

    Syscall.exitsyscall(m1, g1); // must not win P0 (Psyscall again, but M2's call)
    assertSame(p1, m1.p, "M1 took the idle P1 through the slow path");
    assertEquals(P.Psyscall, p0.status(), "P0 still belongs to M2's call");
    assertEquals(0, s.spares.count, "M1 left its call and holds a P: not spare");

    Syscall.exitsyscall(m2, g2);
    assertSame(p0, m2.p, "M2's fast path keeps P0");
    assertSame(m2, p0.m());
    assertEquals(P.Prunning, p0.status());
    assertEquals(0, s.spares.count);
  }
}
