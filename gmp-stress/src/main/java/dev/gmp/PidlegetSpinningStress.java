package dev.gmp;

import static dev.gmp.StressSupport.mWithP;
import static dev.gmp.StressSupport.sched;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.L_Result;

/**
 * Go's pidlegetSpinning, on the production code. M1, the only spinner, found nothing: it drops
 * P1 (SchedulingLoop.dropP) and rechecks (SchedulingLoop.spinnerLastLook), and sees the task
 * waiting in busy P2's ring. Meanwhile M3, returning from a blocking call, takes whatever P is
 * idle (as Syscall.exitsyscallSlow does). If M3 got P1, M1's recheck found work but no idle P and
 * must set needspinning, so that the next M to drop a P spins instead of parking while the task
 * waits beside it. Forbidden: M3 holds P1, M1 holds nothing, needspinning 0. Mutation:
 * gmp.mutate.noPidlegetSpinning.
 */
@JCStressTest
@Description("spinner's recheck finds work but no idle P (taken by a returning M): needspinning")
@Outcome(id = "M1 kept a P .*", expect = ACCEPTABLE, desc = "the recheck took P1 back")
@Outcome(id = "M3 took P1, needspinning=1 .*", expect = ACCEPTABLE, desc = "flag set for the next M")
@Outcome(id = "M3 took P1, needspinning=0 .*", expect = FORBIDDEN, desc = "work beside a P, no flag")
@Outcome(expect = FORBIDDEN, desc = "unexpected state")
@State
public class PidlegetSpinningStress {
  final Scheduler s = sched(2);
  final M m1 = mWithP(s, 1, true);
  final M m2 = mWithP(s, 2, false);
  final M m3 = new M(s, 3);
  final P p1 = m1.p;

  {
    m2.p.runq.put(StressSupport.g(1), false, s.global); // waits in P2's ring, P2 busy
  }

  @Actor
  public void spinnerDropsPAndRechecks() {
    G gp = SchedulingLoop.dropP(m1, p1);
    if (gp == null && m1.spinning) {
      SchedulingLoop.spinnerLastLook(m1);
    }
  }

  @Actor
  public void returningMTakesAnIdleP() {
    P pp;
    s.lock.lock();
    try {
      pp = s.idle.pidleget();
    } finally {
      s.lock.unlock();
    }
    if (pp != null) {
      s.acquirep(m3, pp);
    }
  }

  @Arbiter
  public void arbiter(L_Result r) {
    String state = StressSupport.wakeState(s);
    if (m1.p != null) {
      r.r1 = "M1 kept a P " + state;
    } else if (m3.p == p1) {
      r.r1 = "M3 took P1, needspinning=" + s.idle.needspinning + " " + state;
    } else {
      r.r1 = "odd m1p=" + m1.p + " m3p=" + m3.p + " " + state;
    }
  }
}
