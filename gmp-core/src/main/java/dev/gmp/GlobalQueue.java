package dev.gmp;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The global run queue (Go's sched.runq): an intrusive list of Gs behind one lock. The lock is
 * Go's sched.lock: {@link Sched} guards its idle-P and idle-M lists with the same lock, so that
 * "queue is empty, so this P may go idle" and "P is idle, so wake someone for this task" are
 * decided atomically with respect to each other.
 *
 * <p>All methods but {@link #size()} require {@link #lock} to be held.
 */
final class GlobalQueue {
  final ReentrantLock lock = new ReentrantLock();

  private final GQueue q = new GQueue();

  /** Mirror of q.size for lock-free "is there anything?" hints; authoritative only under lock. */
  private volatile int size;

  /** Racy hint (Go reads sched.runqsize without the lock the same way); recheck under the lock. */
  int size() {
    return size;
  }

  void put(G g) {
    q.push(g);
    size = q.size;
  }

  void putBatch(GQueue batch) {
    q.pushAll(batch);
    size = q.size;
  }

  G get() {
    G g = q.pop();
    size = q.size;
    return g;
  }

  /**
   * globrunqgetbatch: takes n = min(len, len/gomaxprocs + 1, ring/2) Gs, returns the first and puts
   * the rest on {@code pp}'s ring (whose owner must be the caller). Returns null when empty.
   */
  G getBatch(P pp, int gomaxprocs) {
    int len = q.size;
    if (len == 0) {
      return null;
    }
    int n = batchSize(len, gomaxprocs);
    G first = q.pop();
    if (n > 1) {
      GQueue rest = pp.batch; // owner-only scratch: no allocation per batch
      for (int i = 1; i < n; i++) {
        rest.push(q.pop());
      }
      pp.runq.putBatch(rest);
      // runqputbatch cannot overflow here (the ring was empty or nearly), but never drop a G:
      q.pushAll(rest);
    }
    size = q.size;
    return first;
  }

  /** The batch arithmetic of globrunqgetbatch, kept separate so it can be tested exactly. */
  static int batchSize(int len, int gomaxprocs) {
    int n = Math.min(len, len / gomaxprocs + 1);
    return Math.min(n, RunQueue.SIZE / 2);
  }

  /** Removes everything (shutdownNow, tests). */
  void drainTo(GQueue out) {
    out.pushAll(q);
    size = 0;
  }
}
