package dev.gmp;

import static dev.gmp.StressSupport.count;
import static dev.gmp.StressSupport.drain;
import static dev.gmp.StressSupport.g;
import static dev.gmp.StressSupport.verdict;
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
 * A task that ran its child's future in place takes the child's G back out of runnext
 * (RunQueue#takeOwnRunnextIf), then submits the next child into runnext, while a thief, finding
 * the ring empty, takes runnext. G1 (the child run in place) and G2 (the next) must each end up
 * exactly once: taken back by the owner, stolen, or left queued. Mutation: gmp.mutate.takeBackNoCas
 * (the take-back clears runnext with a plain store: G1 taken twice).
 */
@JCStressTest
@Description("runnext: the owner takes its G back vs a thief's runnext take; each G exactly once")
@Outcome(id = "ok back=1 thief=0", expect = ACCEPTABLE, desc = "owner took G1 back; G2 queued")
@Outcome(id = "ok back=1 thief=2", expect = ACCEPTABLE, desc = "owner took G1 back; thief G2")
@Outcome(id = "ok back=0 thief=1", expect = ACCEPTABLE, desc = "thief took G1 first")
@Outcome(expect = FORBIDDEN, desc = "a G lost or taken twice")
@State
public class RunnextTakeBackVsStealStress {
  final GlobalQueue gq = new GlobalQueue();
  final RunQueue victim = new RunQueue();
  final RunQueue thief = new RunQueue();
  final G g1 = g(1);
  final int[] back = new int[3];
  final int[] stolen = new int[3];
  final int[] left = new int[3];
  int backId;
  int thiefId;

  public RunnextTakeBackVsStealStress() {
    victim.put(g1, true, gq);
  }

  @Actor
  public void owner() {
    if (victim.takeOwnRunnextIf(g1)) {
      backId = 1;
      count(back, g1);
    }
    victim.put(g(2), true, gq);
  }

  @Actor
  public void thief() {
    G x = thief.stealFrom(victim, true, false);
    thiefId = x == null ? 0 : (int) x.goid;
    count(stolen, x);
    drain(thief, stolen);
  }

  @Arbiter
  public void arbiter(L_Result r) {
    drain(victim, left);
    drain(gq, left);
    r.r1 = verdict(2, back, stolen, left) + " back=" + backId + " thief=" + thiefId;
  }
}
