package dev.gmp;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * Spares: Ms without a P. The spare budget ({@link #count}, maxSpareThreads) that bounds every
 * hand-off, and the one path by which an M without a P gets one ({@link #findPLocked}): after its
 * blocking call lost the P (Syscall#exitsyscall), or after it finished its task P-less
 * ({@link #reacquire}). Go's exitsyscall0 and stopm for the JVM, where the M that comes back is
 * awake already and a P reaches a parked M only by a wake-up. A spare finishes its own task and
 * never starts another without a P: at most parallelism threads run other work.
 */
final class Spares {
  private static final AtomicIntegerFieldUpdater<Spares> U_COUNT =
      AtomicIntegerFieldUpdater.newUpdater(Spares.class, "count");

  private final Scheduler s;

  /**
   * The spare budget's count: Ms counted against maxSpareThreads ({@link M#spare}), running a
   * task without a live P, or in a blocking call they counted themselves for. Changed by CAS or
   * atomic add only: blocking calls count and uncount themselves without the lock (Syscall), lock
   * holders count the Ms they take a P from ({@link #reserve}, {@link #settle}).
   */
  volatile int count;

  Spares(Scheduler s) {
    this.s = s;
  }

  /**
   * Reserves a place in the budget: false when maxSpareThreads are counted already. A CAS loop,
   * not a check under the lock: a blocking call counts itself without it.
   */
  boolean tryAdd() {
    int max = s.config.maxSpareThreads();
    for (int n = count; n < max; n = count) {
      if (U_COUNT.compareAndSet(this, n, n + 1)) {
        return true;
      }
    }
    return false;
  }

  /** Gives a place back (an M stops being a spare, or a reservation was not used). */
  void remove() {
    U_COUNT.getAndAdd(this, -1); // atomic: counts and uncounts race without the lock
  }

  /**
   * Before a CAS that takes mp's P: 0 if mp is counted already (its call counted itself:
   * Syscall#entersyscall), 1 if a place in the budget is now reserved for it, -1 if the budget
   * is spent (then the P stays: past the budget, calls keep their P). Reserving first keeps the
   * count within maxSpareThreads while calls count themselves without the lock.
   */
  int reserve(M mp) {
    if (mp == null || mp.spare()) {
      return 0;
    }
    return tryAdd() ? 1 : -1;
  }

  /**
   * After that CAS: won, mp is a spare, counted once (if its call counted itself meanwhile, our
   * reservation goes back); lost, the reservation goes back.
   */
  void settle(M mp, int reserved, boolean won) {
    if (reserved == 1 && (!won || !mp.markSpare())) {
      remove();
    }
  }

  /**
   * m counts itself as a spare, if nobody has and the budget has room (a call that work waits
   * behind, a returning call): true if this counted it. m's own thread. Its flag's
   * CAS races only sysmon counting m for a retake of its running task; that count then stands.
   */
  boolean addSelf(M m) {
    if (m.spare() || !tryAdd()) {
      return false;
    }
    if (!m.markSpare()) {
      remove(); // sysmon counted m meanwhile
      return false;
    }
    return true;
  }

  /** m, holding a P again, stops being a spare (its own thread). */
  void removeSelf(M m) {
    if (m.spare()) {
      m.clearSpare();
      remove();
    }
  }


  /**
   * How often a spare that finds nothing to take without the lock retries (tryLock, yielding its
   * CPU in between) before it blocks on the lock: blocked there, it waits to be unparked and then
   * for a CPU while the lock idles (docs/benchmarks.md, "Returns without the lock").
   */
  static final int LOCK_YIELDS = 16;

  /**
   * How long a P may sit in an idle M's hand-off, that M not yet running, before an M that needs
   * a P while work is queued takes it back ({@link #takeLateHandoffLocked}): on a VM whose host
   * steals CPU a woken thread can wait hundreds of microseconds (docs/benchmarks.md, "A P in
   * transit to a late M is taken back").
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
    // waits for a CPU while the lock idles: docs/benchmarks.md, "Returns without the lock"),
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
          s.spares.removeSelf(m);
          Lifecycle.tryTidyLocked(s);
        }
        pp = findPLocked(s, m, null);
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
        return SchedulingLoop.RETRY; // spinning if the P came with a new M's claim: it finds work
      }
      if (m.spinning) {
        s.idle.leaveSpinning(m); // retired on its way to us, with a claim taken over with it
      }
    }
  }

  /**
   * Where an M without a P finds one, lock held: {@code prefer} if it is idle (exitsyscall's old
   * P), any idle P, or the P of another M's blocking call that work waits for (the hand-off
   * sysmon's next round would make, to an M already awake). Null: none to be had now.
   */
  static P findPLocked(Scheduler s, M m, P prefer) {
    P pp = prefer != null ? s.idle.pidlegetSpecific(prefer) : null;
    if (pp == null) {
      pp = s.idle.pidleget();
    }
    if (pp == null) {
      pp = s.retake.takeSyscallPLocked(m);
    }
    return pp;
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
    s.spares.removeSelf(m);
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
    best.heldBy = Thread.currentThread(); // ours until acquirep (P#heldBy)
    best.setM(null);
    Counters.count(s.counters.retakes);
    if (Jfr.on) {
      Jfr.retake(s, best.id, "syscall", mp.id, System.nanoTime() - best.syscallwhen());
    }
    return best;
  }

  /**
   * An M that lost its P (a retake; a spare whose task is done: reacquire; a
   * blocking call past the spare budget: Syscall) finds none idle while work is queued: take back
   * a P handed more than {@link #LATE_HANDOFF_NANOS} ago to an M that has not picked it up,
   * rather than park beside it: an idle M's woken thread waiting for a CPU, or a new M whose
   * ThreadFactory call has not returned (a slow factory held the P for the whole call, while Ms
   * that could run its work parked). The CAS on that M's nextp races its {@link M#takeNextp}: one
   * winner. An idle M that loses wakes to no P and parks again, as after a retirement in transit
   * (stopm), dropping its spinning claim itself. A new M's claim comes with the P (in mstart, a
   * thread that finds no P leaves the count to whoever took it, as the watchdog does, since the
   * thread may never run): {@code m} is then spinning, and gives the claim back as any spinner
   * does, or at once if it does not go on to schedule (Syscall). Lock held.
   */
  static P takeLateHandoffLocked(Scheduler s, M m) {
    boolean queued = s.global.liveSizeLocked() != 0;
    long now = 0;
    for (P pp : s.procs.all) {
      if (pp.status() != P.Pidle) { // volatile, first: a startlockedm's handedTo store precedes it
        continue;
      }
      M to = pp.handedTo;
      if (to == null || to == m || (!queued && pp.runq.isEmpty())) {
        continue;
      }
      if (now == 0) {
        now = System.nanoTime();
      }
      if (now - pp.handedAt > LATE_HANDOFF_NANOS) {
        int took = cancelHandoffLocked(s, pp, to);
        if (took != LOST) {
          if (took == TOOK_SPINNING) {
            if (m.spinning) {
              s.idle.unclaimSpinningLocked(); // m's own claim, with its recheck, stands for both
            } else {
              m.spinning = true;
            }
          }
          Counters.count(s.counters.lateHandoffTakes);
          return pp;
        }
      }
    }
    return null;
  }

  /** {@link #cancelHandoffLocked}'s outcomes. */
  static final int LOST = 0;

  static final int TOOK = 1;

  static final int TOOK_SPINNING = 2;

  /**
   * Takes back pp, handed to {@code to}, which has not picked it up: LOST if {@code to} took it
   * first (the CAS on its nextp races its {@link M#takeNextp}). A new M's spinning claim comes
   * with the P (TOOK_SPINNING: the caller now holds it), since its thread may never run, and the
   * M is dropped if the starter has not come to it (Threads#dropUnstartedLocked). An idle M keeps
   * its claim and drops it itself when it wakes to no P. Lock held.
   */
  static int cancelHandoffLocked(Scheduler s, P pp, M to) {
    boolean fresh = pp.handedToNew;
    boolean spin = fresh && to.spinning; // before the CAS, which takeNextp races
    if (!to.cancelNextp(pp)) {
      return LOST;
    }
    pp.heldBy = Thread.currentThread(); // first: the taker's hand until it places or acquires it
    pp.handedTo = null;
    if (spin) {
      to.spinning = false; // a later write-off of that M must not give the count back too
    }
    if (fresh) {
      s.threads.dropUnstartedLocked(to);
    }
    return spin ? TOOK_SPINNING : TOOK;
  }
}
