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
 * runnext's G sits in one of two slots, chosen by its put's sequence number (RunQueue). runnext
 * holds G1 and the ring is empty; the owner puts G2 and then G3 in runnext, so G3's put reuses
 * G1's slot, while a thief, finding the ring empty, takes runnext. G1, G2 and G3 must each end up
 * exactly once (thief, ring or runnext). Mutation: gmp.mutate.nextSlotAfterCas (the thief reads
 * the slot after its CAS, when G3 may already have replaced G1 there: G3 twice, G1 lost).
 */
@JCStressTest
@Description("runnext: the owner reuses a slot vs a thief's runnext take; each G exactly once")
@Outcome(id = "ok thief=1", expect = ACCEPTABLE, desc = "thief took G1 (from runnext or the ring)")
@Outcome(id = "ok thief=2", expect = ACCEPTABLE, desc = "thief took G2 (runnext or ring)")
@Outcome(id = "ok thief=3", expect = ACCEPTABLE, desc = "thief took G3 from runnext")
@Outcome(expect = FORBIDDEN, desc = "a G lost or taken twice, or nothing to take")
@State
public class RunnextReuseVsStealStress {
  final GlobalQueue gq = new GlobalQueue();
  final RunQueue victim = new RunQueue();
  final RunQueue thief = new RunQueue();
  final int[] stolen = new int[4];
  final int[] left = new int[4];
  int thiefId;

  public RunnextReuseVsStealStress() {
    victim.put(g(1), true, gq);
  }

  @Actor
  public void owner() {
    victim.put(g(2), true, gq);
    victim.put(g(3), true, gq);
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
    r.r1 = verdict(3, stolen, left) + " thief=" + thiefId;
  }
}
