package dev.gmp;

/**
 * sysmon's retake (Go's retake in proc.go): each round it looks at every P and takes the ones
 * whose M cannot use them for a while, so that the work queued there runs elsewhere. The
 * mechanics (the CAS on the P's status, the hand-off, the spare budget) are Retake's; this is the
 * when:
 *
 * <ul>
 *   <li>a P in a marked blocking call (Psyscall) for over one tick (20 us), unless it has no local
 *       work and someone else can take work, or threads wait for a CPU (Oversubscription), while
 *       the call is under 10 ms;
 *   <li>a P whose schedtick has not moved for a time slice: preemption requested;
 *   <li>a P whose M is inside a task that blocks without saying so (BlockDetector's verdict, or
 *       a JVM wait state a whole slice long), while work waits that nobody else can take. A task
 *       that runs on a CPU is never one: it keeps its P (Go's one invariant, GOMAXPROCS).
 * </ul>
 *
 * <p>Sysmon's thread only: the per-P {@code sysmon*} fields are its own.
 */
final class SysmonRetake {
  private final Scheduler s;
  private final Sysmon sysmon;

  /** Ps retaken this round from tasks blocked without saying so (the detector's verdict). */
  int blockedThisRound;

  /**
   * Ps this round whose task was found blocked (unmarked, or in a marked call), with work
   * waiting, but kept: no thread could be added to take them (Retake#refusedForRoom). Sysmon
   * warns when that lasts (Sysmon#noteStall).
   */
  int refusedThisRound;

  SysmonRetake(Scheduler s, Sysmon sysmon) {
    this.s = s;
    this.sysmon = sysmon;
  }

  /** One round over every P: how many were retaken (0 lets sysmon slow its cadence). */
  int round(long now) {
    int n = 0;
    blockedThisRound = 0;
    refusedThisRound = 0;
    if (sysmon.detector != null) {
      sysmon.detector.beginRound();
    }
    long slice = s.config.timeSliceNanos();
    boolean holdBack = sysmon.oversubscription.holdsBack(s);
    for (P pp : s.procs.all) {
      long raw = pp.statusRaw();
      int st = P.state(raw);
      if (st == P.Psyscall) {
        // Go notes the syscalltick on one round and retakes on the next; gmp stamps the call's
        // start in entersyscall, so a round that comes >= one tick (20 us) after it can act.
        long t = pp.syscalltick();
        long since = now - pp.syscallwhen();
        if (pp.sysmonSyscalltick != t) {
          pp.sysmonSyscalltick = t;
          if (since < Sysmon.SYSCALL_MIN_AGE_NANOS) {
            continue;
          }
        }
        // Don't retake a P with nothing to do for someone else, unless the call is long; nor,
        // unless it is long, while threads wait for a CPU (Oversubscription).
        if ((holdBack || pp.runq.isEmpty() && s.idle.nmspinning() + s.idle.npidle > 0)
            && since < Sysmon.SYSCALL_RETAKE_NANOS) {
          continue;
        }
        if (s.retake.retakeSyscall(pp, raw, false)) { // CAS inside: exitsyscall races us
          n++;
        } else if (s.retake.refusedForRoom) {
          refusedThisRound++; // a marked call past the budget, work waiting behind it
        }
      } else if (st == P.Prunning) {
        long t = pp.schedtickOpaque(); // opaque: progress only; a late tick costs one needless preemption request at most
        if (pp.sysmonSchedtick != t) {
          pp.sysmonSchedtick = t;
          pp.sysmonSchedwhen = now;
        } else if (now - pp.sysmonSchedwhen >= slice && !pp.preempt()) {
          pp.setPreempt(true);
          Counters.count(s.counters.preemptionRequests);
        }
        n += retakeFromTask(pp, now, slice);
      }
    }
    return n;
  }

  /**
   * Retake a P whose M is inside a task that is off the CPU while work waits: at the detector's
   * verdict, or after a whole slice in the one task in a JVM wait state. A task is named by its
   * M and the M's completed count read on both sides of curg (a seqlock): the M clears curg
   * before it bumps the count (a CAS: M#endTask), so an unchanged count around a non-null curg
   * means that G is task number count + 1 of this M, whatever object gFree recycled for it.
   */
  private int retakeFromTask(P pp, long now, long slice) {
    M mp = pp.m();
    if (mp == null) {
      return 0;
    }
    long c = mp.completedAcquire();
    G gp = mp.curg();
    if (gp == null || mp.completedAcquire() != c) {
      pp.sysmonM = null; // between tasks
      return 0;
    }
    boolean first = pp.sysmonM != mp || pp.sysmonMcompleted != c;
    if (first) {
      pp.sysmonM = mp; // first sight of this task
      pp.sysmonMcompleted = c;
      pp.sysmonMwhen = now;
      pp.sysmonOff.reset();
      mp.setSince(c, now); // the task's age for the dump (it may have finished since: display only)
    }
    // Only if something waits that nobody else will take (Go's retake condition): queued work,
    // or a timer due on this P while no P idles (an idle one's M would run every P's due timers,
    // Timers#sysmonCheck). Without the timers, a task waiting unmarked on a timer of its own
    // executor (schedule(...).get(), a timeout that completes what it joins) held the P it needed.
    if (pp.runq.isEmpty()
        && (s.global.size() == 0 || s.idle.nmspinning() + s.idle.npidle > 0)
        && (s.idle.npidle != 0 || pp.timers.nextWhen() > Timers.now())) {
      return 0;
    }
    // Unmarked blocking, within a round or two (the verdict may use the M's previous round,
    // so it can come at the task's first sight; retakeRunning rechecks the task under the lock).
    boolean refused = false; // a blocked task kept only because no thread could be added
    if (sysmon.detector != null
        && sysmon.detector.look(mp, now, sysmon.oversubscription.vmWaitNanos(slice))
            == BlockDetector.BLOCKED) {
      if (s.retake.retakeRunning(pp, mp, gp, c, true)) {
        pp.sysmonM = null;
        blockedThisRound++;
        return 1;
      }
      refused = s.retake.refusedForRoom;
    }
    if (!first && now - pp.sysmonMwhen >= slice && waitedASlice(pp, mp, now, slice)) {
      if (s.retake.retakeRunning(pp, mp, gp, c, false)) {
        pp.sysmonM = null;
        return 1;
      }
      refused |= s.retake.refusedForRoom;
    }
    if (refused) {
      refusedThisRound++;
    }
    return 0;
  }

  /**
   * A whole slice in one task: its P goes only if the thread is off the CPU by its own doing
   * (a monitor, a wait, a sleep: the states the detector leaves to this rule, or all of them
   * with the detector off). A RUNNABLE task keeps its P: it may be running, and a P handed
   * away from a running task would put one more thread on a CPU than parallelism allows.
   */
  private boolean waitedASlice(P pp, M mp, long now, long slice) {
    Thread t = mp.runner;
    Thread.State ts = t == null ? Thread.State.RUNNABLE : t.getState();
    boolean offCpu =
        ts == Thread.State.BLOCKED
            || ts == Thread.State.WAITING
            || ts == Thread.State.TIMED_WAITING;
    return offCpu && offCpuSince(pp, mp, now, slice) && !BlockDetector.waitsForARunningTask(s, t);
  }

  /**
   * The slice rule's evidence: a wait state seen at one instant is not enough, since a task that
   * computes and takes a contended lock now and then (a logger's appender, a shared counter) is
   * caught waiting for it at many looks, slice after slice; retaking its P would let one thread
   * more than parallelism run (BlockingTest.cpuBoundTasksThatContendForALockKeepTheirProcessors).
   * So two samples of the task's CPU clock, at this look and an earlier one that also found it
   * waiting, a whole slice apart, with under an eighth of the time between spent on a CPU (the
   * kernel rule's bound). The slice is what keeps a busy machine out: there the lock's holder
   * waits for a CPU for milliseconds and its waiters with it, off the CPU by every measure, and
   * one such wait spanned two looks beside a CPU burner (1 run in 10). A task that ran in
   * between starts a new span. Without a CPU clock, the state alone, as before.
   *
   * <p>Even a slice is not enough when the holder is another of our tasks that runs (or waits
   * for a CPU) on one of our Ps: beside a CPU burner a holder preempted for milliseconds kept
   * its waiter off the CPU for over a 2 ms slice (1 run in 12). Such a wait is contention, which
   * a hand-off cannot shorten (the holder has its P and goes on when it gets a CPU), so {@link
   * BlockDetector#waitsForARunningTask} keeps the waiter's P. A holder that waits itself, or
   * one outside the executor, does not.
   */
  private boolean offCpuSince(P pp, M mp, long now, long slice) {
    long cpu = sysmon.clock.engage(mp); // such a wait is what the clock is for
    // Collections do not restart this span (0): a wait for a monitor or a lock is the task's
    // own, and a collection that stops the holder only lengthens it.
    return cpu < 0 || pp.sysmonOff.lasted(cpu, now, slice, 0);
  }
}
