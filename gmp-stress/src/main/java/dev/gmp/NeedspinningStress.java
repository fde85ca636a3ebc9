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
 * Go 1.20's needspinning race (seed 9.3.5), on the production code. M1 is NOT spinning and found
 * nothing: it drops its P (SchedulingLoop.dropP). M2 spawns a task (Scheduler.submitLocal) and, finding no
 * idle P and no spinner, sets needspinning. Either M1 sees the flag (before or after putting its
 * P on the idle list) and spins instead of parking, or wakep sees the idle P and starts an M.
 * Forbidden: a P idle, the task queued, nobody spinning or started (Go 1.17's lost wake-up).
 * Mutation: gmp.mutate.noNeedspinning (dropP ignores the flag).
 */
@JCStressTest
@Description("non-spinning M drops its P vs submitter finding no idle P (needspinning)")
@Outcome(id = "M1 spins .*", expect = ACCEPTABLE, desc = "M1 saw needspinning and kept a P")
@Outcome(id = "wakep started an M .*", expect = ACCEPTABLE, desc = "the submitter saw the idle P")
@Outcome(id = "NOBODY .*", expect = FORBIDDEN, desc = "P idle, task queued, nobody spinning")
@Outcome(expect = FORBIDDEN, desc = "unexpected state")
@State
public class NeedspinningStress {
  final Scheduler s = sched(2);
  final M m1 = mWithP(s, 1, false);
  final M m2 = mWithP(s, 2, false);
  final P p1 = m1.p;
  final P p2 = m2.p;

  @Actor
  public void mDropsP() {
    SchedulingLoop.dropP(m1, p1);
  }

  @Actor
  public void submitter() {
    s.submitLocal(p2, () -> {});
  }

  @Arbiter
  public void arbiter(L_Result r) {
    r.r1 = StressSupport.wakeVerdict(s, m1, p2.runq.runnextForTest() != null);
  }
}
