package dev.gmp;

/**
 * An M that has no P after a task (a spare: its blocking call lost the P; or its P was retaken or
 * retired) finds one, or runs on without one, or parks: Go's exitsyscall0 and stopm for the JVM,
 * where the M that comes back is awake already and a P reaches a parked M only by a wake-up.
 */
final class Spares {
  private Spares() {}

  /**
   * A task run on that did not block (CPU work, run beside the Ps' own: oversubscription) makes
   * its M pass up its next chances to run on, 1, 2, 4, ... up to this many; one that blocked
   * clears it. Among many short calls every gamble wins and nothing is skipped; among CPU tasks
   * with a call now and then (BlockingMix) the gambles fade out.
   */
  static final int RUN_ON_MAX_BACKOFF = 64;

  static void runOnOutcome(M m, boolean blocked) {
    if (blocked) {
      m.runOnBackoff = 0;
      m.runOnSkips = 0;
    } else {
      m.runOnBackoff = Math.min(RUN_ON_MAX_BACKOFF, Math.max(1, m.runOnBackoff * 2));
      m.runOnSkips = m.runOnBackoff;
    }
  }

  /** Whether this chance to run on is taken (false: one passed up, per runOnOutcome). */
  static boolean mayRunOn(M m) {
    if (m.runOnSkips > 0) {
      m.runOnSkips--;
      return false;
    }
    return true;
  }

  /**
   * Finds a P for an M that has none (after a retake): {@link SchedulingLoop#RETRY} once it holds
   * one, a G to run P-less (runOnFree, runOnLocked), or null if the M must exit.
   */
  static G reacquire(M m) {
    Scheduler s = m.sched;
    boolean credit = m.runOnCredit; // m's own fields
    m.runOnCredit = false;
    if (m.ranOn) { // the task this M ran on is done: did it block, as the gamble assumed?
      m.ranOn = false;
      runOnOutcome(m, credit);
    }
    // Without the lock first; then, rather than block on it (a blocked waiter is unparked, then
    // waits for a CPU while the lock idles: with dozens of spares on 2 CPUs, milliseconds),
    // tryLock a few times, yielding the CPU in between, and retry (switch gmp.spareLockYields).
    boolean locked = false;
    for (int i = 0; !locked && m.spare(); i++) {
      if (lockFree(s, m)) {
        if (takeFree(m)) {
          return SchedulingLoop.RETRY;
        }
        if (credit) {
          int skips = m.runOnSkips;
          G free = runOnFree(s, m);
          if (free != null) {
            return free;
          }
          credit = m.runOnSkips == skips; // a chance passed up is this task's one chance
        }
      }
      if (i >= Switches.SPARE_LOCK_YIELDS) {
        break;
      }
      locked = s.lock.tryLock();
      if (!locked) {
        Thread.yield();
      }
    }
    for (; ; ) {
      P pp;
      G runOn = null;
      if (!locked) {
        s.lock.lock();
      }
      locked = false;
      try {
        if (m.spare()) { // a task finished P-less after its blocking call (Syscall): spare no more
          s.retake.removeSelfAsSpare(m);
          Lifecycle.tryTidyLocked(s);
        }
        pp = s.idle.pidleget();
        if (pp == null) {
          pp = s.retake.takeSyscallPLocked(m); // another call's P, when work waits for it
        }
        if (pp == null) {
          // Or one an idle M is late to pick up. Here, not in stopm: an M that merely found
          // nothing to do would take back the spinner wakep just started for it, a wasted
          // wake-up per park (forkJoinTree at parallelism 2: ~1.3 -> ~1.6 ms).
          pp = takeLateHandoffLocked(s, m);
        }
        if (pp == null && credit) {
          runOn = runOnLocked(s, m);
        }
        credit = false; // one chance per task, as before a retry
      } finally {
        s.lock.unlock();
      }
      if (runOn != null) {
        return runOn;
      }
      if (pp == null) {
        return s.idle.stopm(m) ? SchedulingLoop.RETRY : null;
      }
      if (s.acquirep(m, pp)) {
        return SchedulingLoop.RETRY;
      }
    }
  }

  /**
   * A spare whose task blocked (its call lost the P, or ran P-less) finds no P: rather than park
   * and leave the next queued task to a P-holding M, it runs that task P-less, still counted as
   * a spare, as ForkJoinPool's compensated worker runs on past the parallelism when its block
   * ends. A deviation from Go (a G without a P never runs there): on the JVM the thread is awake
   * already, while a P reaches a parked M only through a wake-up, so with many short calls the
   * calls in flight stop growing where returning Ms park as often as sysmon wakes one
   * (docs/benchmarks.md, "Spares run on"). The chain ends at a task that does not block (and the
   * M then passes up its next chances, runOnOutcome: CPU work run beside the Ps' own only
   * oversubscribes the CPUs), past the spare budget, at shutdownNow, and while a returning call
   * waits for a P (GlobalQueue#getForSpare). Switch gmp.spareRunOn. Lock held.
   */
  private static G runOnLocked(Scheduler s, M m) {
    if (!Switches.SPARE_RUN_ON
        || s.runState >= Scheduler.STOP
        || s.global.liveSizeLocked() == 0 // nothing to run: no chance, so none passed up either
        || !s.retake.addSelfAsSpare(m)) { // the budget (tryAddSpare: calls count without the lock)
      return null;
    }
    G gp = mayRunOn(m) ? s.global.getForSpare() : null;
    if (gp == null) {
      s.retake.removeSelfAsSpare(m);
      return null;
    }
    s.counters.runOns.increment();
    m.ranOn = true;
    return gp;
  }

  /**
   * Whether m may settle without the lock (takeFree, runOnFree): it is counted (M#spare), no P is
   * idle (the locked path takes that, as better), and no shutdown has begun (its tidy-up counts
   * spares under the lock). Switch gmp.precountCalls.
   */
  static boolean lockFree(Scheduler s, M m) {
    return Switches.PRECOUNT_CALLS
        && m.spare()
        && s.idle.npidle == 0
        && s.runState < Scheduler.SHUTDOWN;
  }

  /**
   * A spare (lockFree) takes the P of a blocking call that counted itself (Syscall#entersyscall)
   * without the lock: the P's status CAS on the call's token settles the race with its return
   * and with other takers; the victim is counted already, so this M's count simply ends (the
   * count passes from the taker to the victim). False: nothing taken, this M is still counted.
   */
  static boolean takeFree(M m) {
    Scheduler s = m.sched;
    P pp = takeSyscallPFree(s, m);
    if (pp == null) {
      return false;
    }
    if (!s.acquirep(m, pp)) {
      return false; // retired in transit (acquirep finished it off): still a spare
    }
    m.parkAtOnce = false;
    s.retake.removeSelfAsSpare(m);
    return true;
  }

  /**
   * runOnLocked without the lock, for a spare counted already (its count carries over to the
   * task it runs on): the G comes from a P's ring, taken as a thief takes one (a CAS on the
   * ring's head), not from the global queue, whose consumer side needs the lock. The Ps' rings
   * hold the batches their Ms took before their calls blocked: what waits for those calls to
   * return. The same conditions as runOnLocked; the caller checked lockFree.
   */
  private static G runOnFree(Scheduler s, M m) {
    if (!Switches.SPARE_RUN_ON) {
      return null;
    }
    P[] all = s.procs.all;
    int n = all.length;
    int off = m.nextRandom() % n;
    boolean chance = false;
    for (int i = 0; i < n; i++) {
      RunQueue q = all[(off + i) % n].runq;
      if (q.ringSize() == 0) {
        continue;
      }
      if (!chance && !mayRunOn(m)) { // a chance only where there is a G (as runOnLocked)
        return null;
      }
      chance = true;
      G gp = q.pollRingAsConsumer();
      if (gp != null) {
        s.counters.runOns.increment();
        m.ranOn = true;
        return gp;
      }
    }
    return null;
  }

  /**
   * Retake#takeSyscallPLocked without the lock, for calls that counted themselves only: the
   * longest one with work waiting (Retake#oldestSyscallWithWork). Returns the P, Pidle and owned
   * by no M, for the caller's acquirep; or null.
   */
  private static P takeSyscallPFree(Scheduler s, M m) {
    if (!Switches.EXITSYSCALL_TAKE) {
      return null;
    }
    P best = s.retake.oldestSyscallWithWork(m, true);
    if (best == null) {
      return null;
    }
    long raw = best.statusRaw(); // volatile: the token for the CAS below, read before its M
    M mp = best.m();
    if (P.state(raw) != P.Psyscall
        || mp == null
        || mp == m
        || mp.precountTok != raw // a newer call, which did not count itself, or is not there
        || !best.retakeSyscall(raw)) { // CAS: its return and other takers race
      return null;
    }
    best.setM(null);
    s.counters.retakes.increment();
    if (Jfr.on) {
      Jfr.retake(s, best.id, "syscall", mp.id, System.nanoTime() - best.syscallwhen());
    }
    return best;
  }

  /**
   * An M that lost its P (a retake; a spare whose task is done: reacquire; a
   * blocking call past the spare budget: Syscall) finds none idle while work is queued: take back
   * a P handed to an idle M more than {@link Switches#LATE_HANDOFF_NANOS} ago whose thread has
   * not picked it up (a woken thread waiting for a CPU), rather than park beside it. The CAS on
   * that M's nextp races its {@link M#takeNextp}: one winner. The loser there wakes to no P and
   * parks again, as after a retirement in transit (stopm); its spinning claim, if any, it drops
   * itself. Lock held.
   */
  static P takeLateHandoffLocked(Scheduler s, M m) {
    if (Switches.LATE_HANDOFF_NANOS == 0) {
      return null;
    }
    boolean queued = s.global.liveSizeLocked() != 0;
    long now = 0;
    for (P pp : s.procs.all) {
      M to = pp.handedTo;
      if (to == null || to == m || pp.status() != P.Pidle || (!queued && pp.runq.isEmpty())) {
        continue;
      }
      if (now == 0) {
        now = System.nanoTime();
      }
      if (now - pp.handedAt > Switches.LATE_HANDOFF_NANOS && to.cancelNextp(pp)) {
        pp.handedTo = null;
        s.counters.lateHandoffTakes.increment();
        return pp;
      }
    }
    return null;
  }
}
