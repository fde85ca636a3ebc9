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
 * The ring with runnext: the owner pushes (to the tail and to runnext) and pops (runnext, then
 * the ring) while one thief steals half. Every task is taken exactly once. Mutation:
 * gmp.mutate.grabNoCas (the thief claims its half with a plain store of head).
 */
@JCStressTest
@Description("RunQueue: owner put/takeOwnRunnext/pollRing vs one stealFrom; every G taken exactly once")
@Outcome(id = "ok .*", expect = ACCEPTABLE, desc = "every task taken exactly once")
@Outcome(expect = FORBIDDEN, desc = "a task lost or taken twice")
@State
public class RingOwnerVsStealerStress {
  final GlobalQueue gq = new GlobalQueue();
  final RunQueue victim = new RunQueue();
  final RunQueue thief = new RunQueue();
  final int[] owner = new int[6];
  final int[] stolen = new int[6];
  final int[] left = new int[6];

  public RingOwnerVsStealerStress() {
    victim.put(g(1), false, gq);
    victim.put(g(2), false, gq);
    victim.put(g(3), false, gq);
  }

  @Actor
  public void owner() {
    victim.put(g(4), false, gq);
    victim.put(g(5), true, gq);
    count(owner, victim.takeOwnRunnext());
    count(owner, victim.pollRing());
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
    r.r1 = verdict(5, owner, stolen, left) + " thief=" + StressSupport.mask(stolen);
  }
}
