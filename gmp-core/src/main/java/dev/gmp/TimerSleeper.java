package dev.gmp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The timer sleeper (Go's M blocked in netpoll until {@code pollUntil}): among the idle Ms, at
 * most one parks with a deadline, the earliest over every P's timer heap; the others park
 * untimed, so one M wakes per deadline, not all of them. On waking it takes an idle P and runs
 * every P's due timers first ({@code M.timerWake}); woken for work instead, it gives the role up.
 * Either way, timers still pending then need another sleeper, or with no P idle sysmon's eye on
 * the busy Ps ({@link #handOn}).
 *
 * <p><b>Dekker pair F</b>, this side: {@link #publish} writes {@link #until}, full fence, re-reads
 * every heap, repeating until the re-read finds nothing earlier; an adder writes its heap, fence,
 * reads {@code until} and kicks if its timer is earlier (Timers#added). The kick is {@link
 * #kicked} plus an unpark: cleared before each publish, checked by M.sleep before and after every
 * park, so it is never slept through. With no sleeper the pair runs through npidle: an adder that
 * finds none reads npidle and calls wakep; an M about to park fences after its npidle++ and reads
 * the heaps before it declines the role ({@link #claimSleeperLocked}).
 */
final class TimerSleeper {
  /**
   * The sleeper parks until this long before the deadline and spins the rest: parkNanos on
   * Linux overshoots by the timer slack (50 us by default), which would be every timer's
   * lateness (docs/benchmarks.md, "Timers"). 0 turns the spin off.
   */
  static final long SPIN_AHEAD_NANOS = 80_000;

  private static final VarHandle UNTIL;

  static {
    try {
      UNTIL = MethodHandles.lookup().findVarHandle(TimerSleeper.class, "until", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  static final int WOKEN = 0;
  static final int DUE = 1;
  static final int IDLE = 2;

  private final Scheduler s;
  private final Timers timers;

  /** The M holding the role, or null. Written under the scheduler lock. */
  volatile M holder;

  /**
   * The holder's deadline (NONE: no sleeper). Dekker F, the sleeper's word: written by publish
   * (release + full fence) and, with the role, under the scheduler lock; read volatile by adders.
   */
  volatile long until = Timers.NONE;

  /** Set by an adder whose timer is earlier than the deadline; cleared by the sleeper. */
  volatile boolean kicked;

  TimerSleeper(Scheduler s, Timers timers) {
    this.s = s;
    this.timers = timers;
  }

  /**
   * Wakes the sleeper to look again; with none, starts a spinner that will become one. With no
   * sleeper the flag is not needed: an M that claims the role after we read {@code holder}
   * re-reads the heaps after our fenced add.
   */
  void kick() {
    M sl = holder;
    if (sl != null) {
      kicked = true; // volatile: the sleeper clears it before each publish, checks it around parks
      LockSupport.unpark(sl.runner);
    } else {
      noSleeper();
    }
  }

  /**
   * Timers pending and no sleeper: a spinner that will park as one if a P idles (an M about to
   * park reads the heaps before it declines the role), else sysmon's eye on the busy Ps.
   */
  private void noSleeper() {
    if (s.idle.npidle > 0) {
      if (s.idle.nmspinning() == 0) {
        s.idle.wakep();
      }
    } else {
      dueWhileBusy(); // all Ps busy: their Ms look at the heaps before they park, if they park
    }
  }

  /** After a move of timers (scheduler lock held): kick the holder, if any, to look again. */
  void kickHolder() {
    M sl = holder;
    if (sl != null) {
      kicked = true; // volatile, as in kick
      LockSupport.unpark(sl.runner);
    }
  }

  /**
   * stopm, lock held, m just put on the idle list: m becomes the sleeper if there is none and
   * some timer is pending. The fence orders our npidle++ (pidleput) before the heap reads: Dekker
   * F's other half, against an adder that found no sleeper and read npidle.
   */
  boolean claimSleeperLocked(M m) {
    if (holder != null) {
      return false;
    }
    VarHandle.fullFence(); // StoreLoad: npidle++ before reading the heaps
    if (timers.earliestRacy() == Timers.NONE) {
      return false;
    }
    holder = m;
    return true;
  }

  /**
   * Dekker F, the sleeper's side: publish a deadline, fence, re-read; repeat until stable.
   * Package-private for gmp-stress's TimerAddVsSleeperStress.
   */
  long publish() {
    long e = earliestClean();
    for (; ; ) {
      UNTIL.setRelease(this, e); // the StoreLoad is the fence below
      if (!Mutations.TIMER_SLEEPER_NO_FENCE) {
        VarHandle.fullFence(); // StoreLoad: until before re-reading the heaps
      }
      long e2 = timers.earliestRacy();
      if (e2 >= e) {
        return e;
      }
      e = e2;
    }
  }

  /** earliestRacy, first dropping cancelled heads (tryLock) so we do not wake for them. */
  private long earliestClean() {
    long min = Timers.NONE;
    for (P p : s.procs.all) {
      TimerHeap h = p.timers;
      if (h.cancelledEntries() != 0 && h.nextWhen() != Timers.NONE && h.tryLock()) {
        try {
          h.cleanHeadLocked();
        } finally {
          h.unlock();
        }
      }
      min = Math.min(min, h.nextWhen());
    }
    return min;
  }

  /**
   * The sleeper's wait (stopm): until the earliest deadline, woken early by a kick. Returns WOKEN
   * (the note was consumed: a startm handed m a P, or it must exit), DUE (m.nextp holds an idle P
   * for the due timers; m.timerWake set) or IDLE (no longer the sleeper: wait on the note as any
   * idle M).
   */
  int sleep(M m) {
    for (; ; ) {
      kicked = false; // before publish: a later kick is either seen by publish or sets it again
      long until = publish();
      if (until == Timers.NONE) {
        if (vacateIfNone(m)) {
          return IDLE;
        }
        continue; // a timer came as we gave the role up: we hold it again
      }
      long left = until - Timers.now();
      if (left > SPIN_AHEAD_NANOS) {
        if (m.sleep(left - SPIN_AHEAD_NANOS, this)) {
          vacate(m);
          return WOKEN;
        }
        continue; // timeout or kick: look again
      }
      while (left > 0 && !kicked) {
        if (m.pollWoken()) {
          vacate(m);
          return WOKEN;
        }
        Thread.onSpinWait();
        left = until - Timers.now();
      }
      if (left > 0) {
        continue; // kicked
      }
      return takeP(m);
    }
  }

  /**
   * A timer is due, or added with no sleeper, and every P is busy. Their Ms look at the heaps
   * between tasks, but a task blocked without blocking() lets its M look at none: sysmon retakes
   * its P for the due timer (SysmonRetake), once awake. It may be in its deep sleep, entered
   * while every P idled and not ended by a task's start, and the timer would wait for the sleep's
   * end (CHANGELOG). So end it (one volatile read when awake). Lock not held.
   */
  private void dueWhileBusy() {
    s.sysmon.wakeForBacklog();
  }

  /** A deadline passed: take an idle P for it (m leaves the idle list), or give the role up. */
  private int takeP(M m) {
    boolean claimed = false;
    boolean busy = false;
    s.lock.lock();
    try {
      releaseLocked(m);
      if (!m.onIdleList) {
        claimed = true; // a startm took us: its note wake-up follows
      } else {
        P pp = s.idle.pidleget();
        busy = pp == null; // every P busy: their Ms look at the heaps before they park
        if (busy) {
          return IDLE;
        }
        s.idle.mremove(m);
        pp.heldBy = null; // placed in m's own nextp, which mexit gives back
        m.nextp = pp;
        m.timerWake = true;
        return DUE;
      }
    } finally {
      s.lock.unlock();
      if (busy) {
        dueWhileBusy();
      }
    }
    if (claimed) {
      VarHandle.fullFence(); // StoreLoad: holder = null before the re-read (Dekker with kick)
      handOn(); // we will run with a P: another M takes the sleeper role
    }
    return IDLE;
  }

  /**
   * publish saw no timer: gives the role up, unless a timer came meanwhile. Its adder read
   * {@code until} after our publish and found us the holder, so it only kicked us and started
   * nobody (TimerSleeper#kick): left there, the timer had no sleeper and, every P idle, nobody
   * would look at the heaps again (the chain of 1 ms timers in gmp-bench's ScheduledTimers
   * stalled for good about once in 2,600 timers at parallelism 2). Returns true if m is no
   * longer the sleeper; false if it keeps the role and must publish again.
   */
  private boolean vacateIfNone(M m) {
    boolean handOn = false;
    s.lock.lock();
    try {
      releaseLocked(m);
      VarHandle.fullFence(); // StoreLoad: holder = null before the re-read (Dekker with kick)
      if (timers.earliestRacy() == Timers.NONE) {
        return true; // an adder from now on finds no holder and wakes an M itself (kick)
      }
      if (m.onIdleList) {
        holder = m; // volatile, lock held (no one claimed it since our release, under this lock)
        return false;
      }
      handOn = true; // a startm took us: another M must sleep for the timer
    } finally {
      s.lock.unlock();
    }
    if (handOn) {
      handOn();
    }
    return true;
  }

  /** Woken for work: gives the role up and hands it on if timers are pending. */
  private void vacate(M m) {
    s.lock.lock();
    try {
      releaseLocked(m);
    } finally {
      s.lock.unlock();
    }
    VarHandle.fullFence(); // StoreLoad: holder = null before the re-read (Dekker with kick)
    handOn();
  }

  /**
   * Timers pending with no sleeper (an M left the role to run work, or took the last idle P):
   * another M takes the role if a P idles, else sysmon must watch the busy Ps, since a task there
   * blocked without blocking() lets its M look at no heap ({@link #noSleeper}). Called by an M
   * that leaves the role: woken for work ({@link #vacate}, {@link #takeP}, {@link #vacateIfNone}),
   * or woken for due timers once they are on its ring (Timers#check: Go's ready() wakes a spinner
   * for each goroutine a timer readies; this wakes one only when a timer is left, and a lone
   * periodic task is out of its heap until its run re-arms it); and by an M that stops spinning
   * ({@link Idle#resetspinning}): a sleeper woken as the counted spinner (startm took it for
   * outside work) handed the role on while its own spinning count made wakep start nobody, and a
   * spinner that took the last idle P leaves such timers to sysmon. A spinner alone is not
   * enough: with no P idle, the timer would wait for the running tasks' end, or for sysmon's deep
   * sleep's.
   */
  void handOn() {
    if (holder == null // volatile: released under the lock before the releaser's fence
        && s.runState < Scheduler.TIDYING
        && timers.earliestRacy() != Timers.NONE) {
      noSleeper(); // a holder meanwhile published after reading every heap: it covers them
    }
  }

  /** m gives the role up (if it still holds it). Scheduler lock held. */
  private void releaseLocked(M m) {
    if (holder == m) {
      holder = null;
      until = Timers.NONE; // volatile: adders see no sleeper
    }
  }
}
