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
 * The StoreLoad protocol of seed 9.3.5, on the production code. M1 is the only spinner and found
 * nothing: it drops its P (SchedulingLoop.dropP), leaves spinning and rechecks every queue
 * (SchedulingLoop.spinnerLastLook). M2, running a task on P2, spawns one (Scheduler.submitLocal: runnext
 * CAS, then wakep reads nmspinning). Either the spinner's recheck sees the task and takes a P
 * back, or the submitter sees no spinner and starts an M on the idle P. Forbidden: the task is
 * queued, P1 idle, and nobody will look. Mutations: gmp.mutate.noRecheck,
 * gmp.mutate.dropSpinningNoFence (no StoreLoad on the spinner's side),
 * gmp.mutate.plainRunnext (no StoreLoad on the submitter's side).
 */
@JCStressTest
@Description("spinner drop+recheck vs submitter put+wakep: work queued and nobody looking")
@Outcome(id = "recheck took a P back .*", expect = ACCEPTABLE, desc = "the spinner saw the work")
@Outcome(id = "wakep started an M .*", expect = ACCEPTABLE, desc = "the submitter saw no spinner")
@Outcome(id = "NOBODY .*", expect = FORBIDDEN, desc = "work queued, a P idle, nobody will look")
@Outcome(expect = FORBIDDEN, desc = "unexpected state")
@State
public class SpinnerRecheckVsSubmitStress {
  final Scheduler s = sched(2);
  final M m1 = mWithP(s, 1, true);
  final M m2 = mWithP(s, 2, false);
  final P p1 = m1.p;
  final P p2 = m2.p;

  @Actor
  public void spinnerDropsP() {
    G gp = SchedulingLoop.dropP(m1, p1);
    if (gp == null && m1.spinning) {
      SchedulingLoop.spinnerLastLook(m1);
    }
  }

  @Actor
  public void submitter() {
    s.submitLocal(p2, () -> {});
  }

  @Arbiter
  public void arbiter(L_Result r) {
    r.r1 = StressSupport.recheckVerdict(s, m1, p2.runq.runnextForTest() != null, false);
  }
}
