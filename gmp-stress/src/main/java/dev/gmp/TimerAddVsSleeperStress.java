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
 * Dekker pair F (Timers), on the production code. M2 is the timer sleeper, about to sleep: its
 * last deadline (EARLY0) has fired, P2's heap holds a LATE timer, and it publishes its new
 * deadline and re-reads the heaps (TimerSleeper.publish). Meanwhile M1, running on P1, adds an EARLY
 * timer (Timers.add: heap write, fence, read of the sleeper's deadline, kick if it is later).
 * Either the sleeper's re-read sees EARLY, or the adder sees the published LATE and kicks.
 * Forbidden: the sleeper would sleep until LATE and nobody kicked it (the EARLY timer fires late
 * by LATE - EARLY). Mutation: gmp.mutate.timerSleeperNoFence (no StoreLoad after the publish).
 */
@JCStressTest
@Description("timer add vs the sleeper publishing its deadline: the early timer is never slept through")
@Outcome(id = "saw EARLY", expect = ACCEPTABLE, desc = "the sleeper's re-read found the new timer")
@Outcome(id = "LATE, kicked", expect = ACCEPTABLE, desc = "the adder saw the later deadline and kicked")
@Outcome(id = "LATE, not kicked", expect = FORBIDDEN, desc = "sleeps through the early timer")
@Outcome(expect = FORBIDDEN, desc = "unexpected state")
@State
public class TimerAddVsSleeperStress {
  static final long EARLY0 = 500;
  static final long EARLY = 1_000;
  static final long LATE = 1_000_000_000_000L;

  final Scheduler s = sched(2);
  final M m1 = mWithP(s, 1, false);
  final M m2 = mWithP(s, 2, false);
  final P p1 = m1.p;
  final ScheduledTask<Void> early = new ScheduledTask<>(s, () -> null, EARLY, 0);
  long until;

  {
    m2.p.timers.addLocked(new ScheduledTask<>(s, () -> null, LATE, 0));
    s.timers.sleeper.holder = m2;
    s.timers.sleeper.until = EARLY0; // the deadline of its previous round
  }

  @Actor
  public void workerAddsAnEarlyTimer() {
    s.timers.add(p1, early);
  }

  @Actor
  public void sleeperPublishesItsDeadline() {
    s.timers.sleeper.kicked = false; // as Timers.sleep does before each publish
    until = s.timers.sleeper.publish();
  }

  @Arbiter
  public void arbiter(L_Result r) {
    if (until == EARLY) {
      r.r1 = "saw EARLY";
    } else if (until == LATE) {
      r.r1 = s.timers.sleeper.kicked ? "LATE, kicked" : "LATE, not kicked";
    } else {
      r.r1 = "odd until=" + until;
    }
  }
}
