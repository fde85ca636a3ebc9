package dev.gmp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

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

  // A VarHandle, not a field updater: the field is plain (see status), and only the rare CASes
  // and racy readers go through it (design.md section 2, "How the orderings are spelled").
  private static final VarHandle STATUS;

  static {
    try {
      STATUS = MethodHandles.lookup().findVarHandle(G.class, "status", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

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

  /**
   * Go's atomicstatus: Gidle (0) at birth, no store needed. Not volatile: every store is plain
   * (see {@link #setStatus}), the CASes and the racy readers use {@link #STATUS}.
   */
  private int status;

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

  /**
   * The status as this thread last wrote it or was shown it: for the G's own M (its curg), and
   * for readers holding the scheduler lock (queued Gs, whose stores are made under it too). The
   * one store the owner does not make, sysmon's Grunning -> Gwaiting, comes after sysmon CASed
   * the G's P dead (Retake#retakeRunning), so an owner that must not act on a retaken G reads its
   * P's status (volatile) too: M#runningTaskP, and the P's CAS in Syscall#entersyscall.
   */
  int status() {
    return status; // plain: the reader's own store, or one ordered by the lock or the queue
  }

  /** The status for a racy reader (stats, the dump): some recent value, never a torn one. */
  int statusOpaque() {
    return (int) STATUS.getOpaque(this); // opaque: a count or a line of the dump, nothing decided
  }

  /**
   * A plain store, once per state change on the per-task path (newproc, execute, a take from the
   * injection side). Plain is enough because nothing reads other fields after seeing a status:
   * the G reaches another thread through a queue (the ring's release store, the runnext swap, the
   * scheduler lock) or through its M's curg (a release store made after this one), which publish
   * this store with everything before it; the only cross-thread decision on a status is
   * sysmon's Grunning -> Gwaiting CAS, and a CAS and a store to one field are ordered against
   * each other whatever the store's mode (a release store, before, was the same instruction on
   * x86). A volatile store would cost a fence per task, and a field updater's lazySet costs a
   * class check per call until its caller is compiled (docs/benchmarks.md, "The first
   * operations").
   */
  void setStatus(int s) {
    status = s;
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
