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
 * Dekker (A) of Scheduler's overview for an outside submission, across a JCTools chunk boundary
 * (1023 injections made and consumed first, so this inject links a new chunk and its producer
 * index is published by a lazySet). M1, the only spinner, drops its P and rechecks every queue;
 * the submitter injects and then reads nmspinning in wakep. Either the recheck sees the task, or
 * the submitter sees no spinner and starts an M. Forbidden: the task queued, a P idle, nobody
 * looking. Mutation: gmp.mutate.noInjectFence.
 */
@JCStressTest
@Description("outside submit at a JCTools chunk boundary vs a spinner's last look")
@Outcome(id = "recheck took a P back .*", expect = ACCEPTABLE, desc = "the spinner saw the task")
@Outcome(id = "wakep started an M .*", expect = ACCEPTABLE, desc = "the submitter saw no spinner")
@Outcome(id = "NOBODY .*", expect = FORBIDDEN, desc = "work queued, a P idle, nobody will look")
@Outcome(expect = FORBIDDEN, desc = "unexpected state")
@State
public class ChunkBoundarySubmitVsSpinnerStress {
  final Scheduler s = sched(2);
  final M m1 = mWithP(s, 1, true);
  final M m2 = mWithP(s, 2, false); // P2 busy: no P is idle when the race starts
  final P p1 = m1.p;

  {
    StressSupport.fillAndConsume(s.global, 1023);
  }

  @Actor
  public void spinnerDropsP() {
    G gp = SchedulingLoop.dropP(m1, p1);
    if (gp == null && m1.spinning) {
      SchedulingLoop.spinnerLastLook(m1);
    }
  }

  @Actor
  public void submitter() {
    s.submitExternal(() -> {});
  }

  @Arbiter
  public void arbiter(L_Result r) {
    boolean queued = s.global.size() != 0;
    boolean back = m1.p != null;
    int started = s.threads.allm.length;
    String state = StressSupport.wakeState(s);
    if (!queued) {
      r.r1 = (back ? "recheck took a P back (task taken) " : "LOST task ") + state;
    } else if (back && started == 0) {
      r.r1 = "recheck took a P back " + state;
    } else if (!back && started == 1 && s.idle.npidle == 0) {
      r.r1 = "wakep started an M " + state;
    } else if (!back && started == 0) {
      r.r1 = "NOBODY " + state;
    } else {
      r.r1 = "odd back=" + back + " started=" + started + " " + state;
    }
  }
}
