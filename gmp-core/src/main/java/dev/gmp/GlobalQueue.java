package dev.gmp;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntToLongFunction;

/**
 * The global run queue (Go's sched.runq) behind the scheduler lock (Go's sched.lock, which
 * {@link Idle} uses for the idle lists too, so that "the queue is empty, so this P may go idle"
 * and "a P is idle, so wake someone for this task" are decided atomically with respect to each
 * other).
 *
 * <p>Two parts, seen by takers as one FIFO:
 *
 * <ul>
 *   <li>a growable circular array of Gs, touched only under the lock. Go links Gs through
 *       g.schedlink; on the JVM that makes every put and get touch each G's cache line under the
 *       lock, while here batches move with array copies and a G is first touched by the M that
 *       runs it (docs/design.md, deviations);
 *   <li>the spill: Gs linked through g.schedlink, as Go's are, used only when the array is full
 *       and cannot grow (OutOfMemoryError, or the largest array). Queueing a G never allocates
 *       then, so an out-of-memory error cannot take a G that was already accepted (a ring's
 *       overflow half has been claimed from the ring when it comes here). While the spill holds
 *       any G, appends go to it too: everything on the array is older, so takes stay FIFO;
 *   <li>the injection side: outside submitters {@link #inject} into a lock-free MPSC ring
 *       ({@link InjectionQueue}: JCTools' MpscArrayQueue algorithm, its slots reached with
 *       fences), without the lock. Its consumer side is touched only under the lock, which makes
 *       it single-consumer.
 * </ul>
 *
 * <p>Nothing under the lock waits for another thread: injected Gs move onto the array with {@code
 * relaxedPoll}, which returns null for a slot a producer has claimed but not yet filled (a poll
 * that spun there, as JCTools' does, would let a preempted submitter hold every M at the lock), and
 * each take moves as many as it takes (at most one batch, 128 Gs), so lock hold times do not grow
 * with the backlog. Order: FIFO within each side; an injected G queues behind what was on the array
 * when a take moved it, so it waits at most one array's length (no starvation), but a locked put
 * may overtake an earlier injection (the two come from different threads anyway).
 *
 * <p>"Visible" is "takeable": {@link #size} and {@link #liveSizeLocked} count the injection side
 * only once its oldest slot is filled, since a take stops at a slot a producer has claimed and not
 * yet filled. Counting such a slot would keep a spinner looking at work it cannot take, burning a
 * CPU while the producer is descheduled. The producer fences after filling its slot and then
 * reads nmspinning and the run state (Scheduler#injectOrPut), so whoever did not see its G is
 * seen by it (Dekker A and C). Shutdown's tidy-up alone counts claimed slots too ({@link
 * #pendingSizeLocked}): the Gs queued behind one are accepted, and their producers may have woken
 * nobody, trusting the Ms that a tidy-up would tell to exit.
 *
 * <p>All methods but {@link #size()} and {@link #inject} require {@link #lock} to be held.
 */
final class GlobalQueue {
  private static final int MIN_CAPACITY = 256;

  /** The largest array (a power of two, as the mask needs); past it, Gs spill. */
  private static final int MAX_CAPACITY = 1 << 30;

  final ReentrantLock lock;

  /**
   * Injection-side capacity; when it is full, outside submitters put under the lock instead. 16K
   * slots (64 KB): a burst of 10k outside submissions fits, where a smaller ring's overflow takes
   * the locked path (docs/benchmarks.md, "Outside submissions and wake-up latency").
   */
  static final int INJECT_CAPACITY = 16384;

  /**
   * Outside submissions, moved onto buf by locked takes. Bounded on purpose: its offer makes the
   * G countable with the CAS on the producer index (a full barrier), before the element store,
   * on every path. (JCTools' unbounded queue published the index that links a new chunk with a
   * lazySet after its last barrier, which would need a full fence after every inject: its cost
   * measured in docs/design.md, section 2.2.)
   */
  private final InjectionQueue injected = new InjectionQueue(INJECT_CAPACITY);

  /** Ids for Gs that came in through {@link #inject} (they are numbered when moved, in order). */
  private final IntToLongFunction goids;

  private static final int GOID_BATCH = 16;

  /** The ids reserved for injected Gs and not used yet (lock held). */
  private long goidNext;

  private long goidEnd;

  private G[] buf = new G[MIN_CAPACITY];
  private int head;
  private int count;
  private int sparseTakes;

  /** The array's largest size: {@link #MAX_CAPACITY}, smaller in tests. */
  private final int maxCapacity;

  /** Gs that found the array full and unable to grow, oldest first (see the class comment). */
  private final GQueue spill = new GQueue();

  private int spilled;

  /** Positions ever appended to / taken from the array (withdraw tells taken Gs by them). */
  private long appended;

  private long taken;

  /**
   * Withdrawn Gs not yet dropped: on the array (a take skips them), and on the injection side (a
   * transfer drops them). Counted apart because the injection side counts only once its oldest
   * slot is filled: subtracting its withdrawn Gs from the array's count would undercount, and let
   * a tidy-up see an empty queue with Gs on the array. Written under the lock; volatile so that
   * the size() hint does not count them.
   */
  private volatile int withdrawnArray;

  private volatile int withdrawnInjected;

  /**
   * Stand-ins ({@link M#asLocked}) of Gs that already started and wait for a P on their own M's
   * thread (exitsyscall without a P: Go's lockedg). They go before everything else: each holds a
   * thread that the spare budget counts, and it needs a P only to finish, so queueing it behind
   * new work (Go's globrunqput) lets such Ms pile up and spend the budget (docs/design.md,
   * section 3, "A returning call goes first").
   */
  private final GQueue locked = new GQueue();

  private int lockedCount;

  /** Mirror of count for lock-free "is there anything?" hints; authoritative only under lock. */
  private volatile int size;

  GlobalQueue(ReentrantLock lock, IntToLongFunction goids) {
    this(lock, goids, MAX_CAPACITY);
  }

  /** For tests: its own lock; injected Gs keep the ids the test gave them. */
  GlobalQueue() {
    this(new ReentrantLock(), n -> 0L);
  }

  /** For tests: an array that stops growing at {@code maxCapacity} (a power of two). */
  GlobalQueue(ReentrantLock lock, IntToLongFunction goids, int maxCapacity) {
    this.lock = lock;
    this.goids = goids;
    this.maxCapacity = maxCapacity;
  }

  /**
   * Racy hint (Go reads sched.runqsize without the lock the same way); recheck under the lock.
   * Never under-reports the injection side: a producer's slot counts from its index increment on,
   * before its element is visible.
   */
  int size() {
    return Math.max(0, size - withdrawnArray) + injectedTakeable();
  }

  /** Gs a taker could get now (withdrawn ones not counted). Lock held. */
  int liveSizeLocked() {
    return count + spilled - withdrawnArray + lockedCount + injectedTakeable();
  }

  /**
   * Gs accepted and not yet taken, counting slots whose producers have claimed them and not yet
   * filled them: what shutdown's tidy-up must wait for (such a producer, having read a running
   * state, has its G accepted; or it reads the shut-down state and withdraws it, then tidies).
   * Gs behind an unfilled slot are not takeable yet but are accepted. Lock held.
   */
  int pendingSizeLocked() {
    return count + spilled - withdrawnArray + lockedCount
        + Math.max(0, injected.size() - withdrawnInjected);
  }

  /**
   * Whether an injected slot is claimed and not yet taken: after a take that emptied what was
   * takeable, a producer between its claim and its store, with whatever queued behind it.
   * shutdownNow drains again once it has stored. Lock held.
   */
  boolean injectionPendingLocked() {
    return injected.size() - withdrawnInjected > 0;
  }

  /**
   * The injection side's live length once its oldest slot is filled, else 0 (see the class
   * comment). The peek is a volatile read of the consumer index and of that slot: any thread may
   * ask.
   */
  private int injectedTakeable() {
    return injected.relaxedPeek() == null ? 0 : Math.max(0, injected.size() - withdrawnInjected);
  }

  /**
   * Queues the stand-in of a G that waits for a P on its own M (see {@link #locked}), ahead of
   * everything. Stand-ins only (a G whose task is its M): Idle#handToLockedLocked hands the
   * oldest one a P as its M. Lock held.
   */
  void putStandIn(G g) {
    locked.push(g);
    lockedCount++;
    publishSize();
  }

  /**
   * The oldest stand-in, for a P that no M can take (Idle#handToLockedLocked), or null. Lock
   * held.
   */
  G takeStandIn() {
    G g = takeLocked();
    if (g != null) {
      publishSize();
    }
    return g;
  }

  /** The oldest waiting locked G, or null. Lock held. */
  private G takeLocked() {
    if (lockedCount == 0) {
      return null;
    }
    lockedCount--;
    return locked.pop();
  }

  /** Tests: an outside submitter that has claimed its slot and not stored its G yet. */
  void claimInjectionSlotForTest() {
    injected.claimSlotForTest();
  }

  /** Tests: positions as if {@code start} Gs had been appended and taken before. Empty only. */
  void startPositionsForTest(long start) {
    if (count != 0) {
      throw new IllegalStateException("not empty");
    }
    appended = start;
    taken = start;
  }

  /** Gs on the array part and the spill (tests: what takes have moved so far). Lock held. */
  int arrayLengthLocked() {
    return count + spilled;
  }

  /** Gs on the spill (tests). Lock held. */
  int spilledLocked() {
    return spilled;
  }

  /** Updates the lock-free hint after a change. Lock held. */
  private void publishSize() {
    size = count + spilled + lockedCount;
  }

  /**
   * Lock-free put from an outside thread; false if the injection side is full (then the caller
   * moves a batch onto the array, {@link #drainInjectedLocked}, and tries again). The G becomes
   * takeable once the offer's element store is done; the caller fences after it (Dekker A, C).
   */
  boolean inject(G g) {
    return injected.offer(g);
  }

  /** Moves one batch of injected Gs onto the array: room for a full injection side. Lock held. */
  void drainInjectedLocked() {
    transfer(RunQueue.SIZE);
    publishSize();
  }

  /**
   * Moves up to {@code max} injected Gs onto the array, numbering them (goid, and their position
   * in the array for {@link #withdraw}) and making them runnable, without waiting for a producer
   * that has not filled its slot yet. Withdrawn Gs are dropped on the way. This is the one place a
   * G is touched under the lock, as Go's globrunqput touches it to link it.
   */
  private void transfer(int max) {
    for (int moved = 0; moved < max; ) {
      G g = injected.relaxedPoll(); // null for an empty or not-yet-filled slot: never spins
      if (g == null) {
        break;
      }
      if (g.status() == G.Gdead) { // withdrawn
        withdrawnInjected--;
        continue;
      }
      if (g.goid == 0) { // outside Gs come unnumbered (tests inject numbered ones)
        if (goidNext == goidEnd) { // a cache of 16, as a P's (Go's goidcache)
          goidNext = goids.applyAsLong(GOID_BATCH);
          goidEnd = goidNext + GOID_BATCH;
        }
        g.goid = (int) goidNext++;
      }
      g.qpos = (int) appended; // its position's low bits: withdraw finds its slot by them
      // Plain (G#setStatus): withdraw reads it under this lock; the M that takes the G gets it
      // through this lock or a ring's release store.
      g.setStatus(G.Grunnable);
      append(g);
      moved++;
    }
  }

  /** globrunqput: g behind everything. Lock held. */
  void put(G g) {
    append(g);
    publishSize();
  }

  /** Queues g behind everything; never throws (an array that cannot grow spills). */
  private void append(G g) {
    if (spilled == 0 && (count < buf.length || grow())) {
      buf[(head + count) & (buf.length - 1)] = g;
      count++;
      appended++;
    } else {
      spill.push(g); // allocates nothing: g is accepted already (class comment)
      spilled++;
    }
  }

  /**
   * runqputslow's append: the {@code n} Gs at {@code src[base + ((from + i) & mask)]} (the front
   * half of a ring, claimed from it already), then {@code last}; never throws. They are read
   * straight from the ring: one reference store per G (under G1, a young G stored into a
   * long-lived array takes its post-write barrier's StoreLoad fence), where a copy into a batch
   * first took two (docs/benchmarks.md, "The overflow's copies").
   */
  void putAll(G[] src, int base, int from, int mask, int n, G last) {
    int fit = 0;
    if (spilled == 0) {
      while (count + n + 1 > buf.length && grow()) {
        // doubles until the batch fits or the array cannot grow
      }
      fit = Math.min(n + 1, buf.length - count);
      int to = head + count;
      int bm = buf.length - 1;
      for (int i = 0, k = Math.min(fit, n); i < k; i++) {
        buf[(to + i) & bm] = src[base + ((from + i) & mask)];
      }
      if (fit > n) {
        buf[(to + n) & bm] = last;
      }
      count += fit;
      appended += fit;
    }
    for (int i = fit; i < n; i++) {
      spill.push(src[base + ((from + i) & mask)]);
      spilled++;
    }
    if (fit <= n) {
      spill.push(last);
      spilled++;
    }
    publishSize();
  }

  /** Doubles the array; false if it is at its largest or the heap has no room for a new one. */
  private boolean grow() {
    return buf.length < maxCapacity && resize(buf.length * 2);
  }

  /**
   * Moves everything in {@code q} (a dead P's ring, at most 257 Gs) to the tail, runnext last.
   * The one helper for "a ring's tasks go to the global queue" (retirement, retake, failed
   * starts, exits). Returns whether anything moved. Any thread may call it (RunQueue#poll is a
   * consumer like a thief).
   */
  boolean putRing(RunQueue q) {
    int before = count;
    for (G g = q.poll(); g != null; g = q.poll()) {
      append(g);
    }
    publishSize();
    return count != before;
  }

  /**
   * An outside submitter lost the race with shutdown: take its G back if nobody has taken it yet.
   * O(1): a G still on the injection side (Gidle: never moved) or on the array (its position's
   * slot still holds it) is marked and dropped when a take reaches it; one already taken has run
   * or been handed out (shutdownNow's list), so the submit counts as accepted.
   */
  boolean withdraw(G g) {
    if (g.status() == G.Gidle) { // transfer makes every G it moves runnable
      g.setStatus(G.Gdead); // its submitter's own G, never taken: nobody else writes its status
      withdrawnInjected++; // transfer drops it, never appending it
      return true;
    }
    // The array holds positions [taken, appended), fewer than 2^31, so the low 32 bits of a
    // position name one of them: the one at or after taken with qpos's low bits.
    long pos = taken + ((g.qpos - (int) taken) & 0xFFFF_FFFFL);
    if (pos >= appended || buf[(int) ((head + (pos - taken)) & (buf.length - 1))] != g) {
      return false; // taken (its slot was cleared or holds a later G)
    }
    g.setStatus(G.Gdead); // as above: still queued, so nobody else writes its status
    withdrawnArray++; // takeHead drops it
    return true;
  }

  G get() {
    G g = takeLocked();
    if (g == null) {
      transfer(1);
      g = takeHead();
    }
    publishSize();
    return g;
  }

  /**
   * globrunqgetbatch: takes n = min(len, len/gomaxprocs + 1, ring/2) Gs (fewer if pp's ring has
   * less room), returns the first and puts the rest on {@code pp}'s ring, whose owner must be the
   * caller. Returns null when nothing is takeable.
   */
  G getBatch(P pp, int gomaxprocs) {
    G lg = takeLocked();
    if (lg != null) {
      publishSize();
      return lg; // alone: its M takes over our P (SchedulingLoop.startlockedm)
    }
    int n = Math.min(batchSize(liveSizeLocked(), gomaxprocs), pp.runq.room() + 1);
    transfer(n); // even when the array alone has n: keeps the injection side moving (fairness)
    G first = takeHead();
    if (first != null && n > 1) {
      int k = Math.min(n - 1, count);
      if (withdrawnArray == 0 && spilled == 0) {
        // The common case: a plain copy into the ring, no G touched (nothing to skip).
        int mask = buf.length - 1;
        pp.runq.putBatch(buf, head, mask, k);
        for (int i = 0; i < k; i++) {
          buf[(head + i) & mask] = null;
        }
        head = (head + k) & mask;
        count -= k;
        taken += k;
      } else {
        for (int i = 0; i < k; i++) {
          G g = takeHead();
          if (g == null) {
            break;
          }
          pp.runq.putOwned(g);
        }
        pp.runq.publishOwned();
      }
    }
    if (count == 0) {
      head = 0; // refill from the front: the slots used last are the ones still in cache
    }
    shrinkIfSparse();
    publishSize();
    return first;
  }

  /** The batch arithmetic of globrunqgetbatch, kept separate so it can be tested exactly. */
  static int batchSize(int len, int gomaxprocs) {
    int n = Math.min(len, len / gomaxprocs + 1);
    return Math.min(n, RunQueue.SIZE / 2);
  }

  /**
   * Removes everything takeable (tests): GQueue order, Gs waiting for a P on their own M first.
   */
  void drainTo(GQueue out) {
    for (G g = takeLocked(); g != null; g = takeLocked()) {
      out.push(g);
    }
    while (drainSomeLocked(out, Integer.MAX_VALUE) != 0) {
      // until empty
    }
  }

  /**
   * shutdownNow's take: up to {@code max} Gs that have not started (never one waiting for a P on
   * its own M: that task runs to its end), so each hold of the lock is bounded. Returns how many.
   */
  int drainSomeLocked(GQueue out, int max) {
    transfer(max);
    int n = 0;
    for (G g = null; n < max && (g = takeHead()) != null; n++) {
      out.push(g);
    }
    shrinkIfSparse();
    publishSize();
    return n;
  }

  /**
   * The next live G off the array (withdrawn ones are dropped), then off the spill, whose Gs all
   * came after the array's; null if none.
   */
  private G takeHead() {
    while (count > 0) {
      G g = buf[head];
      buf[head] = null;
      head = (head + 1) & (buf.length - 1);
      count--;
      taken++;
      if (withdrawnArray != 0 && g.status() == G.Gdead) { // withdrawn: after a lost race, rare
        withdrawnArray--;
        continue;
      }
      return g;
    }
    if (spilled > 0) { // never withdrawn: withdraw finds only array slots and the injection side
      spilled--;
      return spill.pop();
    }
    return null;
  }

  /**
   * A burst must not pin a huge array forever, but a workload that refills it every millisecond
   * must not regrow it every time either (one that shrank after each batch grew again on the next
   * overflow: docs/benchmarks.md, "Per-task cost on the local path"). So it halves only after
   * min(capacity, 1024) takes found it at most a quarter full.
   */
  private void shrinkIfSparse() {
    if (buf.length > MIN_CAPACITY
        && count <= buf.length / 4
        && ++sparseTakes >= Math.min(buf.length, 1024)) {
      resize(Math.max(MIN_CAPACITY, buf.length / 2));
    }
  }

  /** Moves the array to a new one; false if the heap has no room for it (nothing changes). */
  private boolean resize(int capacity) {
    sparseTakes = 0;
    G[] next;
    try {
      next = new G[capacity];
    } catch (OutOfMemoryError e) {
      // Queueing goes on without it (append spills, a shrink waits): a G in hand here is
      // accepted, and an error thrown from under the lock would lose it.
      return false;
    }
    int mask = buf.length - 1;
    for (int i = 0; i < count; i++) {
      next[i] = buf[(head + i) & mask];
    }
    buf = next;
    head = 0;
    return true;
  }
}
