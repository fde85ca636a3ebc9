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
 * Dekker (A) of Scheduler's overview for an outside submission at the injection ring's wrap:
 * capacity - 1 injections were made and consumed first, so this inject claims the ring's last
 * slot and its producer index wraps. (The unbounded JCTools queue gmp used before published the
 * index of a new chunk with a lazySet here, after its last full barrier, so the argument failed
 * exactly at this boundary; the bounded queue publishes every index with its CAS.) M1, the only
 * spinner, drops its P and rechecks every queue; the submitter injects and then reads
 * nmspinning in wakep. Either the recheck sees the task, or the submitter sees no spinner and
 * starts an M. Forbidden: the task queued, a P idle, nobody looking.
 */
@JCStressTest
@Description("outside submit at the injection ring's wrap vs a spinner's last look")
@Outcome(id = "recheck took a P back .*", expect = ACCEPTABLE, desc = "the spinner saw the task")
@Outcome(id = "M1 took it .*", expect = ACCEPTABLE, desc = "M1's drop step found the task")
@Outcome(id = "wakep started an M .*", expect = ACCEPTABLE, desc = "the submitter saw no spinner")
@Outcome(id = "NOBODY .*", expect = FORBIDDEN, desc = "work queued, a P idle, nobody will look")
@Outcome(expect = FORBIDDEN, desc = "unexpected state")
@State
public class InjectWrapSubmitVsSpinnerStress {
  final Scheduler s = sched(2);
  final M m1 = mWithP(s, 1, true);
  final M m2 = mWithP(s, 2, false); // P2 busy: no P is idle when the race starts
  final P p1 = m1.p;

  {
    StressSupport.fillAndConsume(s.global, GlobalQueue.INJECT_CAPACITY - 1);
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
    s.submitExternal(() -> {}, null);
  }

  @Arbiter
  public void arbiter(L_Result r) {
    boolean queued = s.global.size() != 0;
    r.r1 = StressSupport.recheckVerdict(s, m1, queued, !queued && m1.p != null);
  }
}
