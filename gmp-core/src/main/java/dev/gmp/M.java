package dev.gmp;

import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.concurrent.locks.LockSupport;

/**
 * M: a worker thread (Go's {@code m}). Threads come from the executor's ThreadFactory; the M is
 * the Runnable they run. An M runs tasks only while it holds a P; without one it parks on the
 * idle-M list until {@link Idle#startm} hands it a P through {@link #nextp}.
 *
 * <p>There is no g0: Java gives scheduling code no separate stack to switch to, so the scheduler
 * loop simply runs on the worker thread between tasks (docs/design.md).
 */
final class M implements Runnable {

  // Field updaters, not VarHandles, and volatile fields read directly: why, and how an ordering
  // comment below reads, in docs/design.md section 2 ("How the orderings are spelled").
  private static final AtomicIntegerFieldUpdater<M> U_NOTE =
      AtomicIntegerFieldUpdater.newUpdater(M.class, "note");
  private static final AtomicIntegerFieldUpdater<M> U_LIFE =
      AtomicIntegerFieldUpdater.newUpdater(M.class, "life");
  private static final AtomicReferenceFieldUpdater<M, P> U_NEXTP =
      AtomicReferenceFieldUpdater.newUpdater(M.class, P.class, "nextp");
  private static final AtomicIntegerFieldUpdater<M> U_SPARE =
      AtomicIntegerFieldUpdater.newUpdater(M.class, "spare");
  private static final AtomicLongFieldUpdater<M> U_STEALS =
      AtomicLongFieldUpdater.newUpdater(M.class, "steals");
  private static final AtomicLongFieldUpdater<M> U_SINCE =
      AtomicLongFieldUpdater.newUpdater(M.class, "since");
  private static final AtomicLongFieldUpdater<M> U_SINCE_TASK =
      AtomicLongFieldUpdater.newUpdater(M.class, "sinceTask");

  // note states (Go's m.park note, with a flag to skip unpark while the sleeper still spins)
  private static final int NOTE_CLEAR = 0;
  private static final int NOTE_WOKEN = 1;
  private static final int NOTE_PARKED = 2;

  // life states: the check-in protocol between Threads.newm, the thread and sysmon's watchdog
  static final int NEW = 0; // created by startm, its thread not started yet
  static final int STARTING = 1; // thread started, run() not reached yet
  static final int RUNNING = 2; // run() checked in: the M is the thread's
  static final int DEAD = 3; // written off (never checked in) or exited

  final Scheduler sched;
  final long id;
  Thread thread;

  /** When the thread was started (Threads.newm), for the check-in watchdog. */
  long startedAt;

  /**
   * Thread.start() has returned for this M's thread (Threads.newm): only then does a thread
   * still NEW mean one that will never run. Volatile: the watchdog reads it without the newm
   * caller's lock, and the write follows start(), which leaves the thread past NEW.
   */
  volatile boolean startReturned;

  /**
   * Threads#outcomes when this M was made: its failure backs creation off only if no pause began
   * and no check-in ended one since (an attempt older than the last outcome). Lock held.
   */
  long attempt;

  /**
   * The executor, held strongly while this M is awake: a task never runs on an executor the
   * collector may take, so current() finds it and the Cleaner cannot shut down an executor that
   * is running tasks just because the program dropped it (its tasks may still submit through
   * current()). Set when the M is made and when a waker unparks it, both on the submitting thread
   * while the executor is surely reachable (its execute or submit); dropped before a park and
   * when the M is freed, so an idle executor the program dropped is still collected and shut
   * down. Plain: reachability needs no ordering, and racing writers write the same value.
   */
  Object pinned;

  /** The thread that runs this M (set by run(): a ThreadFactory may wrap the Runnable). */
  Thread runner;

  /**
   * The thread's kernel stat file for sysmon's BlockDetector, or null (off Linux, or the detector
   * switched off). Written by run() before the M first acquires a P, like runner. A String: the
   * M finds it with java.io, so that its start does not initialise NIO's file system (BlockDetector
   * #ownStatFile); sysmon makes the Path when it first reads the file.
   */
  String osStat;

  /** sysmon's private view of this M's thread for the block detector (sysmon's thread only). */
  final BlockDetector.Sample det = new BlockDetector.Sample();

  /** The P held; touched by this M's own thread only (others look at P.m()). */
  P p;

  /**
   * The P handed over by startm/startlockedm; written before notewakeup, read after the wake.
   * Volatile: an idle M's hand-off may be taken back by an M that needs a P while this one is
   * late to wake (Spares#takeLateHandoffLocked); {@link #takeNextp} and that CAS decide who has it.
   */
  volatile P nextp;

  /** The P held when entering a syscall (Go's oldp). */
  P oldp;

  /** The P status token of the current blocking call (see P.enterSyscall). */
  long syscallToken = -1;

  /** Whether this M is spinning; written by startm before the wake or by the M itself. */
  boolean spinning;

  /** Whether the G returned by findRunnable came from runnext and inherits the time slice. */
  boolean inheritTime;

  /** Link in the idle-M list and whether it is on it (guarded by the scheduler lock). */
  M schedlink;

  /**
   * This M's stand-in on the global queue while its task waits there for a P (Syscall): a G
   * whose task is this M (G#task). One per M, made once: that path allocates nothing.
   */
  final G asLocked = lockedStandIn(this);

  private static G lockedStandIn(M m) {
    G g = new G();
    g.task = m;
    return g;
  }
  boolean onIdleList;

  /**
   * 1 while counted in Spares#count: the M finishes its task without a live P (its call lost
   * the P, or sysmon retook it), or counted itself for a call that work waits behind
   * (Syscall#entersyscall). Set by whoever counts it (markSpare), cleared by the M itself.
   */
  private volatile int spare;

  /** The token of the call this M counted itself for, while it runs (0: none); own writes. */
  volatile long precountTok;

  /**
   * The next sleep skips the idle spin: set by the M itself when it lets go of a P that was
   * taken from under its task (it was a spare). Its next hand-off comes from a later retake,
   * never within the spin window, so a returning spare's spin is CPU spent for nothing (measured
   * with the JDK HttpServer: docs/design.md, section 3.1).
   */
  boolean parkAtOnce;

  /** Its thread did not check in in time and its P was taken back (Threads). Lock held. */
  boolean late;

  /** Set under the lock with the wake-up when the executor terminates: the M must exit. */
  boolean exitRequested;

  /** Decided to leave past keepAlive and no longer counted as checked in (Threads). Lock held. */
  boolean leaving;

  /** Inside Idle#launch's thread start (volatile: sysmon's detector reads it). */
  volatile boolean startingThread;

  /** Took a P for due timers (TimerSleeper#sleep): findRunnable runs every P's due timers first. */
  boolean timerWake;

  /** Timers#runDue's scratch batch, allocated on first use (owner only). */
  ScheduledTask<?>[] timerBatch;

  /** xorshift state for the steal order. */
  int rand;

  /**
   * Runs in place that a StackOverflowError cut short after the task ran, whose end this M's
   * thread owes (HelpingFuture#runInPlace): how many, and two lists linked through each future's
   * runner field, one per outcome. Owner only: written and read on this M's thread alone.
   */
  int unendedRuns;

  HelpingFuture<?> unendedSucceeded;
  HelpingFuture<?> unendedFailed;

  private volatile int note;

  private volatile int life = NEW;

  /**
   * The task this M runs, and how many it has finished: one writer (this M), written twice and
   * once per task. Plain with explicit fences (setRelease and getAcquire spelled as fences)
   * rather than volatile fields written through updaters, whose class checks are JNI or runtime
   * calls until C2 compiles the caller: where a fresh JVM runs its first tasks (docs/design.md,
   * section 2). Other threads load and then fence; the owner reads its own writes. The task sits
   * in slot {@link CardIsland#PAD} of a card island, the M's own from its first task (on its own
   * thread, never under the lock that creates Ms), so its two stores per task mark a card no
   * other M's do (CardIsland).
   */
  private G[] curgIsland = CardIsland.UNSTARTED_M;

  private static final int CURG = CardIsland.PAD;

  private long completed;

  /**
   * Futures run in place on this M's thread whose G the waiter took back out of its queue
   * (HelpingFuture#runInPlaceIfUnstarted), so that no M's loop counts them: part of the completed
   * tasks in stats. Kept apart from {@link #completed}, which names the running task for sysmon.
   * Single writer, plain, as the per-task count it is: a shared adder put a CAS on every node of
   * a fork-join recursion.
   */
  private long ranInPlace;

  /**
   * sysmon's claim on the task this M runs, for a retake of the P it names (Retake#retakeRunning):
   * Dekker pair J with the M's next task. sysmon writes the claim, fences, and reads the M's
   * completed count; the M stores the count at a task's end, takes its next G by a CAS or under
   * the lock (findRunnable), and reads the claim before it starts that G ({@link #claimed}). So
   * either sysmon sees the task ended and withdraws, or the M sees the claim and settles it under
   * the lock before it starts anything. Until 2026-12-06 sysmon checked the task under the lock,
   * then marked the P dead, and an M that ended the task in between started its next one on that
   * P, which then computed beside the P's replacement: parallelism + 1. Written under the lock.
   */
  private volatile P retakeClaim;

  private volatile long steals;

  /**
   * For the dump, kept here rather than in every G: since when this M's task number {@link
   * #sinceTask} (its completed count while that task runs) is in its current state: sysmon's
   * first sight of it running (SysmonRetake), or its current blocking call's start
   * (Syscall#entersyscall, whose slow return also feeds it to the calls' average length, a hint).
   */
  private volatile long since;

  private volatile long sinceTask = -1;

  M(Scheduler sched, long id) {
    this.sched = sched;
    this.id = id;
    this.rand = (int) (id * 0x9E3779B9L) | 1;
  }

  /**
   * The thread's entry point. It first checks in (STARTING -> RUNNING); an M that sysmon's
   * watchdog already wrote off (its thread came too late, or a wrapping Runnable ran it twice)
   * returns at once and touches nothing: its P and counters were given back then.
   */
  @Override
  public void run() {
    if (!sched.threads.checkIn(this)) { // written off: late and not needed, or never to run
      return;
    }
    runner = Thread.currentThread();
    try {
      if (Switches.BLOCK_DETECT) {
        osStat = ownStatFile();
      }
      ThreadTable.register(this);
      SchedulingLoop.mstart(this);
    } catch (SchedulingLoop.MExit e) {
      // the way out of mstart's loop: nothing to report
    } finally {
      sched.threads.mexit(this); // frees the M, and its pin (Threads#freemLocked)
    }
  }

  /**
   * On our own thread: /proc/thread-self names it. Null if the heap has no room for the name: the
   * detector then does without this M's state (an M that died here, checked in and never
   * exited, kept the executor from terminating).
   */
  private static String ownStatFile() {
    try {
      return BlockDetector.ownStatFile();
    } catch (OutOfMemoryError e) {
      return null;
    }
  }

  int life() {
    return life; // volatile: the watchdog decides on it
  }

  void setLife(int s) {
    life = s; // volatile: newm's STARTING must be visible before start()
  }

  boolean casLife(int from, int to) {
    return U_LIFE.compareAndSet(this, from, to); // CAS: run()'s check-in races the watchdog
  }

  /**
   * The P on which this M runs a task of {@code s}, or null: not one of s's Ms, no P, no task, a
   * task inside blocking() or retaken by sysmon. Read on the M's own thread (or, for a virtual
   * thread, on its carrier's). The task's status is plain (G#status) and may miss sysmon's
   * Grunning -> Gwaiting; the P's volatile status read after it guards that, since a retake CASes
   * the P dead before it marks the G waiting (Retake#retakeRunning).
   */
  P runningTaskP(Scheduler s) {
    if (sched != s) {
      return null;
    }
    P pp = p;
    G cur = curgIsland[CURG]; // plain: our own write
    return pp != null && cur != null && cur.status() == G.Grunning && pp.status() == P.Prunning
        ? pp
        : null;
  }

  /** The current task, read by another thread (sysmon, stats, the dump). */
  G curg() {
    G g = curgIsland[CURG];
    VarHandle.acquireFence(); // acquire: the reader then reads the G's own fields
    return g;
  }

  /**
   * mexit: the island goes back to the shared empty one. Plain: a reader that still sees the old
   * array sees no task in it either (curg was cleared before).
   */
  void dropIsland() {
    curgIsland = CardIsland.UNSTARTED_M;
  }

  /** The array that holds curg (tests). */
  G[] curgIslandForTest() {
    return curgIsland;
  }

  /** The current task, read by this M's own thread (or a virtual thread on it): its own write. */
  G curgOwn() {
    return curgIsland[CURG];
  }

  void setCurg(G g) {
    G[] island = curgIsland;
    // Here rather than in run(): tests and stress tests set curg on Ms that have no thread, and
    // the shared island must stay empty.
    if (island == CardIsland.UNSTARTED_M) {
      // Plain: a reader that sees the old array sees no task, as it would a moment earlier.
      curgIsland = island = CardIsland.allocate(1);
    }
    VarHandle.releaseFence(); // release: pairs with curg()'s fence; the G was set up before
    island[CURG] = g;
  }

  /** The count, read by this M itself or under the lock once it has exited. */
  long completed() {
    return completed;
  }

  /** Tasks this M ended, in its loop or run in place: stats' count, read by any thread. */
  long tasksEnded() {
    long c = completedAcquire();
    return c + ranInPlace; // plain: a count another thread may read a little stale
  }

  /** A run in place whose G left the queue: on this M's own thread only. */
  void incRanInPlace() {
    ranInPlace = ranInPlace + 1; // plain: single writer; stats read it racily (tasksEnded)
  }

  long completedAcquire() {
    long c = completed;
    VarHandle.acquireFence(); // acquire: pairs with incCompleted's fence
    return c;
  }

  void incCompleted() {
    // Release, single writer: sysmon that sees the new count also sees curg cleared before it,
    // so (completed, curg) read in that order names one task (SysmonRetake.retakeFromTask).
    VarHandle.releaseFence();
    completed = completed + 1;
  }

  /**
   * Whether sysmon has claimed a task of this M for a retake (Dekker J, the M's read: after the
   * take of the G about to start). Volatile: plain on x86 and ARM's ldar, once per task.
   */
  boolean claimed() {
    return retakeClaim != null;
  }

  /** sysmon (a retake) or a shrink (Resize) sets a claim, the M or sysmon clears it (lock held). */
  void setClaimLocked(P pp) {
    retakeClaim = pp; // volatile: the Dekker J write
  }

  /**
   * Task number {@code task} of this M is in its current state since {@code t}. Opaque both: a
   * reader that pairs them wrongly shows a wrong age for one look, never a wrong state.
   */
  void setSince(long task, long t) {
    U_SINCE.lazySet(this, t);
    U_SINCE_TASK.lazySet(this, task);
  }

  /** The last {@link #setSince} time, whatever its task (this M's own call's start). */
  long since() {
    return since;
  }

  /** Since when the current task is in its state, or 0 if not known (the dump). */
  long sinceCurrent() {
    long t = since;
    return sinceTask == completedAcquire() ? t : 0;
  }

  long steals() {
    return steals;
  }

  void incSteals() {
    U_STEALS.lazySet(this, steals + 1); // single writer
  }

  int nextRandom() {
    int x = rand;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    rand = x;
    return x & Integer.MAX_VALUE;
  }

  boolean spare() {
    return spare != 0;
  }

  /**
   * Counts this M, with a budget reservation in hand, if nobody has. CAS: a call counting itself
   * races sysmon counting it for a retake of its running task; the loser gives its place back.
   */
  boolean markSpare() {
    return U_SPARE.compareAndSet(this, 0, 1);
  }

  /** The M itself stops being a spare (volatile: a retake reading it set relies on it). */
  void clearSpare() {
    spare = 0;
  }

  /** The woken M's side of a hand-off: getAndSet, so it and a take-back's CAS have one winner. */
  P takeNextp() {
    if (Mutations.LATE_HANDOFF_NO_CAS) {
      P pp = nextp;
      Thread.onSpinWait();
      nextp = null;
      return pp;
    }
    return U_NEXTP.getAndSet(this, null);
  }

  /** Takes back a hand-off of pp this M has not picked up (Spares#takeLateHandoffLocked). */
  boolean cancelNextp(P pp) {
    if (Mutations.LATE_HANDOFF_NO_CAS) {
      if (nextp != pp) {
        return false;
      }
      Thread.onSpinWait();
      nextp = null;
      return true;
    }
    return U_NEXTP.compareAndSet(this, pp, null); // CAS: races takeNextp for the same P
  }

  // ---------------------------------------------------------------- note (park / unpark)

  /**
   * notewakeup. Returns true when the thread was parked and had to be unparked. getAndSet is a
   * full barrier: everything the waker wrote before (nextp, spinning, exitRequested) is visible
   * to the sleeper once it sees NOTE_WOKEN.
   */
  boolean wakeup() {
    int prev = U_NOTE.getAndSet(this, NOTE_WOKEN);
    if (prev == NOTE_PARKED) {
      pinned = sched.owner.get(); // after its park cleared it (before its CAS to PARKED)
      LockSupport.unpark(thread);
      return true;
    }
    return false;
  }

  /**
   * notesleep: waits until {@link #wakeup()}. Spins through the idle strategy first (if enabled),
   * then parks. Interrupts that arrive while idle were aimed at a task that already finished, so
   * they are dropped, never carried into the next task.
   *
   * @return false if {@code timeoutNanos > 0} elapsed without a wake-up
   */
  boolean sleep(long timeoutNanos) {
    return sleep(timeoutNanos, null);
  }

  /**
   * {@link #sleep(long)} for the timer sleeper: also returns false, early, once {@code
   * kick.kicked} is set (an adder's unpark follows its write, so a kick is never slept through),
   * and skips the idle spin (it is about to sleep for a deadline, not for a hand-off).
   */
  boolean sleep(long timeoutNanos, TimerSleeper kick) {
    // Spin on the note for a few microseconds before parking (as ForkJoinPool's deactivate
    // does): a wake-up that comes meanwhile costs the waker no unpark and us no park, which on
    // the JVM also saves most of a park's wake-up latency (docs/benchmarks.md, "Ablation").
    int spins = parkAtOnce || kick != null ? 0 : Switches.IDLE_SPINS;
    parkAtOnce = false;
    for (int i = spins; i > 0; i--) {
      // Volatile read: the waker's getAndSet published nextp/spinning before WOKEN.
      if (note == NOTE_WOKEN) {
        note = NOTE_CLEAR;
        return true;
      }
      Thread.onSpinWait();
    }
    // Before the CAS: a waker that sees PARKED pins the executor again after this (wakeup). No
    // local keeps it meanwhile: a parked interpreted frame's locals count as live references.
    pinned = null; // an executor the program dropped may go while we park (field doc)
    // CAS: announce we are about to park; a waker that sees PARKED must unpark us.
    if (!U_NOTE.compareAndSet(this, NOTE_CLEAR, NOTE_PARKED)) {
      note = NOTE_CLEAR; // it was WOKEN
      pinned = sched.owner.get();
      return true;
    }
    boolean woken = parkUntilWoken(timeoutNanos, kick);
    if (pinned == null) { // a timeout, or a wake-up whose waker has not pinned yet
      pinned = sched.owner.get();
    }
    return woken;
  }

  private boolean parkUntilWoken(long timeoutNanos, TimerSleeper kick) {
    long deadline = timeoutNanos > 0 ? System.nanoTime() + timeoutNanos : 0;
    for (; ; ) {
      if (timeoutNanos > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || (kick != null && kick.kicked)) { // volatile read: the adder's kick
          // Withdraw; if the CAS fails a wake-up raced in and we consume it.
          if (U_NOTE.compareAndSet(this, NOTE_PARKED, NOTE_CLEAR)) {
            return false;
          }
          note = NOTE_CLEAR;
          return true;
        }
        LockSupport.parkNanos(this, left);
      } else {
        LockSupport.park(this);
      }
      if (note == NOTE_WOKEN) {
        note = NOTE_CLEAR;
        return true;
      }
      Thread.interrupted(); // stale interrupt aimed at a finished task: drop it, park again
    }
  }

  /** The sleeper's spin before a deadline: consumes a wake-up that came meanwhile. */
  boolean pollWoken() {
    if (note == NOTE_WOKEN) { // volatile: as in sleep's spin
      note = NOTE_CLEAR;
      return true;
    }
    return false;
  }

  /**
   * Like {@link #sleep(long)} with no timeout, but for an M that is in the middle of a task
   * (exitsyscall waiting for a P): interrupts are kept for the task.
   */
  void sleepKeepingInterrupt() {
    boolean interrupted = false;
    if (U_NOTE.compareAndSet(this, NOTE_CLEAR, NOTE_PARKED)) {
      for (; ; ) {
        LockSupport.park(this);
        if (note == NOTE_WOKEN) {
          break;
        }
        if (Thread.interrupted()) {
          interrupted = true;
        }
      }
    }
    note = NOTE_CLEAR;
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "M" + id;
  }
}
