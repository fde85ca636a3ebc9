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
 * runqputslow racing a steal: the ring is full (256), the owner pushes one more, which moves the
 * front half plus the new G to the global queue in one locked batch; a thief steals half at the
 * same time. All 257 tasks end up exactly once. Mutation: gmp.mutate.putslowNoCas (runqputslow
 * claims its half with a plain store of head, overlapping the thief's claim).
 */
@JCStressTest
@Description("runqputslow (overflow half to global) vs stealFrom; 257 tasks exactly once")
@Outcome(id = "ok thief=128 global=0", expect = ACCEPTABLE, desc = "steal first; no overflow")
@Outcome(id = "ok thief=64 global=129", expect = ACCEPTABLE, desc = "overflow first: 128+1 out")
@Outcome(expect = FORBIDDEN, desc = "a task lost or taken twice, or wrong batch sizes")
@State
public class PutSlowVsStealStress {
  static final int N = RunQueue.SIZE + 1;
  final GlobalQueue gq = new GlobalQueue();
  final RunQueue victim = new RunQueue();
  final RunQueue thief = new RunQueue();
  final int[] stolen = new int[N + 1];
  final int[] global = new int[N + 1];
  final int[] left = new int[N + 1];

  public PutSlowVsStealStress() {
    for (int i = 1; i < N; i++) {
      victim.put(g(i), false, gq);
    }
  }

  @Actor
  public void owner() {
    victim.put(g(N), false, gq);
  }

  @Actor
  public void thief() {
    count(stolen, thief.stealFrom(victim, false, false));
    drain(thief, stolen);
  }

  @Arbiter
  public void arbiter(L_Result r) {
    drain(victim, left);
    drain(gq, global);
    int s = 0;
    int gl = 0;
    for (int i = 0; i <= N; i++) {
      s += stolen[i];
      gl += global[i];
    }
    r.r1 = verdict(N, stolen, global, left) + " thief=" + s + " global=" + gl;
  }
}
