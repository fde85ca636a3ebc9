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
 * An outside submitter injects into the global queue without the lock while M1 (not spinning,
 * nothing found) drops its P (SchedulingLoop.dropP); P2 is busy, so no P is idle when the race starts.
 * Either dropP sees the task (and M1 takes it), or M1 sees needspinning after idling its P (and
 * spins), or the submitter sees the idle P (and wakep starts an M). Forbidden: the task queued, a
 * P idle, nobody spinning or started. Mutation: gmp.mutate.externalWakeIfIdle (the submitter
 * calls wakep only when it sees an idle P, as it could while it put under the lock).
 */
@JCStressTest
@Description("lock-free outside submit vs an M dropping its P: the task is never stranded")
@Outcome(id = "M1 took it .*", expect = ACCEPTABLE, desc = "dropP found the task")
@Outcome(id = "M1 spins .*", expect = ACCEPTABLE, desc = "M1 saw needspinning and kept a P")
@Outcome(id = "wakep started an M .*", expect = ACCEPTABLE, desc = "the submitter saw the idle P")
@Outcome(id = "NOBODY .*", expect = FORBIDDEN, desc = "P idle, task queued, nobody spinning")
@Outcome(expect = FORBIDDEN, desc = "unexpected state")
@State
public class ExternalSubmitVsDropPStress {
  final Scheduler s = sched(2);
  final M m1 = mWithP(s, 1, false);
  final M m2 = mWithP(s, 2, false); // holds P2, so no P is idle when the race starts
  final P p1 = m1.p;
  G taken;

  @Actor
  public void mDropsP() {
    taken = SchedulingLoop.dropP(m1, p1);
  }

  @Actor
  public void submitter() {
    s.submitExternal(() -> {}, null);
  }

  @Arbiter
  public void arbiter(L_Result r) {
    boolean queued = s.global.size() != 0;
    if (taken != null && taken != SchedulingLoop.RETRY && !queued && m1.p == p1) {
      r.r1 = "M1 took it " + StressSupport.wakeState(s);
    } else {
      r.r1 = StressSupport.wakeVerdict(s, m1, queued);
    }
  }
}
