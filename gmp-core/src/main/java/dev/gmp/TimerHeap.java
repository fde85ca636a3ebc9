package dev.gmp;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;

/**
 * One P's timers (Go's {@code p.timers}): a 4-ary min-heap ordered by (when, seq), guarded by its
 * own lock word. The owner adds under it; thieves, sleepers and sysmon only ever {@code tryLock} it to
 * run due timers, and the scheduler-lock holders that take it (park, resize, tidy) take it
 * inside the scheduler lock, never the other way round, so the locks cannot deadlock.
 *
 * <p>{@link #nextWhen()} is the earliest deadline (or {@link Timers#NONE}), read without the lock
 * by the owner once per scheduling round and by parkers; it is the heap's word in Dekker pair F.
 * A cancelled entry stays until it reaches the top or the cancelled count passes a quarter of the
 * heap, when whoever holds the lock compacts (Go's zombie timers).
 */
final class TimerHeap {
  // Field updaters, not VarHandles: a fresh JVM runs these first calls interpreted or in C1,
  // where a VarHandle call is a chain of method-handle frames (CHANGELOG: hot-path atomics).
  private static final AtomicIntegerFieldUpdater<TimerHeap> CANCELLED =
      AtomicIntegerFieldUpdater.newUpdater(TimerHeap.class, "cancelledEntries");
  private static final AtomicLongFieldUpdater<TimerHeap> NEXT_WHEN = // writes only, as above
      AtomicLongFieldUpdater.newUpdater(TimerHeap.class, "nextWhen");
  private static final AtomicIntegerFieldUpdater<TimerHeap> SIZE =
      AtomicIntegerFieldUpdater.newUpdater(TimerHeap.class, "size");
  private static final AtomicIntegerFieldUpdater<TimerHeap> LOCKED =
      AtomicIntegerFieldUpdater.newUpdater(TimerHeap.class, "locked");

  /** Compaction only pays above this many cancelled entries. */
  static final int MIN_COMPACT = 64;

  /**
   * Compaction never shrinks the array below this many slots (1 KiB): the timeout pattern fills
   * a heap with MIN_COMPACT cancelled entries between compactions, and a smaller floor made every
   * compaction shrink the array and the next adds grow it again (10 bytes allocated per timer).
   */
  static final int KEEP_CAPACITY = 256;

  /**
   * The heap's lock word (0 free, 1 held): a CAS to take it, a release store to give it back.
   * Held for one sift or one batch of pops, never around user code or a park, so a waiter spins
   * and then yields rather than parking; the add's own full fence (Timers#added) is the StoreLoad
   * that Dekker F needs, so the release needs none. Package-private for one writer: an add that
   * fails with the lock held (a StackOverflowError at a call near the end of a deep caller's
   * stack) gives it back by a field store in its handler (volatile: it releases the heap writes
   * as unlock's release store would), which needs no frame (Timers#add).
   */
  volatile int locked;

  /**
   * Cancelled entries removed from this heap (by pops, cleanups, compaction, drains). Written
   * under the lock; volatile so that stats read it without the lock.
   */
  private volatile long removedCancelled;

  /**
   * Written under the lock (release, or a volatile store by an add: a reader that sees a
   * deadline sees the entry); read without it through {@link #nextWhen()}. The adder's full fence
   * after unlocking orders it before the read of the sleeper's deadline (Dekker F). Volatile so
   * that the read, once per findRunnable, is a plain field load in every tier (a VarHandle call
   * is a chain of method-handle frames in the interpreter and C1, where a fresh JVM's first
   * operations run).
   */
  private volatile long nextWhen = Timers.NONE;

  /**
   * Entries, cancelled ones included; written under the lock (release stores, setSize), read
   * racily through size(). Volatile only for the field updater.
   */
  private volatile int size;

  /** Cancelled entries still here: a hint (cancel adds without the lock), exact after compaction. */
  @SuppressWarnings("unused")
  private volatile int cancelledEntries;

  /**
   * Drained and its count handed over (takeCancelledCountLocked; the heap of a dead P): a cancel
   * that counts a cancelled entry here afterwards moves it to the executor's count (reclaimLateCancel).
   */
  private volatile boolean retired;

  private ScheduledTask<?>[] a = new ScheduledTask<?>[8];
  private int seq;

  /** Volatile read (at least acquire): pairs with the release writes; a lock-free hint. */
  long nextWhen() {
    return nextWhen;
  }

  private void setNextWhen(long w) {
    NEXT_WHEN.lazySet(this, w); // release: see nextWhen()
  }

  /** A racy count for stats and for tidy's first look (a volatile read: a plain load on x86). */
  int size() {
    return size;
  }

  boolean tryLock() {
    return LOCKED.compareAndSet(this, 0, 1); // CAS: acquire, one winner
  }

  void lock() {
    for (int spins = 0; !tryLock(); spins++) {
      if (spins < 64) {
        Thread.onSpinWait();
      } else {
        Thread.yield(); // the holder was descheduled mid-sift: let it finish
      }
    }
  }

  void unlock() {
    LOCKED.lazySet(this, 0); // release: our heap writes before the next holder's reads
  }

  /**
   * Cancels this heap accounts for: removed ones plus cancelled entries still in it, for stats.
   * Every cancel of a heap entry lands in exactly one of the two (ScheduledTask#enterHeap). Racy
   * reads, no lock (stats and dump never wait for a heap): a remover moves a cancel from one to
   * the other in two steps, out of the in-heap count first, and this reads the removed count
   * first, so a read between the steps misses it for that moment and never counts it twice.
   */
  long cancelledCount() {
    long removed = removedCancelled; // volatile, before the in-heap count (above)
    return removed + cancelledEntries;
  }

  private void setSize(int n) {
    SIZE.lazySet(this, n); // release, no fence: racy readers want a recent value, not an ordering
  }

  int cancelledEntries() {
    return cancelledEntries;
  }

  /** The live count for stats: entries less the cancelled ones; racy reads, no lock. */
  int live() {
    return Math.max(0, size() - cancelledEntries);
  }

  /**
   * Adds t, unless it was cancelled out of every heap (ScheduledTask#enterHeap). Returns whether
   * t became the earliest entry, i.e. lowered {@link #nextWhen()}: only such an add can make the
   * sleeper's deadline too late (Timers#add). Lock held.
   */
  boolean addLocked(ScheduledTask<?> t) {
    int n = size;
    ScheduledTask<?>[] h = a;
    if (n == h.length) {
      // 1.5x, as STPE's queue: memory per timer on par. Before t enters: an OutOfMemoryError
      // here changes nothing (the schedule call fails, or a move tries again).
      h = Arrays.copyOf(h, n + (n >> 1) + 1);
      a = h;
    }
    t.heap = this;
    if (!t.enterHeap()) { // after the heap write: a canceller that sees it in a heap sees which
      t.heap = null;
      return false;
    }
    // schedule() may run near the end of a deep caller's stack, and the JVM throws a
    // StackOverflowError at a call. So the size is published with t parked past the end (an
    // error there leaves t outside, every other entry in place), and the sift and the deadline
    // after it call nothing: a sift cut short by an error would lose the entry it had moved.
    int sq = seq++;
    t.seq = sq;
    h[n] = t;
    setSize(n + 1);
    long when = t.when;
    int i = n;
    while (i > 0) { // siftUp, with less(t, parent) spelled out (no call)
      int parent = (i - 1) >>> 2;
      ScheduledTask<?> p = h[parent];
      if (when > p.when || (when == p.when && sq - p.seq >= 0)) { // seq wraps: by difference
        break;
      }
      h[i] = p;
      i = parent;
    }
    h[i] = t;
    if (i != 0) {
      return false; // nextWhen unchanged: an earlier (or equal, older) entry stays on top
    }
    // Dekker F, the adder's store: a volatile store rather than the release store of setNextWhen
    // (a call); it is paid only by an add that lowers the deadline, which fences anyway (added).
    nextWhen = when;
    return true;
  }

  /** Pops the earliest entry if it is due at {@code now}, skipping cancelled ones; else null. */
  ScheduledTask<?> pollDueLocked(long now) {
    for (; ; ) {
      if (size == 0) {
        return null;
      }
      ScheduledTask<?> t = a[0];
      if (t.isCancelled()) {
        removeTop();
        uncount(t);
        continue;
      }
      if (t.when > now) {
        return null;
      }
      removeTop();
      leftLive(t);
      return t;
    }
  }

  /** Drops cancelled entries at the top, so that nextWhen is a timer that will fire. Lock held. */
  void cleanHeadLocked() {
    while (size != 0 && a[0].isCancelled()) {
      ScheduledTask<?> t = a[0];
      removeTop();
      uncount(t);
    }
  }

  /**
   * A cancelled entry leaves (lock held): it moves from the in-heap count to the removed count.
   * Out of the in-heap count first, as every move of a cancel between two counts: a racy reader
   * (cancelledCount: removed, then in-heap) may miss it for a moment, never count it twice.
   */
  private void uncount(ScheduledTask<?> t) {
    if (t.uncountCancel()) {
      CANCELLED.getAndAdd(this, -1); // atomic: cancel adds concurrently without the lock
    }
    removedCancelled++;
    t.heap = null; // after the CAS, as in leftLive
  }

  /** A live entry leaves to fire or move; if a cancel counted it meanwhile, take that back. */
  private void leftLive(ScheduledTask<?> t) {
    if (!t.leaveLive()) {
      CANCELLED.getAndAdd(this, -1); // atomic, as in uncount, and first, as there
      removedCancelled++;
    }
    // After the CAS: a canceller reads heap before its own CAS, so one that beat ours counted
    // itself here, where we take it back. Cleared before it, heap read null let a canceller
    // count itself elsewhere while we took one back here: pendingTimers stayed one too high.
    t.heap = null;
  }

  /**
   * A cancel of one of our entries: counts the cancelled entry and compacts when they pass a quarter of
   * the heap (tryLock: the canceller never waits; the next one, or the owner, compacts instead).
   */
  void noteCancelled() {
    int z = CANCELLED.getAndAdd(this, 1) + 1; // atomic: any thread cancels
    // A canceller deep in a recursion skips the compaction (a later cancel or add does it).
    if (z >= MIN_COMPACT && z > size() / 4 && StackGuard.hasRoom() && tryLock()) {
      try {
        compactLocked();
      } finally {
        unlock();
      }
    }
  }

  /**
   * Removes every cancelled entry, and every entry a caller's own run() finished (a periodic
   * task that threw, a one-shot run early: it would only fire into a no-op, and after shutdown
   * it held termination up until its deadline), and rebuilds the heap (Floyd, O(n)). Lock held.
   */
  void compactLocked() {
    int n = size;
    int k = 0;
    int counted = 0;
    int removed = 0;
    for (int i = 0; i < n; i++) {
      ScheduledTask<?> t = a[i];
      if (t.isDone()) { // one state read per kept entry
        if (!t.isCancelled() && t.leaveLive()) { // CAS: a cancel may count it first
          t.heap = null; // finished by a caller's run(): out as a live entry, no cancel to count
          continue;
        }
        // Cancelled (a leaveLive that fails means a cancel counted it).
        removed++;
        if (t.uncountCancel()) {
          counted++;
        }
        t.heap = null; // after the CAS (ScheduledTask#cancel reads it before its own)
      } else {
        a[k++] = t;
      }
    }
    for (int i = k; i < n; i++) {
      a[i] = null;
    }
    CANCELLED.getAndAdd(this, -counted); // atomic: cancels racing the scan add without the lock
    removedCancelled += removed; // after, as in uncount: a racy reader may read low, never high
    setSize(k);
    for (int i = k < 2 ? -1 : (k - 2) >>> 2; i >= 0; i--) { // Floyd: last parent down to the root
      siftDown(i, a[i]);
    }
    if (a.length > KEEP_CAPACITY && k < a.length / 4) {
      try {
        a = Arrays.copyOf(a, a.length / 2); // memory follows the live count
      } catch (OutOfMemoryError e) {
        // the heap is consistent: keep the larger array (a later compaction shrinks it)
      }
    }
    setNextWhen(k == 0 ? Timers.NONE : a[0].when);
  }

  /** Takes every entry out (cancelled ones dropped), into {@code out}. Lock held. */
  void drainLocked(ArrayList<ScheduledTask<?>> out) {
    out.ensureCapacity(out.size() + size); // before taking any: an error leaves every entry here
    for (int i = 0; i < size; i++) {
      ScheduledTask<?> t = a[i];
      a[i] = null;
      if (!t.isCancelled()) {
        leftLive(t);
        if (!t.isCancelled()) {
          out.add(t);
        }
      } else {
        uncount(t);
      }
    }
    setSize(0);
    setNextWhen(Timers.NONE);
  }

  /** A drained heap leaves the live Ps: hands its cancel count over and starts again. Lock. */
  long takeCancelledCountLocked() {
    retired = true; // volatile, before the getAndSet: Dekker with a late cancel (Timers#cancelled)
    long n = removedCancelled + CANCELLED.getAndSet(this, 0); // atomic: racing cancels
    removedCancelled = 0;
    return n;
  }

  boolean retired() {
    return retired;
  }

  /**
   * A cancel counted a cancelled entry here, then found the heap retired: takes one unit back (false if
   * none is left: the hand-over took it), for the caller to count elsewhere. Units are alike, so
   * each is moved once, by the hand-over or by one late canceller.
   */
  boolean reclaimLateCancel() {
    for (int z = cancelledEntries; z > 0; z = cancelledEntries) {
      if (CANCELLED.compareAndSet(this, z, z - 1)) { // CAS: other cancels and the owner race us
        return true;
      }
    }
    return false;
  }

  /** Cancels and drops the periodic entries (shutdown's policy); returns how many. Lock held. */
  int cancelPeriodicLocked() {
    int n = 0;
    for (int i = 0; i < size; i++) {
      // cancelQuietly: no cancelled-entry hook; compactLocked below removes and counts it
      if (a[i].isPeriodic() && a[i].cancelQuietly()) {
        n++;
      }
    }
    compactLocked();
    return n;
  }

  /** The array's length (tests: compaction keeps it between rounds of the timeout pattern). */
  int capacityLocked() {
    return a.length;
  }

  // ---------------------------------------------------------------- 4-ary heap

  private void removeTop() {
    int n = size - 1;
    ScheduledTask<?> last = a[n];
    a[n] = null;
    setSize(n);
    if (n > 0) {
      siftDown(0, last);
    }
    setNextWhen(n == 0 ? Timers.NONE : a[0].when);
  }

  private static boolean less(ScheduledTask<?> x, ScheduledTask<?> y) {
    return x.when < y.when || (x.when == y.when && x.seq - y.seq < 0); // wraps safely
  }

  private void siftDown(int i, ScheduledTask<?> t) {
    int n = size;
    for (; ; ) {
      int c = 4 * i + 1;
      if (c >= n) {
        break;
      }
      int best = c;
      int end = Math.min(c + 4, n);
      for (int j = c + 1; j < end; j++) {
        if (less(a[j], a[best])) {
          best = j;
        }
      }
      if (!less(a[best], t)) {
        break;
      }
      a[i] = a[best];
      i = best;
    }
    a[i] = t;
  }
}
