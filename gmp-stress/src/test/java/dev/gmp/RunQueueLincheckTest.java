package dev.gmp;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model check of the run queue (ring + runnext) against a sequential deque: the owner's
 * operations (put, put to runnext, takeOwnRunnext, pollRing) run on one thread, steals (runqgrab of
 * half the ring into the thief's own ring) on the others.
 *
 * <p>Steals here leave runnext alone ({@code stealRunnext=false}, stealWork's first three
 * passes). Taking runnext (the last pass) reads the ring, then runnext, without one atomic
 * snapshot, exactly as Go's runqgrab does, so it is not linearizable against this strict spec (a
 * thief can take the new runnext while the G it displaced already sits in the ring); that race is
 * covered for exactly-once by the jcstress test RunnextReplaceVsStealStress instead.
 */
public class RunQueueLincheckTest {
  private final GlobalQueue gq = new GlobalQueue();
  private final RunQueue q = new RunQueue();
  private int nextId = 1; // owner only (and the sequential init/post parts)

  @Operation(nonParallelGroup = "owner")
  public void put() {
    q.put(StressSupport.g(nextId++), false, gq);
  }

  @Operation(nonParallelGroup = "owner")
  public void putNext() {
    q.put(StressSupport.g(nextId++), true, gq);
  }

  @Operation(nonParallelGroup = "owner")
  public Integer takeRunnext() {
    return id(q.takeOwnRunnext());
  }

  @Operation(nonParallelGroup = "owner")
  public Integer pollRing() {
    return id(q.pollRing());
  }

  /** A thief with its own (empty) ring steals; returns the stolen ids in order. */
  @Operation
  public String steal() {
    RunQueue mine = new RunQueue();
    G first = mine.stealFrom(q, false, false);
    List<Integer> ids = new ArrayList<>();
    if (first != null) {
      ids.add((int) first.goid);
    }
    for (G g = mine.pollRing(); g != null; g = mine.pollRing()) {
      ids.add((int) g.goid);
    }
    Collections.sort(ids);
    return ids.toString();
  }

  private static Integer id(G g) {
    return g == null ? null : (int) g.goid;
  }

  /** The sequential specification: a FIFO ring plus a one-G runnext slot. */
  public static class Spec {
    private final ArrayDeque<Integer> ring = new ArrayDeque<>();
    private Integer runnext;
    private int nextId = 1;

    public void put() {
      ring.addLast(nextId++);
    }

    public void putNext() {
      if (runnext != null) {
        ring.addLast(runnext);
      }
      runnext = nextId++;
    }

    public Integer takeRunnext() {
      Integer r = runnext;
      runnext = null;
      return r;
    }

    public Integer pollRing() {
      return ring.pollFirst();
    }

    public String steal() {
      int n = ring.size();
      int k = n - n / 2;
      List<Integer> ids = new ArrayList<>();
      for (int i = 0; i < k; i++) {
        ids.add(ring.pollFirst());
      }
      Collections.sort(ids);
      return ids.toString();
    }
  }

  @Test
  void modelCheck() {
    new ModelCheckingOptions()
        .iterations(8)
        .invocationsPerIteration(40)
        .threads(3)
        .actorsPerThread(2)
        .actorsBefore(3)
        .actorsAfter(1)
        .sequentialSpecification(Spec.class)
        .check(this.getClass());
  }
}
