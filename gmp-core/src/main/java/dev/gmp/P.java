package dev.gmp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

/** Padding: thieves and sysmon read status and m of every P on each pass. */
abstract class PPad0 {
  long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/** The fields other threads read (status, m), away from what the owner writes per task. */
abstract class PShared extends PPad0 {
  volatile long status; // P.Pidle (0): no initializer, which would be a volatile store
  volatile M m;

  /**
   * On the idle list (Go's idlepMask): written under the scheduler lock by pidleput / pidleget;
   * volatile so thieves skip such Ps without the lock. An idle-list P has an empty ring; a Pidle P
   * in transit to an M (startm, handoffp) is not on the list and may hold work: stealable.
   */
  volatile boolean onIdleList;
}

abstract class PPad1 extends PShared {
  long p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p30, p31, p32, p33, p34, p35;
}

/**
 * P: a processor, the permit an M must hold to run tasks (Go's {@code p}). There are exactly
 * {@code parallelism} live Ps. A P carries the local run queue, the schedtick used by the 61-tick
 * check and by sysmon, the local free-G cache and the goid cache.
 */
final class P extends PPad1 {
  static final int Pidle = 0;
  static final int Prunning = 1;
  static final int Psyscall = 2;
  static final int Pdead = 3;

  // Field updaters, not VarHandles, and volatile fields read directly: why, and how an ordering
  // comment below reads, in docs/design.md section 2 ("How the orderings are spelled").
  private static final AtomicLongFieldUpdater<PShared> U_STATUS =
      AtomicLongFieldUpdater.newUpdater(PShared.class, "status");
  private static final AtomicReferenceFieldUpdater<PShared, M> U_M_FIELD =
      AtomicReferenceFieldUpdater.newUpdater(PShared.class, M.class, "m");
  // schedtick is plain, as G's status: a VarHandle for its racy readers only.
  private static final VarHandle SCHEDTICK;

  static {
    try {
      SCHEDTICK = MethodHandles.lookup().findVarHandle(P.class, "schedtick", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }
  private static final AtomicLongFieldUpdater<P> U_SYSCALLTICK =
      AtomicLongFieldUpdater.newUpdater(P.class, "syscalltick");
  private static final AtomicLongFieldUpdater<P> U_SYSCALLWHEN =
      AtomicLongFieldUpdater.newUpdater(P.class, "syscallwhen");

  final int id;
  final RunQueue runq;

  /** This P's timers (Go's p.timers); moved to a live P when this one retires or is retaken. */
  final TimerHeap timers = new TimerHeap();

  /** Link in the idle-P list (guarded by the scheduler lock). */
  P link;

  /**
   * The idle M this P was last handed to (in its nextp) and when, or null once back on the idle
   * list, taken back (Spares#takeLateHandoffLocked) or handed to a locked M (which is never taken
   * from). Written under the scheduler lock, or by the P's owner before the status CAS that gives
   * it to a locked M (SchedulingLoop#startlockedm); a hint only: after the M picked the P up it
   * stays set until then, and the CAS on the M's nextp decides.
   */
  M handedTo;

  long handedAt;

  /**
   * Whether handedTo was a new M when handed pp: it picks pp up in SchedulingLoop#mstart, which
   * leaves a spinning count that went with a taken-back P to the taker (guarded by the lock).
   */
  boolean handedToNew;

  /**
   * The thread that took this P for itself or to hand on (off the idle list, back from a late
   * hand-off, from a blocking call) or made it (a retake's replacement), until it acquires or
   * places it (the idle list, an M's nextp), which clear it. If that thread fails in between, with
   * the P in a local variable only, it gives the P back (Idle#reclaimHeldLocked): an Error can
   * come from anywhere while the heap is full (the JVM links a call site it runs for the first
   * time by allocating), and a P lost so idled on no list for good, the executor unable to
   * terminate. Volatile: a thread that reads itself here must be reading its latest hold, never
   * its own older write that a later acquire (by another thread, without the lock) has cleared.
   */
  volatile Thread heldBy;

  /**
   * Incremented by the owner per scheduled task unless the task inherits the slice (runnext).
   * Go's uint32: it wraps (after 2^32 tasks), and its readers only take it modulo 61 or see
   * whether it moved. An int, so that a plain store is never torn.
   */
  private int schedtick;

  /** Incremented by the owner on each entersyscall. */
  private volatile long syscalltick;

  /** When the current marked blocking call began (entersyscall); read by sysmon. */
  private volatile long syscallwhen;

  /** Set by sysmon when the slice expired; cleared by the owner at its next scheduling point. */
  private volatile boolean preempt;

  // Owner-only state.
  G gFree;
  int gFreeCount;
  long goidcache;
  long goidcacheend;

  // sysmon's private view of this P (Go's sysmontick); only the sysmon thread touches these.
  long sysmonSchedtick = -1;
  long sysmonSchedwhen;
  long sysmonSyscalltick = -1;
  M sysmonM;
  long sysmonMcompleted = -1;
  long sysmonMwhen;
  /** The slice rule's stretch of that task off the CPU (SysmonRetake#offCpuSince). */
  final BlockDetector.OffSpan sysmonOff = new BlockDetector.OffSpan();

  /** The runnext G sysmon saw last round (Sysmon#wakeForQueuedWork). */
  G sysmonRunnext;

  /** A P whose run queue lives in {@code island} (CardIsland: every scheduler's P). */
  P(int id, G[] island) {
    this.id = id;
    this.runq = new RunQueue(island);
  }

  /** A P with a compact run queue: tests and stress tests, which make thousands. */
  P(int id) {
    this.id = id;
    this.runq = new RunQueue();
  }

  // The status word is (generation << 3) | state. entersyscall bumps the generation, so the
  // token an M gets for its blocking call matches no later syscall on the same P: without it,
  // a P retaken from M1 and re-entering Psyscall under M2 would let M1's exitsyscall CAS win
  // (ABA) and two Ms would own the P. A 61-bit generation cannot wrap in practice (2^61 blocking
  // calls at one per nanosecond take 73 years); 28 bits would wrap after 2^28 calls.
  private static final long STATE_MASK = 7;

  int status() {
    // Volatile: thieves, sysmon and exitsyscall decide on it; every transition that races is a CAS.
    return (int) (status & STATE_MASK);
  }

  long statusRaw() {
    return status;
  }

  static int state(long raw) {
    return (int) (raw & STATE_MASK);
  }

  void setStatus(int s) {
    // CAS loop keeps the generation; callers hold the P exclusively, so it succeeds at once.
    for (; ; ) {
      long raw = status;
      if (U_STATUS.compareAndSet(this, raw, (raw & ~STATE_MASK) | s)) {
        return;
      }
    }
  }

  boolean casStatus(int from, int to) {
    // Full CAS: exitsyscall, sysmon's retake and setParallelism race for the same P.
    for (; ; ) {
      long raw = status;
      if ((raw & STATE_MASK) != from) {
        return false;
      }
      if (U_STATUS.compareAndSet(this, raw, (raw & ~STATE_MASK) | to)) {
        return true;
      }
    }
  }

  /** entersyscall: Prunning -> Psyscall with a new generation; the token, or -1 if not running. */
  long enterSyscall() {
    for (; ; ) {
      long raw = status;
      if ((raw & STATE_MASK) != Prunning) {
        return -1;
      }
      long tok = ((raw & ~STATE_MASK) + (STATE_MASK + 1)) | Psyscall;
      if (U_STATUS.compareAndSet(this, raw, tok)) { // CAS: sysmon may be retaking this P
        return tok;
      }
    }
  }

  /** exitsyscall fast path: succeeds only if the P is still in the syscall that gave tok. */
  boolean exitSyscall(long tok) {
    return tok >= 0 && U_STATUS.compareAndSet(this, tok, (tok & ~STATE_MASK) | Prunning);
  }

  /** sysmon: retake the P from the syscall identified by tok (a raw status seen as Psyscall). */
  boolean retakeSyscall(long tok) {
    return U_STATUS.compareAndSet(this, tok, (tok & ~STATE_MASK) | Pidle);
  }

  M m() {
    return m; // acquire: pairs with setM's release
  }

  void setM(M mp) {
    U_M_FIELD.lazySet(this, mp); // release: sysmon reading p.m sees the M's own fields
  }

  /** The owner's own count (findRunnable's 61-tick check). */
  int schedtick() {
    return schedtick; // plain: the owner's own stores
  }

  /** The count for sysmon and the dump: some recent value. */
  int schedtickOpaque() {
    return (int) SCHEDTICK.getOpaque(this); // opaque: sysmon needs progress, not ordering
  }

  void incSchedtick() {
    // Plain, single writer: nothing is published with it; execute's release store of curg right
    // after it keeps the JIT from sinking it into the task, so sysmon sees it within the task.
    schedtick++;
  }

  long syscalltick() {
    return syscalltick;
  }

  void incSyscalltick() {
    U_SYSCALLTICK.lazySet(this, syscalltick + 1); // single writer
  }

  long syscallwhen() {
    return syscallwhen;
  }

  void setSyscallwhen(long t) {
    // Opaque: sysmon pairs it with syscalltick, which is written after it; a stale value only
    // delays a retake by one round.
    U_SYSCALLWHEN.lazySet(this, t);
  }

  boolean preempt() {
    return preempt; // opaque: a late look only delays the demotion
  }

  void setPreempt(boolean v) {
    preempt = v;
  }

  /** Next goid from this P's cache, refilled 16 at a time (Go's goidcache). */
  long nextGoid(Scheduler sched) {
    if (goidcache == goidcacheend) {
      goidcache = sched.reserveGoids(16);
      goidcacheend = goidcache + 16;
    }
    return goidcache++;
  }

  @Override
  public String toString() {
    return "P" + id + "[" + statusName(status()) + "]";
  }

  static String statusName(int s) {
    return switch (s) {
      case Pidle -> "Pidle";
      case Prunning -> "Prunning";
      case Psyscall -> "Psyscall";
      case Pdead -> "Pdead";
      default -> "P?" + s;
    };
  }
}
