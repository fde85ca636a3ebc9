package dev.gmp;

/**
 * An M that has no P after a task (a spare: its blocking call lost the P; or its P was retaken or
 * retired) finds one or parks: Go's exitsyscall0 and stopm for the JVM, where the M that comes
 * back is awake already and a P reaches a parked M only by a wake-up.
 */
final class Spares {
  private Spares() {}

  /**
   * How often a spare that finds nothing to take without the lock retries (tryLock, yielding its
   * CPU in between) before it blocks on the lock: blocked there, it waits to be unparked and then
   * for a CPU while the lock idles (docs/benchmarks.md, "Returns without the lock").
   */
  static final int LOCK_YIELDS = 16;

  /**
   * How long a P may sit in an idle M's hand-off, that M not yet running, before an M that needs
   * a P while work is queued takes it back ({@link #takeLateHandoffLocked}): on a VM whose host
   * steals CPU a woken thread can wait hundreds of microseconds (docs/benchmarks.md).
   */
  static final long LATE_HANDOFF_NANOS = 100_000;

  /**
   * Finds a P for an M that has none (a spare whose task is done, or an M whose P was retaken or
   * retired): {@link SchedulingLoop#RETRY} once it holds one, or null if the M must exit. A P-less
   * M never starts a queued task: it takes a P (an idle one, the P of another M's blocking call
   * when work waits, or one an idle M is late to pick up) or parks until one is handed to it.
   */
  static G reacquire(M m) {
    Scheduler s = m.sched;
    // Without the lock first; then, rather than block on it (a blocked waiter is unparked, then
    // waits for a CPU while the lock idles: with dozens of spares on 2 CPUs, milliseconds),
    // tryLock a few times, yielding the CPU in between, and retry.
    boolean locked = false;
    for (int i = 0; !locked && m.spare(); i++) {
      if (lockFree(s, m) && takeFree(m)) {
        return SchedulingLoop.RETRY;
      }
      if (i >= LOCK_YIELDS) {
        break;
      }
      locked = s.lock.tryLock();
      if (!locked) {
        Thread.yield();
      }
    }
    for (; ; ) {
      P pp;
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
          // nothing to do would take back the spinner wakep just started for it.
          pp = takeLateHandoffLocked(s, m);
        }
      } finally {
        s.lock.unlock();
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
   * Whether m may settle without the lock (takeFree): it is counted (M#spare), no P is
   * idle (the locked path takes that, as better), and no shutdown has begun (its tidy-up counts
   * spares under the lock).
   */
  static boolean lockFree(Scheduler s, M m) {
    return m.spare()
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
   * Retake#takeSyscallPLocked without the lock, for calls that counted themselves only: the
   * longest one with work waiting (Retake#oldestSyscallWithWork). Returns the P, Pidle and owned
   * by no M, for the caller's acquirep; or null.
   */
  private static P takeSyscallPFree(Scheduler s, M m) {
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
   * a P handed to an idle M more than {@link #LATE_HANDOFF_NANOS} ago whose thread has
   * not picked it up (a woken thread waiting for a CPU), rather than park beside it. The CAS on
   * that M's nextp races its {@link M#takeNextp}: one winner. The loser there wakes to no P and
   * parks again, as after a retirement in transit (stopm); its spinning claim, if any, it drops
   * itself. Lock held.
   */
  static P takeLateHandoffLocked(Scheduler s, M m) {
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
      if (now - pp.handedAt > LATE_HANDOFF_NANOS && to.cancelNextp(pp)) {
        pp.handedTo = null;
        s.counters.lateHandoffTakes.increment();
        return pp;
      }
    }
    return null;
  }
}
