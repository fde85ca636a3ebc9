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
 * The half-steal arithmetic under a race: 5 queued, the owner pops one while a thief steals.
 * The thief must take n - n/2 of the n it saw, from the front: 3 (ids 1-3, the owner then gets
 * 4) or 2 (ids 2-3 of 4, after the owner took 1). Mutations: gmp.mutate.stealHalfDown (n/2)
 * and gmp.mutate.grabNoCas.
 */
@JCStressTest
@Description("runqgrab takes n - n/2 from the front, racing the owner's pop")
@Outcome(id = "ok owner=1 thief=2,3", expect = ACCEPTABLE, desc = "owner popped first: 2 of 4")
@Outcome(id = "ok owner=4 thief=1,2,3", expect = ACCEPTABLE, desc = "thief first: 3 of 5")
@Outcome(expect = FORBIDDEN, desc = "wrong half, or a task lost or taken twice")
@State
public class StealHalfStress {
  final GlobalQueue gq = new GlobalQueue();
  final RunQueue victim = new RunQueue();
  final RunQueue thief = new RunQueue();
  final int[] owner = new int[6];
  final int[] stolen = new int[6];
  final int[] left = new int[6];
  int ownerId;

  public StealHalfStress() {
    for (int i = 1; i <= 5; i++) {
      victim.put(g(i), false, gq);
    }
  }

  @Actor
  public void owner() {
    G x = victim.pollRing();
    ownerId = x == null ? 0 : (int) x.goid;
    count(owner, x);
  }

  @Actor
  public void thief() {
    count(stolen, thief.stealFrom(victim, false, false));
    drain(thief, stolen);
  }

  @Arbiter
  public void arbiter(L_Result r) {
    drain(victim, left);
    StringBuilder ids = new StringBuilder();
    for (int i = 1; i <= 5; i++) {
      if (stolen[i] > 0) {
        ids.append(ids.length() == 0 ? "" : ",").append(i);
      }
    }
    r.r1 = verdict(5, owner, stolen, left) + " owner=" + ownerId + " thief=" + ids;
  }
}
