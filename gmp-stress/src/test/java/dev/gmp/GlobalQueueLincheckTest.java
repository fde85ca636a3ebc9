package dev.gmp;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model check of the global run queue against its sequential specification (two FIFOs,
 * see Spec), with the lock taken as the scheduler takes it: put, putRing (a dead P's ring of 3
 * moving over), get, getBatch (globrunqgetbatch into
 * a P's ring: n = min(len, len/gomaxprocs + 1, 128), gomaxprocs = 2). The lock-free size() hint
 * is not checked here: while a take moves injected Gs it may be low by the Gs that take is moving
 * (and will take itself), which is not linearizable but is all the wake-up protocol needs.
 */
public class GlobalQueueLincheckTest {
  private final GlobalQueue gq = new GlobalQueue();
  private int nextId = 1; // guarded by gq.lock: ids follow the queue's linearization order

  @Operation
  public void put() {
    gq.lock.lock();
    try {
      gq.put(StressSupport.g(nextId++));
    } finally {
      gq.lock.unlock();
    }
  }

  @Operation
  public void putRing() {
    gq.lock.lock(); // ids in lock order, as the specification numbers them
    try {
      RunQueue ring = new RunQueue();
      for (int i = 0; i < 3; i++) {
        ring.put(StressSupport.g(nextId++), false, gq);
      }
      gq.putRing(ring);
    } finally {
      gq.lock.unlock();
    }
  }

  @Operation
  public Integer get() {
    gq.lock.lock();
    try {
      G g = gq.get();
      return g == null ? null : (int) g.goid;
    } finally {
      gq.lock.unlock();
    }
  }

  @Operation
  public String getBatch() {
    P pp = new P(0);
    G first;
    gq.lock.lock();
    try {
      first = gq.getBatch(pp, 2);
    } finally {
      gq.lock.unlock();
    }
    List<Integer> ids = new ArrayList<>();
    if (first != null) {
      ids.add((int) first.goid);
    }
    for (G g = pp.runq.pollRing(); g != null; g = pp.runq.pollRing()) {
      ids.add((int) g.goid);
    }
    return ids.toString();
  }

  /**
   * The sequential specification: two FIFOs, the array and the injection side; each take first
   * moves as many injected Gs onto the array as it will take (one for get, the batch for
   * getBatch), then takes from the array's head (GlobalQueue's class comment). The injection side
   * is not driven here (an injected G is numbered before its CAS, so ids could not follow the
   * linearization order); jcstress covers it (ExternalSubmitVsDropPStress, ChunkBoundarySubmitStress).
   */
  public static class Spec {
    private final ArrayDeque<Integer> arr = new ArrayDeque<>();
    private final ArrayDeque<Integer> inj = new ArrayDeque<>();
    private int nextId = 1;

    public void put() {
      arr.addLast(nextId++);
    }

    public void putRing() {
      for (int i = 0; i < 3; i++) {
        arr.addLast(nextId++);
      }
    }

    private void move(int n) {
      for (int i = 0; i < n && !inj.isEmpty(); i++) {
        arr.addLast(inj.pollFirst());
      }
    }

    public Integer get() {
      move(1);
      return arr.pollFirst();
    }

    public String getBatch() {
      int len = arr.size() + inj.size();
      List<Integer> ids = new ArrayList<>();
      if (len > 0) {
        int n = GlobalQueue.batchSize(len, 2);
        move(n);
        for (int i = 0; i < n && !arr.isEmpty(); i++) {
          ids.add(arr.pollFirst());
        }
      }
      return ids.toString();
    }

  }

  @Test
  void modelCheck() {
    new ModelCheckingOptions()
        .iterations(6)
        .invocationsPerIteration(40)
        .threads(2)
        .actorsPerThread(3)
        .actorsBefore(2)
        .actorsAfter(1)
        .sequentialSpecification(Spec.class)
        .check(this.getClass());
  }
}
