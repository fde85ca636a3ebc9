package dev.gmp;

import java.util.concurrent.locks.LockSupport;

/**
 * sysmon: a daemon thread without a P. It sleeps 100 us (Go: 20 us, see MIN_DELAY_NANOS) between
 * rounds while it has something to do, doubles the sleep after 50 idle rounds up to 10 ms, and parks until woken when every P is
 * idle. Each round it retakes Ps (Go's retake):
 *
 * <ul>
 *   <li>a P in a marked blocking call (Psyscall) for over one tick, unless it has no local work,
 *       someone else can take work, and the call is under 10 ms: handed to another M;
 *   <li>a P whose schedtick has not moved for a time slice: preemption requested, which demotes a
 *       runnext chain at its next scheduling point;
 *   <li>a P whose M has run one task for a time slice while work waits that nobody else can take:
 *       the task blocks without saying so (thread BLOCKED / WAITING / TIMED_WAITING) or hogs the
 *       CPU, so the P goes to another M and this M runs on P-less (at most maxSpareThreads such
 *       Ms at once).
 * </ul>
 */
final class Sysmon implements Runnable {
  /**
   * Shortest sleep between rounds. Go uses 20 us; on the JVM parkNanos(20 us) really sleeps
   * ~80-110 us and a round cost ~15 us of sysmon CPU under a blocking-heavy load (13.7% of a core
   * at 20 us vs 6.8% at 100 us, 2 cores, JDK 25: docs/design.md), so gmp polls at 100 us.
   */
  static final long MIN_DELAY_NANOS = Long.getLong("gmp.sysmonMinDelayNanos", 100_000);

  /** A marked blocking call is retaken once it is at least this old (Go: one sysmon tick). */
  static final long SYSCALL_MIN_AGE_NANOS = 20_000;
  static final long MAX_DELAY_NANOS = 10_000_000;
  static final long SYSCALL_RETAKE_NANOS = 10_000_000;

  /**
   * Longest deep sleep (all Ps idle) between looks. 100 ms cost an idle executor 0.15% of a core
   * on the reference VM (~120 us of CPU per timed wake-up); 1 s costs a tenth of that.
   */
  static final long DEEP_SLEEP_NANOS = 1_000_000_000;

  private final Sched s;
  private final Thread thread;

  /** Current sleep, for entersyscall to decide whether to kick us (opaque is enough: a hint). */
  private volatile long delay = MIN_DELAY_NANOS;

  private volatile boolean kicked;

  Sysmon(Sched s) {
    this.s = s;
    this.thread = new Thread(this, s.config.name() + "-sysmon");
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  Thread thread() {
    return thread;
  }

  void wake() {
    LockSupport.unpark(thread);
  }

  /** A blocking call began: if we are in a long sleep, come back to the fast cadence now. */
  void onEntersyscall() {
    if (delay > MIN_DELAY_NANOS && !kicked) {
      kicked = true;
      LockSupport.unpark(thread);
    }
  }

  @Override
  public void run() {
    try {
      loop();
    } finally {
      s.sysmonExit();
    }
  }

  private void loop() {
    long d = MIN_DELAY_NANOS;
    int idle = 0;
    while (s.runState < Sched.TIDYING) {
      LockSupport.parkNanos(this, d);
      s.sysmonWakeups.increment();
      if (kicked) {
        kicked = false;
        idle = 0;
        d = MIN_DELAY_NANOS;
      }
      if (s.sysmonMaySleep()) {
        delay = Long.MAX_VALUE;
        // Woken by an M between tasks or by entersyscall (Sched.wakeSysmonIfWaiting). The timeout
        // is the backstop for Ps that went busy with tasks that never return: they are looked at
        // within DEEP_SLEEP_NANOS (Go's deep sleep is bounded the same way, by a minute).
        do {
          LockSupport.parkNanos(this, DEEP_SLEEP_NANOS);
        } while (s.sysmonWaiting && s.runState < Sched.TIDYING && s.sysmonMaySleep());
        d = MIN_DELAY_NANOS;
        idle = 0;
        delay = d;
        continue;
      }
      long now = System.nanoTime();
      int n = retake(now) + s.sweepZombies();
      if (n == 0) {
        idle++;
      } else {
        idle = 0;
      }
      d = idle > 50 ? Math.min(d * 2, MAX_DELAY_NANOS) : MIN_DELAY_NANOS;
      delay = d;
    }
  }

  int retake(long now) {
    int n = 0;
    long slice = s.config.timeSliceNanos();
    for (P pp : s.procs.all) {
      int raw = pp.statusRaw();
      int st = raw & 7;
      if (st == P.Psyscall) {
        // Go notes the syscalltick on one round and retakes on the next; gmp stamps the call's
        // start in entersyscall, so a round that comes >= one tick (20 us) after it can act.
        long t = pp.syscalltick();
        long since = now - pp.syscallwhen();
        if (pp.sysmonSyscalltick != t) {
          pp.sysmonSyscalltick = t;
          if (since < SYSCALL_MIN_AGE_NANOS) {
            continue;
          }
        }
        // Don't retake a P with nothing to do for someone else, unless the call is long.
        if (pp.runq.isEmpty()
            && s.nmspinning() + s.npidle > 0
            && since < SYSCALL_RETAKE_NANOS) {
          continue;
        }
        if (s.retakeSyscall(pp, raw)) { // CAS inside: exitsyscall's fast path races us
          s.handoffp(pp);
          n++;
        }
      } else if (st == P.Prunning) {
        long t = pp.schedtick();
        if (pp.sysmonSchedtick != t) {
          pp.sysmonSchedtick = t;
          pp.sysmonSchedwhen = now;
        } else if (now - pp.sysmonSchedwhen >= slice && !pp.preempt()) {
          pp.setPreempt(true);
          s.preemptionRequests.increment();
        }
        n += retakeFromTask(pp, now, slice);
      }
    }
    return n;
  }

  /** Retake a P whose M has been inside one task for a whole slice while work waits. */
  private int retakeFromTask(P pp, long now, long slice) {
    M mp = pp.m();
    if (mp == null) {
      return 0;
    }
    G gp = mp.curg();
    long c = mp.completed();
    if (gp == null || pp.sysmonM != mp || pp.sysmonMcompleted != c) {
      pp.sysmonM = gp == null ? null : mp;
      pp.sysmonMcompleted = c;
      pp.sysmonMwhen = now;
      return 0;
    }
    if (now - pp.sysmonMwhen < slice) {
      return 0;
    }
    // Only if something waits that nobody else will take (Go's retake condition).
    if (pp.runq.isEmpty() && (s.runq.size() == 0 || s.nmspinning() + s.npidle > 0)) {
      return 0;
    }
    Thread t = mp.thread;
    Thread.State ts = t == null ? Thread.State.RUNNABLE : t.getState();
    boolean blocked =
        ts == Thread.State.BLOCKED
            || ts == Thread.State.WAITING
            || ts == Thread.State.TIMED_WAITING;
    if (s.retakeRunning(pp, mp, gp, blocked)) {
      pp.sysmonM = null;
      return 1;
    }
    return 0;
  }
}
