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
 * Two thieves race for the same victim (5 in the ring, 1 in runnext): whoever CASes head first
 * takes 3, the other 1 of the 2 left; the runnext G stays (the ring is never empty for them).
 * The two-actor form of RingTwoStealersStress, which needs three CPUs. Mutation:
 * gmp.mutate.grabNoCas.
 */
@JCStressTest
@Description("two concurrent stealFrom on one victim; every G exactly once, halves right")
@Outcome(id = "ok a=3 b=1", expect = ACCEPTABLE, desc = "A first: 3 of 5, then B: 1 of 2")
@Outcome(id = "ok a=1 b=3", expect = ACCEPTABLE, desc = "B first: 3 of 5, then A: 1 of 2")
@Outcome(expect = FORBIDDEN, desc = "a G lost or taken twice, or wrong halves")
@State
public class TwoStealersStress {
  final GlobalQueue gq = new GlobalQueue();
  final RunQueue victim = new RunQueue();
  final RunQueue thiefA = new RunQueue();
  final RunQueue thiefB = new RunQueue();
  final int[] a = new int[7];
  final int[] b = new int[7];
  final int[] left = new int[7];

  public TwoStealersStress() {
    for (int i = 1; i <= 5; i++) {
      victim.put(g(i), false, gq);
    }
    victim.put(g(6), true, gq);
  }

  @Actor
  public void thiefA() {
    count(a, thiefA.stealFrom(victim, false, false));
    drain(thiefA, a);
  }

  @Actor
  public void thiefB() {
    count(b, thiefB.stealFrom(victim, true, false));
    drain(thiefB, b);
  }

  @Arbiter
  public void arbiter(L_Result r) {
    drain(victim, left);
    int na = 0;
    int nb = 0;
    for (int i = 0; i < 7; i++) {
      na += a[i];
      nb += b[i];
    }
    r.r1 = verdict(6, a, b, left) + " a=" + na + " b=" + nb;
  }
}
