package dev.gmp;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * G: one task and its scheduling state (Go's {@code g}). A Java task has no stack of its own to
 * save; the stack is the worker thread's while it runs, which is why a G that must wait for a P in
 * the middle of a task (exitsyscall) is "locked" to its M, as Go's lockedg is.
 */
class G { // not final: a submitted task's future is its own G (HelpingFuture)
  // Go's values, so a reader can cross-check runtime2.go.
  static final int Gidle = 0; // also an injected G until a take moves it onto the array
  static final int Grunnable = 1;
  static final int Grunning = 2;
  static final int Gsyscall = 3;
  static final int Gwaiting = 4;
  static final int Gdead = 6; // also a queued G taken back by its submitter (GlobalQueue#withdraw)
  static final int Gnew = 7; // a future's G not yet queued (HelpingFuture#claimQueue); unused in Go

  private static final AtomicIntegerFieldUpdater<G> STATUS =
      AtomicIntegerFieldUpdater.newUpdater(G.class, "status");

  // How an ordering comment below reads: design.md section 2 ("How the orderings are spelled").

  // 32 bytes in all (a 12-byte header, the status and four 4-byte fields), as ForkJoinPool's
  // execute wraps a task in 32: every byte is allocated per task, and a fresh JVM pays a page
  // fault for each new 4 KB of heap (docs/benchmarks.md, "Bytes per task"). What a G needs
  // rarely lives elsewhere: a sampled G's ready stamp in its task's wrapper (SchedLatency.Sampled),
  // the age the dump shows on its M (M#since).

  /**
   * The task; null while the G sits on a free list. Published to other Ms by the queue it is on.
   * An {@link M} for an M's stand-in ({@link M#asLocked}): the G to "run" is that M's, whose task
   * waits on its thread for a P (Go's lockedg; SchedulingLoop#startlockedm hands it ours). Users
   * cannot submit an M, so ordinary Gs need no lockedm field of their own. A {@link
   * SchedLatency.Sampled} for a sampled G: {@link #userTask} is the submitted one.
   */
  Runnable task;

  /** Go's atomicstatus: Gidle (0) at birth, no store needed. */
  private volatile int status;

  /** Intrusive link for the global queue, batches and free lists (Go's schedlink). */
  G schedlink;

  /**
   * goroutine id, from the P's cache of 16 (Go's goidcache): the low 32 bits of Go's 64-bit id,
   * shown unsigned ({@link #id}). It names a G in the dump and JFR and picks the sampled ones;
   * nothing decides on it being unique, so after 2^32 tasks it may repeat.
   */
  int goid;

  /**
   * Global-queue bookkeeping for outside submissions, guarded by the scheduler lock: the low 32
   * bits of the G's position in the global queue's array, written when a take moves it there from
   * the injection side (an injected G is Gidle until then). An outside submitter that lost the
   * race with shutdown takes its task back before anyone took the G (GlobalQueue#withdraw): the
   * array's slot for that position still holding the G says it is untaken. A withdrawn G is
   * marked {@link #Gdead} and stays where it is, and takes drop it, so withdrawing never walks a
   * queue under the lock.
   */
  int qpos;

  G() {}

  /** The goid, unsigned: what the dump and JFR show. */
  long id() {
    return Integer.toUnsignedLong(goid);
  }

  /** The task as submitted: {@link #task} without a sampling wrapper. */
  Runnable userTask() {
    return SchedLatency.unwrap(task);
  }

  int status() {
    // Opaque: readers (stats, sysmon) only need some recent value; decisions are made by CAS.
    return status;
  }

  void setStatus(int s) {
    // Release: a reader that sees the new state also sees the fields written before it.
    STATUS.lazySet(this, s);
  }

  boolean casStatus(int from, int to) {
    // Full CAS: sysmon and the owning M may race on the same transition (Grunning -> Gwaiting).
    return STATUS.compareAndSet(this, from, to);
  }

  static String statusName(int s) {
    return switch (s) {
      case Gidle -> "Gidle";
      case Grunnable -> "Grunnable";
      case Grunning -> "Grunning";
      case Gsyscall -> "Gsyscall";
      case Gwaiting -> "Gwaiting";
      case Gdead -> "Gdead";
      case Gnew -> "Gnew";
      default -> "G?" + s;
    };
  }

}
