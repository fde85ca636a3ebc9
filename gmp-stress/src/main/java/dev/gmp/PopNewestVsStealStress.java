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
 * The owner's newest-first pop (RunQueue#popNewest) vs a thief's half steal. The ring holds G1,
 * G2, G3; the owner pops twice while a thief that may have read tail 3 claims two (G1, G2). The
 * first pop may take G3; the second must not take G2 from the tail, since the thief may be
 * claiming it, and takes the head by CAS instead. Every G exactly once. Mutation:
 * gmp.mutate.popNewestUnbounded (pops from the tail whenever two or more remain: G2 twice).
 */
@JCStressTest
@Description("RunQueue: the owner's popNewest vs one stealFrom; every G taken exactly once")
@Outcome(id = "ok .*", expect = ACCEPTABLE, desc = "every task taken exactly once")
@Outcome(expect = FORBIDDEN, desc = "a task lost or taken twice")
@State
public class PopNewestVsStealStress {
  final GlobalQueue gq = new GlobalQueue();
  final RunQueue victim = new RunQueue();
  final RunQueue thief = new RunQueue();
  final int[] owner = new int[4];
  final int[] stolen = new int[4];
  final int[] left = new int[4];

  public PopNewestVsStealStress() {
    victim.put(g(1), false, gq);
    victim.put(g(2), false, gq);
    victim.put(g(3), false, gq);
  }

  @Actor
  public void owner() {
    count(owner, victim.popNewest());
    count(owner, victim.popNewest());
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
