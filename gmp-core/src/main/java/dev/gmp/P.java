package dev.gmp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** Padding: thieves and sysmon read status and m of every P on each pass. */
abstract class PPad0 {
  long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/** The fields other threads read (status, m), away from what the owner writes per task. */
abstract class PShared extends PPad0 {
  long status = P.Pidle;
  M m;
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

  private static final VarHandle STATUS;
  private static final VarHandle M_FIELD;
  private static final VarHandle SCHEDTICK;
  private static final VarHandle SYSCALLTICK;
  private static final VarHandle SYSCALLWHEN;
  private static final VarHandle PREEMPT;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      STATUS = l.findVarHandle(PShared.class, "status", long.class);
      M_FIELD = l.findVarHandle(PShared.class, "m", M.class);
      SCHEDTICK = l.findVarHandle(P.class, "schedtick", long.class);
      SYSCALLTICK = l.findVarHandle(P.class, "syscalltick", long.class);
      SYSCALLWHEN = l.findVarHandle(P.class, "syscallwhen", long.class);
      PREEMPT = l.findVarHandle(P.class, "preempt", boolean.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final int id;
  final RunQueue runq = new RunQueue();

  /** This P's timers (Go's p.timers); moved to a live P when this one retires or is retaken. */
  final TimerHeap timers = new TimerHeap();

  /** Link in the idle-P list (guarded by the scheduler lock). */
  P link;

  /** Incremented by the owner per scheduled task unless the task inherits the slice (runnext). */
  @SuppressWarnings("unused")
  private long schedtick;

  /** Incremented by the owner on each entersyscall. */
  @SuppressWarnings("unused")
  private long syscalltick;

  /** When the current marked blocking call began (entersyscall); read by sysmon. */
  @SuppressWarnings("unused")
  private long syscallwhen;

  /** Set by sysmon when the slice expired; cleared by the owner at its next scheduling point. */
  @SuppressWarnings("unused")
  private boolean preempt;

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

  /** The runnext G sysmon saw last round (Sysmon#wakeForQueuedWork). */
  G sysmonRunnext;

  P(int id) {
    this.id = id;
  }

  // The status word is (generation << 3) | state. entersyscall bumps the generation, so the
  // token an M gets for its blocking call matches no later syscall on the same P: without it,
  // a P retaken from M1 and re-entering Psyscall under M2 would let M1's exitsyscall CAS win
  // (ABA) and two Ms would own the P. A 61-bit generation cannot wrap in practice (2^61 blocking
  // calls at one per nanosecond take 73 years); 28 bits wrapped after 2^28 calls.
  private static final long STATE_MASK = 7;

  int status() {
    // Volatile: thieves, sysmon and exitsyscall decide on it; every transition that races is a CAS.
    return (int) ((long) STATUS.getVolatile(this) & STATE_MASK);
  }

  long statusRaw() {
    return (long) STATUS.getVolatile(this);
  }

  static int state(long raw) {
    return (int) (raw & STATE_MASK);
  }

  void setStatus(int s) {
    // CAS loop keeps the generation; callers hold the P exclusively, so it succeeds at once.
    for (; ; ) {
      long raw = (long) STATUS.getVolatile(this);
      if (STATUS.compareAndSet(this, raw, (raw & ~STATE_MASK) | s)) {
        return;
      }
    }
  }

  boolean casStatus(int from, int to) {
    // Full CAS: exitsyscall, sysmon's retake and setParallelism race for the same P.
    for (; ; ) {
      long raw = (long) STATUS.getVolatile(this);
      if ((raw & STATE_MASK) != from) {
        return false;
      }
      if (STATUS.compareAndSet(this, raw, (raw & ~STATE_MASK) | to)) {
        return true;
      }
    }
  }

  /** entersyscall: Prunning -> Psyscall with a new generation; the token, or -1 if not running. */
  long enterSyscall() {
    for (; ; ) {
      long raw = (long) STATUS.getVolatile(this);
      if ((raw & STATE_MASK) != Prunning) {
        return -1;
      }
      long tok = ((raw & ~STATE_MASK) + (STATE_MASK + 1)) | Psyscall;
      if (STATUS.compareAndSet(this, raw, tok)) { // CAS: sysmon may be retaking this P
        return tok;
      }
    }
  }

  /** exitsyscall fast path: succeeds only if the P is still in the syscall that gave tok. */
  boolean exitSyscall(long tok) {
    return tok >= 0 && STATUS.compareAndSet(this, tok, (tok & ~STATE_MASK) | Prunning);
  }

  /** sysmon: retake the P from the syscall identified by tok (a raw status seen as Psyscall). */
  boolean retakeSyscall(long tok) {
    return STATUS.compareAndSet(this, tok, (tok & ~STATE_MASK) | Pidle);
  }

  M m() {
    return (M) M_FIELD.getAcquire(this); // acquire: pairs with setM's release
  }

  void setM(M mp) {
    M_FIELD.setRelease(this, mp); // release: sysmon reading p.m sees the M's own fields
  }

  long schedtick() {
    return (long) SCHEDTICK.getOpaque(this); // opaque: sysmon needs progress, not ordering
  }

  void incSchedtick() {
    SCHEDTICK.setOpaque(this, (long) SCHEDTICK.get(this) + 1); // single writer: no RMW needed
  }

  long syscalltick() {
    return (long) SYSCALLTICK.getOpaque(this);
  }

  void incSyscalltick() {
    SYSCALLTICK.setOpaque(this, (long) SYSCALLTICK.get(this) + 1); // single writer
  }

  long syscallwhen() {
    return (long) SYSCALLWHEN.getOpaque(this);
  }

  void setSyscallwhen(long t) {
    // Opaque: sysmon pairs it with syscalltick, which is written after it; a stale value only
    // delays a retake by one round.
    SYSCALLWHEN.setOpaque(this, t);
  }

  boolean preempt() {
    return (boolean) PREEMPT.getOpaque(this); // opaque: a late look only delays the demotion
  }

  void setPreempt(boolean v) {
    PREEMPT.setOpaque(this, v);
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
