package dev.gmp;

import static dev.gmp.StressSupport.drain;
import static dev.gmp.StressSupport.g;
import static dev.gmp.StressSupport.verdict;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.L_Result;

/**
 * A retake's move of a P's ring to its replacement (Retake#retakeRunning: RunQueue#moveTo) racing
 * the retaken task's late push onto that ring (a spawn that saw the P alive): the ring is full
 * (256), sysmon drains it into the new P's empty ring while the owner pushes a 257th G, which goes
 * to the global queue with half the ring if it finds the ring full, or into the room the move has
 * freed. Every G must end up exactly once and the new ring never holds more than 256. Mutation:
 * gmp.mutate.moveToUnbounded (the move does not stop at the new ring's capacity, so the late G
 * overwrites the first one's slot: one G twice, another lost).
 */
@JCStressTest
@Description("RunQueue.moveTo (retake) vs the owner's late put; 257 tasks exactly once")
@Outcome(id = "ok moved=256 left=1 global=0", expect = ACCEPTABLE, desc = "put into freed room")
@Outcome(id = "ok moved=128 left=0 global=129", expect = ACCEPTABLE, desc = "put first: overflow")
@Outcome(
    id = "ok moved=.* left=.* global=.*",
    expect = ACCEPTABLE_INTERESTING,
    desc = "overflow half-claimed as the move drained")
@Outcome(expect = FORBIDDEN, desc = "a task lost or taken twice, or the new ring overfilled")
@State
public class MoveToVsLatePushStress {
  static final int N = RunQueue.SIZE + 1;
  final GlobalQueue gq = new GlobalQueue();
  final RunQueue retaken = new RunQueue();
  final RunQueue replacement = new RunQueue();
  final int[] moved = new int[N + 1];
  final int[] left = new int[N + 1];
  final int[] global = new int[N + 1];

  public MoveToVsLatePushStress() {
    for (int i = 1; i < N; i++) {
      retaken.put(g(i), false, gq);
    }
  }

  @Actor
  public void owner() {
    retaken.put(g(N), false, gq);
  }

  @Actor
  public void sysmon() {
    retaken.moveTo(replacement);
  }

  @Arbiter
  public void arbiter(L_Result r) {
    int published = replacement.lengthForTest();
    drain(replacement, moved);
    drain(retaken, left);
    drain(gq, global);
    String v = verdict(N, moved, left, global);
    if (published > RunQueue.SIZE) {
      v = "OVERFULL(" + published + ") " + v;
    }
    r.r1 = v + " moved=" + sum(moved) + " left=" + sum(left) + " global=" + sum(global);
  }

  private static int sum(int[] counts) {
    int s = 0;
    for (int c : counts) {
      s += c;
    }
    return s;
  }
}
