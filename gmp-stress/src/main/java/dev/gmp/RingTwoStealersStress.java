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
 * The ring: the owner pushes and pops while two thieves (each with its own ring) steal, the last
 * pass's runnext stealing included. Every task is taken exactly once. Mutation:
 * gmp.mutate.grabNoCas. Three actors: needs three CPUs, or jcstress's -c 3 on a two-core box.
 */
@JCStressTest
@Description("RunQueue: owner put/pollRing vs two stealFrom (one may take runnext); exactly once")
@Outcome(id = "ok .*", expect = ACCEPTABLE, desc = "every task taken exactly once")
@Outcome(expect = FORBIDDEN, desc = "a task lost or taken twice")
@State
public class RingTwoStealersStress {
  final GlobalQueue gq = new GlobalQueue();
  final RunQueue victim = new RunQueue();
  final RunQueue thiefA = new RunQueue();
  final RunQueue thiefB = new RunQueue();
  final int[] owner = new int[9];
  final int[] a = new int[9];
  final int[] b = new int[9];
  final int[] left = new int[9];

  public RingTwoStealersStress() {
    for (int i = 1; i <= 5; i++) {
      victim.put(g(i), false, gq);
    }
    victim.put(g(6), true, gq);
  }

  @Actor
  public void owner() {
    victim.put(g(7), false, gq);
    count(owner, victim.pollRing());
    victim.put(g(8), true, gq); // displaces 6 to the tail
    count(owner, victim.pollRing());
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
    drain(gq, left);
    r.r1 = verdict(8, owner, a, b, left);
  }
}
