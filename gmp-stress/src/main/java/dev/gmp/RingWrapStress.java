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
 * Owner vs stealer while the free-running int indices wrap past Integer.MAX_VALUE, in the
 * victim's ring (head/tail cross during the race) and in the thief's (its stolen batch crosses).
 * Mutation: gmp.mutate.signedSlot (runqput maps index to slot with abs(t % 256), which is right
 * until the index goes negative).
 */
@JCStressTest
@Description("RunQueue across int overflow: owner put/pollRing vs stealFrom; exactly once")
@Outcome(id = "ok .*", expect = ACCEPTABLE, desc = "every task taken exactly once")
@Outcome(expect = FORBIDDEN, desc = "a task lost or taken twice across the wrap")
@State
public class RingWrapStress {
  final GlobalQueue gq = new GlobalQueue();
  final RunQueue victim = new RunQueue(Integer.MAX_VALUE - 2);
  final RunQueue thief = new RunQueue(Integer.MAX_VALUE);
  final int[] owner = new int[7];
  final int[] stolen = new int[7];
  final int[] left = new int[7];

  public RingWrapStress() {
    victim.put(g(1), false, gq); // index MAX-2
    victim.put(g(2), false, gq); // MAX-1
    victim.put(g(3), false, gq); // MAX
  }

  @Actor
  public void owner() {
    victim.put(g(4), false, gq); // MIN
    victim.put(g(5), false, gq); // MIN+1
    count(owner, victim.pollRing());
    victim.put(g(6), false, gq); // MIN+2
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
    r.r1 = verdict(6, owner, stolen, left) + " thief=" + StressSupport.mask(stolen);
  }
}
