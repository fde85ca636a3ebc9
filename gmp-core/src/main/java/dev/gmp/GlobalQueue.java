package dev.gmp;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntToLongFunction;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;

/**
 * The global run queue (Go's sched.runq) behind one lock. The lock is Go's sched.lock:
 * {@link Sched} guards its idle-P and idle-M lists with the same lock, so that "queue is empty,
 * so this P may go idle" and "P is idle, so wake someone for this task" are decided atomically
 * with respect to each other.
 *
 * <p>Go links Gs through g.schedlink (no allocation in the runtime). On the JVM that makes every
 * put and get touch each G's cache line while holding the lock; here the queue is a growable
 * circular array of references, so batches move with array copies and a G is first touched by
 * the M that runs it (docs/design.md, deviations).
 *
 * <p>Outside submitters do not take the lock: they {@link #inject} into a lock-free MPSC queue
 * (JCTools, the field-updater variant: no Unsafe) that every locked take first moves onto the
 * array, so takers see one FIFO queue and keep Go's batch arithmetic. The consumer side of that
 * queue is only ever touched under the lock, which makes it single-consumer.
 *
 * <p>All methods but {@link #size()} and {@link #inject} require {@link #lock} to be held.
 */
final class GlobalQueue {
  private static final int MIN_CAPACITY = 256;

  final ReentrantLock lock = new ReentrantLock();

  /** Outside submissions, moved onto buf by the next locked take (chunks of 1024 slots). */
  private final MpscUnboundedAtomicArrayQueue<G> injected =
      new MpscUnboundedAtomicArrayQueue<>(1024);

  /** Ids for Gs that came in through {@link #inject} (they are numbered when moved, in order). */
  private final IntToLongFunction goids;

  private G[] buf = new G[MIN_CAPACITY];
  private int head;
  private int count;
  private int sparseTakes;

  /** Mirror of count for lock-free "is there anything?" hints; authoritative only under lock. */
  private volatile int size;

  GlobalQueue(IntToLongFunction goids) {
    this.goids = goids;
  }

  /** For tests, which put Gs with their own ids (injected ones are numbered from 0). */
  GlobalQueue() {
    this(n -> 0L);
  }

  /**
   * Racy hint (Go reads sched.runqsize without the lock the same way); recheck under the lock.
   * Under the lock it is exact for the array and never under-reports the injection side: a
   * producer's slot counts from its index increment on, before its element is visible, and the
   * take that then finds it waits for the element (poll spins on a claimed slot).
   */
  int size() {
    return size + injected.size();
  }

  /** Lock-free put from an outside thread; its atomic index increment is a full barrier. */
  void inject(G g) {
    injected.offer(g);
  }

  /** Moves what is on the injection side now onto the array, numbering it. Lock held. */
  private void transfer() {
    int n = injected.size(); // a snapshot: a steady stream of submitters cannot keep us here
    if (n == 0) {
      return;
    }
    long id = goids.applyAsLong(n);
    for (int i = 0; i < n; i++) {
      G g = injected.poll(); // the slot is claimed, so this waits for its element, never null
      if (g == null) {
        break;
      }
      g.goid = id + i;
      append(g);
    }
    size = count;
  }

  void put(G g) {
    append(g);
    size = count;
  }

  private void append(G g) {
    if (count == buf.length) {
      resize(buf.length * 2);
    }
    buf[(head + count) & (buf.length - 1)] = g;
    count++;
  }

  /** Appends {@code n} Gs from {@code src[0..n)} (runqputslow's batch). */
  void putAll(G[] src, int n) {
    while (count + n > buf.length) {
      resize(buf.length * 2);
    }
    int mask = buf.length - 1;
    for (int i = 0; i < n; i++) {
      buf[(head + count + i) & mask] = src[i];
    }
    count += n;
    size = count;
  }

  /** Appends all of {@code batch} and leaves it empty (drains, retirements: rare paths). */
  void putBatch(GQueue batch) {
    for (G g = batch.pop(); g != null; g = batch.pop()) {
      append(g);
    }
    size = count; // one publication per batch: the hint never shows half a batch
  }

  /**
   * Takes {@code g} back out if it is still queued (an outside submit that lost the race with
   * shutdown withdraws its task). Linear, but only on that rare path.
   */
  boolean remove(G g) {
    transfer();
    int mask = buf.length - 1;
    for (int i = 0; i < count; i++) {
      if (buf[(head + i) & mask] == g) {
        for (int j = i; j < count - 1; j++) {
          buf[(head + j) & mask] = buf[(head + j + 1) & mask];
        }
        buf[(head + count - 1) & mask] = null;
        count--;
        size = count;
        return true;
      }
    }
    return false;
  }

  G get() {
    transfer();
    if (count == 0) {
      return null;
    }
    G g = takeHead();
    size = count;
    return g;
  }

  /**
   * globrunqgetbatch: takes n = min(len, len/gomaxprocs + 1, ring/2) Gs (fewer if pp's ring has
   * less room), returns the first and puts the rest on {@code pp}'s ring, whose owner must be the
   * caller. Returns null when empty.
   */
  G getBatch(P pp, int gomaxprocs) {
    transfer();
    if (count == 0) {
      return null;
    }
    int n = Math.min(batchSize(count, gomaxprocs), pp.runq.room() + 1);
    G first = takeHead();
    if (n > 1) {
      int mask = buf.length - 1;
      pp.runq.putBatch(buf, head, mask, n - 1);
      for (int i = 0; i < n - 1; i++) {
        buf[(head + i) & mask] = null;
      }
      head = (head + n - 1) & mask;
      count -= n - 1;
    }
    if (count == 0) {
      head = 0; // refill from the front: the slots used last are the ones still in cache
    }
    shrinkIfSparse();
    size = count;
    return first;
  }

  /** The batch arithmetic of globrunqgetbatch, kept separate so it can be tested exactly. */
  static int batchSize(int len, int gomaxprocs) {
    int n = Math.min(len, len / gomaxprocs + 1);
    return Math.min(n, RunQueue.SIZE / 2);
  }

  /** Removes everything (shutdownNow, tests). */
  void drainTo(GQueue out) {
    transfer();
    while (count > 0) {
      out.push(takeHead());
    }
    shrinkIfSparse();
    size = 0;
  }

  private G takeHead() {
    G g = buf[head];
    buf[head] = null;
    head = (head + 1) & (buf.length - 1);
    count--;
    return g;
  }

  /**
   * A burst must not pin a huge array forever, but a workload that refills it every millisecond
   * must not regrow it every time either (JFR: 8% of spawn_many_local in resize when the buffer
   * shrank after each batch and grew again on the next overflow). So it halves only after
   * min(capacity, 1024) takes found it at most a quarter full: a copy of at most a quarter of
   * the slots per that many takes, and a queue used only now and then still gives memory back.
   */
  private void shrinkIfSparse() {
    if (buf.length > MIN_CAPACITY
        && count <= buf.length / 4
        && ++sparseTakes >= Math.min(buf.length, 1024)) {
      resize(Math.max(MIN_CAPACITY, buf.length / 2));
    }
  }

  private void resize(int capacity) {
    sparseTakes = 0;
    G[] next = new G[capacity];
    int mask = buf.length - 1;
    for (int i = 0; i < count; i++) {
      next[i] = buf[(head + i) & mask];
    }
    buf = next;
    head = 0;
  }
}
