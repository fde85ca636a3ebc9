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
 * A waiter's take-back of the G of a future it ran in place from the ring's tail
 * (RunQueue#takeOwnNewestIf: the child displaced from runnext by a later one) vs a thief's half
 * steal. The ring holds G1, G2, G3; the owner takes back G3, then G2, while a thief that may have
 * read tail 3 claims two (G1, G2). The second take-back must not take G2, which the thief may be
 * claiming: it leaves it (its run was claimed: the thief's M skips it). Every G exactly once.
 * Mutation: gmp.mutate.popNewestUnbounded (the same bound as popNewest's: G2 twice).
 */
@JCStressTest
@Description("RunQueue: the owner's take-back from the tail vs one stealFrom; every G once")
@Outcome(id = "ok .*", expect = ACCEPTABLE, desc = "every task taken exactly once")
@Outcome(expect = FORBIDDEN, desc = "a task lost or taken twice")
@State
public class RingTakeBackVsStealStress {
  final GlobalQueue gq = new GlobalQueue();
  final RunQueue victim = new RunQueue();
  final RunQueue thief = new RunQueue();
  final G g2 = g(2);
  final G g3 = g(3);
  final int[] owner = new int[4];
  final int[] stolen = new int[4];
  final int[] left = new int[4];

  public RingTakeBackVsStealStress() {
    victim.put(g(1), false, gq);
    victim.put(g2, false, gq);
    victim.put(g3, false, gq);
  }

  @Actor
  public void owner() {
    if (victim.takeOwnNewestIf(g3)) {
      count(owner, g3);
    }
    if (victim.takeOwnNewestIf(g2)) {
      count(owner, g2);
    }
  }

  @Actor
  public void thief() {
    count(stolen, thief.stealFrom(victim, false, false));
    drain(thief, stolen);
  }

  @Arbiter
  public void arbiter(L_Result r) {
    drain(victim, left);
    drain(gq, left);
    r.r1 = verdict(3, owner, stolen, left) + " thief=" + StressSupport.mask(stolen);
  }
}
