package dev.gmp;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model check of the global run queue against a sequential FIFO, with the lock taken as
 * the scheduler takes it: put, putBatch (runqputslow's batch of 3 here), get, getBatch
 * (globrunqgetbatch into a P's ring: n = min(len, len/gomaxprocs + 1, 128), gomaxprocs = 2) and
 * the lock-free size() hint.
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
    RunQueue ring = new RunQueue();
    for (int i = 0; i < 3; i++) {
      ring.put(StressSupport.g(nextId++), false, gq);
    }
    gq.lock.lock();
    try {
      gq.putRing(ring);
    } finally {
      gq.lock.unlock();
    }
  }

  /** An outside submitter: lock-free, as Scheduler.submitExternal. */
  @Operation
  public void inject() {
    gq.inject(StressSupport.g(nextId++));
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

  @Operation
  public int size() {
    return gq.size();
  }

  /** The sequential specification: a FIFO. */
  public static class Spec {
    private final ArrayDeque<Integer> q = new ArrayDeque<>();
    private int nextId = 1;

    public void put() {
      q.addLast(nextId++);
    }

    public void putRing() {
      for (int i = 0; i < 3; i++) {
        q.addLast(nextId++);
      }
    }

    public void inject() {
      q.addLast(nextId++);
    }

    public Integer get() {
      return q.pollFirst();
    }

    public String getBatch() {
      int len = q.size();
      List<Integer> ids = new ArrayList<>();
      if (len > 0) {
        int n = Math.min(Math.min(len, len / 2 + 1), RunQueue.SIZE / 2);
        for (int i = 0; i < n; i++) {
          ids.add(q.pollFirst());
        }
      }
      return ids.toString();
    }

    public int size() {
      return q.size();
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
