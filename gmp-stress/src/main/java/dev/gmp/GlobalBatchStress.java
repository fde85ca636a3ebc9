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
 * The global queue: a batch put (runqputslow of a full ring: 128 + 1 Gs) against a batch get
 * (globrunqgetbatch into another P's ring, under the lock as findRunnable takes it) while the
 * queue holds one G, so the get can empty it just as the put links onto its tail. Every G ends
 * up exactly once. Mutation: gmp.mutate.putslowNoLock (the batch is linked in without the lock).
 */
@JCStressTest
@Description("GlobalQueue: putBatch (from runqputslow) vs getBatch; every G exactly once")
@Outcome(id = "ok got=1", expect = ACCEPTABLE, desc = "get first: 1 of 1")
@Outcome(id = "ok got=66", expect = ACCEPTABLE, desc = "put first: min(130, 130/2+1) of 130")
@Outcome(expect = FORBIDDEN, desc = "a G lost or taken twice, or a wrong batch size")
@State
public class GlobalBatchStress {
  static final int N = RunQueue.SIZE + 2; // id 1 in the global queue, 2..257 in the ring, 258 put
  final GlobalQueue gq = new GlobalQueue();
  final RunQueue victim = new RunQueue();
  final P other = new P(1);
  final int[] got = new int[N + 1];
  final int[] left = new int[N + 1];

  public GlobalBatchStress() {
    gq.lock.lock();
    try {
      gq.put(g(1));
    } finally {
      gq.lock.unlock();
    }
    for (int i = 2; i < N; i++) {
      victim.put(g(i), false, gq);
    }
  }

  @Actor
  public void overflow() {
    victim.put(g(N), false, gq);
  }

  @Actor
  public void getBatch() {
    G first;
    gq.lock.lock(); // as SchedulingLoop.findRunnable does
    try {
      first = gq.getBatch(other, 2);
    } finally {
      gq.lock.unlock();
    }
    count(got, first);
    drain(other.runq, got);
  }

  @Arbiter
  public void arbiter(L_Result r) {
    drain(victim, left);
    drain(gq, left);
    int n = 0;
    for (int c : got) {
      n += c;
    }
    r.r1 = verdict(N, got, left) + " got=" + n;
  }
}
