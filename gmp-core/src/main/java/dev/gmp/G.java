package dev.gmp;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;

/**
 * G: one task and its scheduling state (Go's {@code g}). A Java task has no stack of its own to
 * save; the stack is the worker thread's while it runs, which is why a G that must wait for a P in
 * the middle of a task (exitsyscall) is "locked" to its M, as Go's lockedg is.
 */
@SuppressWarnings("serial") // never serialized: AtomicInteger is extended for its ops only
final class G extends AtomicInteger {
  // Go's values, so a reader can cross-check runtime2.go.
  static final int Gidle = 0;
  static final int Grunnable = 1;
  static final int Grunning = 2;
  static final int Gsyscall = 3;
  static final int Gwaiting = 4;
  static final int Gdead = 6; // also a queued G taken back by its submitter (GlobalQueue#withdraw)

  // Field updaters, not VarHandles, and volatile fields read directly: why, and how an ordering
  // comment below reads, in docs/design.md section 2 ("How the orderings are spelled").
  private static final AtomicLongFieldUpdater<G> U_STAMP =
      AtomicLongFieldUpdater.newUpdater(G.class, "stamp");

  // The status is the inherited AtomicInteger value (Gidle = 0 at birth, no volatile store):
  // its lazySet and compareAndSet go straight to the JDK's intrinsics, where a field updater
  // runs an access check that costs more than the store before the JIT has compiled its caller
  // (design.md section 2).

  /**
   * The task; null while the G sits on a free list. Published to other Ms by the queue it is on.
   * An {@link M} for an M's stand-in ({@link M#asLocked}): the G to "run" is that M's, whose task
   * waits on its thread for a P (Go's lockedg; SchedulingLoop#startlockedm hands it ours). Users
   * cannot submit an M, so ordinary Gs need no lockedm field of their own.
   */
  Runnable task;

  /** goroutine id, from the P's cache of 16 (Go's goidcache). */
  long goid;

  /** Intrusive link for the global queue, batches and free lists (Go's schedlink). */
  G schedlink;

  /**
   * Global-queue bookkeeping for outside submissions, guarded by the scheduler lock: the G's
   * position in the global queue's array once moved there from the injection side (-1 before).
   * An outside submitter that lost the race with shutdown takes its task back before anyone took
   * the G by setting its status to {@link #Gdead} (GlobalQueue#withdraw). A withdrawn G stays
   * where it is and takes drop it, so withdrawing never walks a queue under the lock, and takes
   * never touch a G to decide.
   */
  long qpos = -1;

  /**
   * One word, three lives, so that a G is 48 bytes (ForkJoinPool's execute wraps a task in 32;
   * every byte is allocated per task, and a fresh JVM pays a page fault for each new 4 KB of
   * heap): until the G starts, when it became runnable if it was sampled for the scheduling
   * latency (System.nanoTime, {@link SchedLatency}; 0 if not sampled), which execute reads and
   * clears before the task runs; from then on, for the dump (never decided on), since when it is
   * in its current state: when sysmon first saw it running, or when its current blocking call
   * began (entersyscall; exitsyscall's slow path also feeds it to the calls' average length, a
   * hint).
   * Opaque: a reader needs some recent value, not an order with other words; a stale one shows a
   * wrong age, never a wrong state (the state comes from {@link #status()}). The ready stamp is
   * published with the G by the queue it goes through, like {@link #task}.
   */
  private volatile long stamp;

  G() {}

  /** Since when it is in its current state (0: not known), for the dump. */
  long since() {
    return stamp;
  }

  /**
   * sysmon's first sight of this G running (SysmonRetake#retakeFromTask), or entersyscall's
   * start of a call; reset by gfput.
   */
  void setSince(long t) {
    U_STAMP.lazySet(this, t);
  }

  /** A sampled G made runnable at {@code t} (before it is queued: the queue publishes it). */
  void stampReady(long t) {
    U_STAMP.lazySet(this, t);
  }

  /** The ready stamp (0 if none), cleared: execute's, before the task runs. */
  long takeReadyStamp() {
    long t = stamp; // a plain load on x86; written by whoever queued this G, before the queue
    if (t != 0) {
      U_STAMP.lazySet(this, 0); // only this M touches the G now: no one to order against
    }
    return t;
  }

  int status() {
    // Opaque: readers (stats, sysmon) only need some recent value; decisions are made by CAS.
    return get();
  }

  void setStatus(int s) {
    // Release: a reader that sees the new state also sees the fields written before it.
    lazySet(s);
  }

  boolean casStatus(int from, int to) {
    // Full CAS: sysmon and the owning M may race on the same transition (Grunning -> Gwaiting).
    return compareAndSet(from, to);
  }

  static String statusName(int s) {
    return switch (s) {
      case Gidle -> "Gidle";
      case Grunnable -> "Grunnable";
      case Grunning -> "Grunning";
      case Gsyscall -> "Gsyscall";
      case Gwaiting -> "Gwaiting";
      case Gdead -> "Gdead";
      default -> "G?" + s;
    };
  }

}
