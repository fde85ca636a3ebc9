package dev.gmp;

import java.util.concurrent.Callable;

/**
 * entersyscall / exitsyscall for {@link GmpExecutor#blocking}. Entering keeps the P attached
 * (status Psyscall) so a short call costs two CASes; sysmon hands the P to another M if the call
 * outlasts one of its ticks while work waits. Leaving takes the P back if it is still ours, else
 * the old P if idle, else any idle P, else the P of another M's blocking call if work waits for
 * it, else (spare budget permitting, once per task) runs on P-less as a spare, else takes a P
 * that an idle M is late to pick up, else queues the G (locked to this M, whose thread holds its
 * stack) on the global queue and parks until an M hands over its P. A call that a task whose
 * slice is over makes while such a G waits is its preemption point: the P goes to that G.
 */
final class Syscall {
  private Syscall() {}

  static <T> T blocking(Callable<T> work) throws Exception {
    if (work == null) {
      throw new NullPointerException("work");
    }
    M m = ThreadTable.currentM();
    if (m == null) {
      return work.call(); // not a worker: nothing to hand off
    }
    G gp = m.curgOwn();
    int st = gp == null ? G.Gdead : gp.status();
    if (st != G.Grunning && st != G.Gwaiting) {
      return work.call(); // not inside a task, or already inside blocking(): nothing to hand off
    }
    // Entering and leaving change the P's status, the spare count and the M's P in several
    // calls: a caller deep in a recursion must overflow here, before any, not halfway
    // (StackGuard). Leaving runs at this same depth, whatever work did.
    StackGuard.ensure();
    if (m.p == null || st == G.Gwaiting) { // a spare; or sysmon took the P from under the task
      return spareCall(m, gp, work);
    }
    entersyscall(m, gp); // an Error inside leaves nothing entered
    try {
      return work.call();
    } finally {
      exitsyscall(m, gp);
    }
  }

  /**
   * A task running P-less calls blocking(): a spare (its call returned to no P:
   * exitsyscallSlow), or a task whose P sysmon took from under it (Retake#retakeRunning: its G
   * waiting, its P a zombie). A task gets one such stretch: this call's return, and any later
   * call's that finds no P, waits for a P, as Go's exitsyscall always does (M#strayedTask).
   * Without that, a task that loops (take, compute) ran P-less for good, and 20 such loops at
   * parallelism 2 had up to 17 computing at once. There is no P to hand off on the way in.
   */
  private static <T> T spareCall(M m, G gp, Callable<T> work) throws Exception {
    P zombie = m.p; // null for a spare; the lock path lets go of a zombie (dropOrphanLocked)
    m.setSince(m.completed(), System.nanoTime()); // the call's start: the dump, noteLongCall
    gp.setStatus(G.Gsyscall); // nested blocking() calls inside work just run, as in any call
    try {
      return work.call();
    } finally {
      exitsyscallSlow(m, gp, zombie, false);
    }
  }

  static void entersyscall(M m, G gp) {
    P pp = m.p;
    Scheduler s = m.sched;
    long now = System.nanoTime();
    pp.setSyscallwhen(now);
    m.setSince(m.completed(), now); // for the dump: the clock is read for sysmon anyway
    pp.incSyscalltick();
    boolean workWaits = !pp.runq.isEmpty() || s.global.size() != 0;
    // Work waits, so this call's P will likely be taken: count the M against the spare budget
    // now, before the P shows Psyscall, so that whoever takes it needs no lock to count us and
    // our return needs none to know we are counted (Spares#takeFree). Past the budget, or if
    // sysmon counted us for a retake of our running task: not counted by us (Spares#reserve).
    // While threads wait for a CPU the call keeps its P, as past the budget (Oversubscription).
    boolean holdBack = workWaits && s.sysmon.oversubscription.holdsBack(s);
    boolean precounted =
        workWaits && !holdBack && s.spares.addSelf(m);
    long tok;
    try {
      m.oldp = pp;
      gp.setStatus(G.Gsyscall);
      // CAS: sysmon or setParallelism may have killed the P already; then we are simply P-less
      // and exitsyscall takes the slow path (token -1).
      tok = pp.enterSyscall();
    } catch (Throwable e) { // an Error the JVM raised before the CAS (a call site's first link)
      notEntered(m, gp, precounted);
      throw e;
    }
    m.syscallToken = tok;
    try {
      if (precounted && tok != -1) {
        m.precountTok = tok; // volatile, after the CAS: a taker reads the status first
      }
      // Go's entersyscallblock: blocking() says the call blocks, so if tasks are already waiting
      // (on this P, or globally), hand the P on now rather than after sysmon's next round, as
      // ForkJoinPool.managedBlock compensates at once. The same retake sysmon would do, so
      // exitsyscall's fast path fails on the token and takes the slow path.
      boolean preempt = tok != -1 && workWaits && preempted(pp, s);
      if (tok != -1
          && workWaits
          && (preempt
              // A hint (rechecked under the lock; volatile, not the list's plain head): no idle
              // M, no eager hand-off (unless it may start a thread).
              || s.idle.nmidle != 0 && !s.retake.returnComesSoon() && !holdBack)
          && s.retake.retakeSyscall(pp, tok, true)) {
        if (preempt) {
          m.strayedTask = m.completed(); // its return waits for a P (exitsyscall)
        }
        return;
      }
      if (Jfr.on && tok != -1) { // after the eager check: recording must not widen sysmon's race
        Jfr.procState(s, pp.id, P.Psyscall, m);
      }
      if (s.sysmon.waiting) { // deep sleep: a P in a syscall needs sysmon's eye (Go: exitsyscall)
        s.sysmon.wakeIfWaiting();
      }
      s.sysmon.onEntersyscall();
    } catch (Throwable e) {
      // An Error the JVM raised after the CAS (the heap full: a JFR event, the hand-off's
      // bookkeeping): the call is left as its return would leave it, never half entered. A P
      // left in Psyscall under an M that goes on running tasks would be handed to a second M by
      // sysmon, and the G left in Gsyscall would keep the executor from terminating.
      exitsyscall(m, gp);
      throw e;
    }
  }

  /**
   * A returning call's task now runs on pp, which another task held: its slice starts (Go's
   * execute bumps schedtick for every G it switches to), so sysmon measures it from here and a
   * request made for the P's last task does not preempt this one at its next call.
   */
  private static void newSlice(P pp) {
    pp.incSchedtick(); // ours now (acquirep): the owner's plain store, as SchedulingLoop's
    pp.setPreempt(false);
  }

  /**
   * Whether this call is the task's preemption point: its P's slice is over (sysmon's request,
   * P#preempt: one task has held it for timeSlice) and a task waits on its own thread for a P
   * (a call that returned to no P after its stretch: exitsyscallSlow). Then the P goes to that
   * task now and this one waits for a P when its call returns, as Go preempts a running G into
   * the run queue; without it a task that loops (take, compute) and whose takes rarely block
   * keeps its P, and the waiting task starved while its loop had work.
   */
  private static boolean preempted(P pp, Scheduler s) {
    return pp.preempt() && s.global.standInWaits();
  }

  /** Undoes entersyscall's steps before its CAS. Out of line: entersyscall stays inlinable. */
  private static void notEntered(M m, G gp, boolean precounted) {
    gp.setStatus(G.Grunning);
    m.oldp = null;
    if (precounted) {
      m.sched.spares.removeSelf(m);
    }
  }

  static void exitsyscall(M m, G gp) {
    P pp = m.oldp;
    m.oldp = null;
    // Fast path. CAS on our call's exact token: sysmon's retake races us for the same transition
    // and exactly one wins; a P retaken, handed on and put in Psyscall again by another M's call
    // has a new generation, so we cannot take it from that M (ABA).
    if (Mutations.EXITSYSCALL_NO_CAS
        ? pp.status() == P.Psyscall && Mutations.setRunning(pp)
        : pp.exitSyscall(m.syscallToken)) {
      if (m.spare()) { // counted for this call (nobody else counts an M whose P it did not take)
        m.precountTok = 0;
        m.sched.spares.removeSelf(m);
      }
      gp.setStatus(G.Grunning);
      if (Jfr.on) {
        Jfr.procState(m.sched, pp.id, P.Prunning, m);
      }
      return;
    }
    // A task gets one P-less stretch (spareCall): this call may start it unless the task has had
    // one, as a spare before (strayedTask) or on a P found dead on entry (token -1: taken from
    // under the running task, or retired).
    exitsyscallSlow(m, gp, pp, m.syscallToken != -1 && m.strayedTask != m.completed());
  }

  /**
   * A call returned to no P of its own ({@code oldp}: the P it entered with; null for a spare's
   * call). {@code mayStaySpare}: the task's first P-less stretch, which may finish the task as a
   * spare within the budget; otherwise it waits for a P.
   */
  private static void exitsyscallSlow(M m, G gp, P oldp, boolean mayStaySpare) {
    Scheduler s = m.sched;
    if (oldp != null) {
      s.retake.noteLongCall(System.nanoTime() - m.since());
    }
    if (!mayStaySpare) {
      m.strayedTask = m.completed(); // had its stretch, maybe on a P taken from under it: remember
    }
    m.precountTok = 0;
    // Counted (by itself, or by the retake that took the P): no lock needed to know it.
    if ((oldp == null || oldp.status() != P.Pdead) // a retired P is finished off under the lock
        && Spares.lockFree(s, m)) {
      m.p = null;
      if (Spares.takeFree(m)) {
        newSlice(m.p);
        gp.setStatus(G.Grunning);
        return;
      }
      if (mayStaySpare) {
        gp.setStatus(G.Grunning);
        m.strayedTask = m.completed();
        m.parkAtOnce = true; // finish the task P-less, as the locked path's spare below: counted
        return;
      }
      // Still counted: the locked path below uncounts it (dropOrphanLocked) and waits for a P.
    }
    for (; ; ) {
      P pp;
      s.lock.lock();
      try {
        s.retake.dropOrphanLocked(m);
        pp = Spares.findPLocked(s, m, oldp);
        if (pp == null
            && mayStaySpare
            && s.runState < Scheduler.STOP
            && s.spares.addSelf(m)) { // dropOrphanLocked above uncounted it
          // No P, but the spare budget has room: finish the task P-less, as a spare (counted
          // until the M looks for a P again: Spares.reacquire), rather than wait for a
          // P while its thread holds the stack. What it submits meanwhile goes to the global queue.
          gp.setStatus(G.Grunning);
          m.strayedTask = m.completed();
          return;
        }
        if (pp == null) {
          // Past the budget: a P an idle M is late to pick up, rather than wait for one. Not
          // before the spare: the late M runs the queued work beside the spare's task, one more
          // thread at work (docs/benchmarks.md, "A P in transit to a late M is taken back"). A
          // spare that then needs a P takes one back in Spares.reacquire.
          pp = Spares.takeLateHandoffLocked(s, m);
        }
        if (pp == null) {
          // No P: become runnable on the global queue, locked to this M (Go's lockedg), and wait
          // for whoever schedules it to hand us their P.
          gp.setStatus(G.Grunnable);
          s.global.putStandIn(m.asLocked);
        }
      } finally {
        s.lock.unlock();
      }
      if (m.spinning) {
        s.idle.leaveSpinning(m); // a new M's claim came with its P: we go back to our task
      }
      if (pp == null) {
        m.sleepKeepingInterrupt();
        pp = m.nextp;
        m.nextp = null;
      }
      if (s.acquirep(m, pp)) {
        newSlice(pp);
        gp.setStatus(G.Grunning);
        return;
      }
      // That P was retired on its way to us: look again.
    }
  }
}
