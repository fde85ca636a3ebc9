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
 * runnext holds G1 and the ring is empty; the owner puts G2 in runnext (G1 is displaced to the
 * tail) while a thief, finding the ring empty, CASes runnext away. G1 must end up exactly once
 * somewhere (thief, ring or runnext), as must G2. Mutation: gmp.mutate.plainRunnext (the owner
 * swaps runnext with a plain read + store, so both it and the thief keep G1).
 */
@JCStressTest
@Description("runnext: owner replace vs thief CAS; the displaced G ends up exactly once")
@Outcome(id = "ok thief=1", expect = ACCEPTABLE, desc = "thief took G1 (from runnext or the ring)")
@Outcome(id = "ok thief=2", expect = ACCEPTABLE, desc = "thief took G2 between the CAS and the push")
@Outcome(expect = FORBIDDEN, desc = "a G lost or taken twice")
@State
public class RunnextReplaceVsStealStress {
  final GlobalQueue gq = new GlobalQueue();
  final RunQueue victim = new RunQueue();
  final RunQueue thief = new RunQueue();
  final int[] stolen = new int[3];
  final int[] left = new int[3];
  int thiefId;

  public RunnextReplaceVsStealStress() {
    victim.put(g(1), true, gq);
  }

  @Actor
  public void owner() {
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
    r.r1 = verdict(2, stolen, left) + " thief=" + thiefId;
  }
}
