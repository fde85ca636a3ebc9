package dev.gmp;

import java.util.concurrent.Callable;

/**
 * entersyscall / exitsyscall for {@link GmpExecutor#blocking}. Entering keeps the P attached
 * (status Psyscall) so a short call costs two CASes; sysmon hands the P to another M if the call
 * outlasts one of its ticks while work waits. Leaving takes the P back if it is still ours, else
 * the old P if idle, else any idle P, else the P of another M's blocking call if work waits for
 * it, else (spare budget permitting) finishes the task P-less as a spare, else takes a P that an
 * idle M is late to pick up, else queues the G (locked to this M, whose thread holds its stack)
 * on the global queue and parks until an M hands over its P.
 */
final class Syscall {
  private Syscall() {}

  static <T> T blocking(Callable<T> work) throws Exception {
    if (work == null) {
      throw new NullPointerException("work");
    }
    M m = ThreadTable.currentM();
    if (m != null && m.unendedRuns != 0) {
      HelpingFuture.endUnended(m); // before a wait that may need them (HelpingFuture#runInPlace)
    }
    if (m == null || m.p == null) {
      return work.call(); // not a worker, or a spare finishing its task P-less: nothing to hand off
    }
    G gp = m.curgOwn();
    if (gp == null || gp.status() != G.Grunning) {
      return work.call(); // not inside a task, or already inside blocking(): nothing to hand off
    }
    // Entering and leaving change the P's status, the spare count and the M's P in several
    // calls: a caller deep in a recursion must overflow here, before any, not halfway
    // (StackGuard). Leaving runs at this same depth, whatever work did.
    StackGuard.ensure();
    entersyscall(m, gp); // an Error inside leaves nothing entered
    try {
      return work.call();
    } finally {
      exitsyscall(m, gp);
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
      if (tok != -1
          && workWaits
          // A hint (rechecked under the lock; volatile, not the list's plain head): no idle M,
          // no eager hand-off (unless it may start a thread).
          && s.idle.nmidle != 0
          && !s.retake.returnComesSoon()
          && !holdBack
          && s.retake.retakeSyscall(pp, tok, true)) {
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
    exitsyscallSlow(m, gp, pp);
  }

  private static void exitsyscallSlow(M m, G gp, P oldp) {
    Scheduler s = m.sched;
    s.retake.noteLongCall(System.nanoTime() - m.since());
    m.precountTok = 0;
    // Counted (by itself, or by the retake that took the P): no lock needed to know it.
    if (oldp.status() != P.Pdead // a retired P is finished off under the lock
        && Spares.lockFree(s, m)) {
      m.p = null;
      gp.setStatus(G.Grunning);
      if (!Spares.takeFree(m)) {
        m.parkAtOnce = true; // finish the task P-less, as the locked path's spare below: counted
      }
      return;
    }
    for (; ; ) {
      P pp;
      s.lock.lock();
      try {
        s.retake.dropOrphanLocked(m);
        pp = Spares.findPLocked(s, m, oldp);
        if (pp == null
            && s.runState < Scheduler.STOP
            && s.spares.addSelf(m)) { // dropOrphanLocked above uncounted it
          // No P, but the spare budget has room: finish the task P-less, as a spare (counted
          // until the M looks for a P again: Spares.reacquire), rather than wait for a
          // P while its thread holds the stack. What it submits meanwhile goes to the global queue.
          gp.setStatus(G.Grunning);
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
        gp.setStatus(G.Grunning);
        return;
      }
      // That P was retired on its way to us: look again.
    }
  }
}
