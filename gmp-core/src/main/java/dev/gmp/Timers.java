package dev.gmp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Timers without a timer thread (Go's runtime/time.go and its hooks in proc.go): every P owns a
 * {@link TimerHeap}; a worker adds to its own P's heap, any other thread to one P's heap chosen
 * by its thread id (under that heap's lock, held for one sift: the lock-free injection side was
 * tried first, but arming through a worker let a late-armed timer overtake an earlier one, and
 * the heap lock settles the race with shutdown by itself); the scheduling loop runs its P's due
 * timers before it looks at its queues (checkTimers), runs every P's due timers before it gives
 * its P up (the last steal pass), and one parked M, the <i>sleeper</i>, sleeps no longer than the
 * earliest deadline over all heaps (Go's pollUntil / netpoll block). A fired timer becomes a G on
 * the ring of the P that ran it. For timers overdue a whole round on Ps too busy to look, sysmon
 * starts a spinner (Go's sysmon startm for timers).
 *
 * <p><b>Dekker pair F</b> (timer add vs the sleeper): the adder writes the heap (its nextWhen),
 * full fence, reads {@link #sleepUntil} and kicks the sleeper if its deadline is earlier ({@link
 * #added}); the sleeper writes sleepUntil, full fence, re-reads every heap and sleeps no longer
 * than what it saw ({@link #publish}). So either the sleeper sees the new timer, or the adder sees
 * the sleeper's later deadline and kicks it. With no sleeper (sleepUntil NONE) the adder starts a
 * spinner through wakep if a P is idle; an M about to park fences after its npidle++ and reads
 * the heaps before it declines the sleeper role ({@link #claimSleeperLocked}), the other half.
 */
final class Timers {
  /** "No timer": larger than every deadline. */
  static final long NONE = Long.MAX_VALUE;

  /** The timer clock's zero, so that deadlines are non-negative and compare with {@code <}. */
  private static final long ORIGIN = System.nanoTime();

  /**
   * The sleeper parks until this long before the deadline and spins the rest: parkNanos on
   * Linux overshoots by the timer slack (50 us by default; p50 71 us measured for 1 ms parks,
   * 2 cores, JDK 25), which would be every timer's lateness. 0 turns the spin off.
   */
  static final long SPIN_AHEAD_NANOS = Long.getLong("gmp.timerSpinAheadNanos", 80_000);

  /** Scratch size for firing: due timers are moved out in batches of this many. */
  private static final int BATCH = 32;

  private static final VarHandle SLEEP_UNTIL;

  static {
    try {
      SLEEP_UNTIL = MethodHandles.lookup().findVarHandle(Timers.class, "sleepUntil", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  static final int WOKEN = 0;
  static final int DUE = 1;
  static final int IDLE = 2;

  private final Scheduler s;
  final LongAdder fired = new LongAdder();
  /** Cancels of tasks in no heap, and the counts of heaps that were retired (moveLocked). */
  final LongAdder cancelledElsewhere = new LongAdder();

  /** The M sleeping for the earliest timer, or null. Written under the scheduler lock. */
  volatile M sleeper;

  /**
   * The sleeper's deadline (NONE: no sleeper). Dekker F, the sleeper's word: written by publish
   * (release + full fence) and, with the role, under the scheduler lock; read volatile by adders.
   */
  volatile long sleepUntil = NONE;

  /** Set by an adder whose timer is earlier than the sleeper's deadline; cleared by the sleeper. */
  volatile boolean kicked;

  Timers(Scheduler s) {
    this.s = s;
  }

  static long now() {
    return System.nanoTime() - ORIGIN;
  }

  /** now() + delay, saturating (a delay of Long.MAX_VALUE ns means never, not the past). */
  static long deadline(long delayNanos) {
    return delayNanos <= 0 ? now() + delayNanos : saturatedAdd(now(), delayNanos);
  }

  /** a + b for b &gt; 0, capped below NONE. */
  static long saturatedAdd(long a, long b) {
    long r = a + b;
    return r < a || r >= NONE ? NONE - 1 : r;
  }

  // ---------------------------------------------------------------- adding

  /**
   * Schedules t: due already -> runs as a task now (execute's path: runnext from a worker);
   * else into a heap: the calling worker's own P's, or for any other thread one P's chosen by
   * its thread id (one outside thread's timers share a heap, so they keep their order).
   *
   * @throws java.util.concurrent.RejectedExecutionException if the executor is shut down
   */
  <T extends ScheduledTask<?>> T schedule(T t, long delayNanos) {
    if (delayNanos <= 0) { // decided on the delay: one clock read per schedule (in deadline)
      s.submit(t); // throws if shut down: then it is not counted
      fired.increment();
    } else if (!add(t)) {
      throw s.rejected(t);
    }
    return t;
  }

  /** A periodic task ran and is due again: back into a heap, unless shut down meanwhile. */
  void rearm(ScheduledTask<?> t) {
    if (!add(t)) {
      t.cancel(false); // STPE: periodic tasks do not outlive shutdown
    }
  }

  /**
   * Adds t to a heap; false if the executor is shut down. The run state is read under the heap
   * lock, and shutdown writes it before it takes each heap lock (onShutdownLocked, tidy): so
   * either shutdown's sweep sees t, or we see the state and refuse. The same lock argument
   * covers a P retired or retaken meanwhile: that writes the status before it takes the heap
   * lock to move the timers, so either the move took t or we see the status and move them.
   */
  private boolean add(ScheduledTask<?> t) {
    return add(target(), t);
  }

  /** Adds t to pp's heap (gmp-stress calls it for a given P). */
  boolean add(P pp, ScheduledTask<?> t) {
    TimerHeap h = pp.timers;
    h.lock();
    try {
      if (s.runState >= Scheduler.SHUTDOWN) {
        return false;
      }
      h.addLocked(t);
    } finally {
      h.unlock();
    }
    added(t.when);
    if (pp.status() == P.Pdead) {
      rehome(pp);
    }
    return true;
  }

  private P target() {
    M m = Threads.currentM();
    if (m != null && m.sched == s) {
      P pp = m.p;
      if (pp != null && m.curg() != null && pp.status() == P.Prunning) {
        return pp;
      }
    }
    P[] all = s.procs.all;
    return all[(int) (Thread.currentThread().threadId() % all.length)];
  }

  /** Dekker F, the adder's side: the heap write above, fence, then the sleeper's deadline. */
  void added(long when) {
    VarHandle.fullFence(); // StoreLoad: nextWhen (written under the heap lock) before sleepUntil
    if (when < sleepUntil) {
      kick();
    }
  }

  /**
   * Wakes the sleeper to look again; with none, starts a spinner that will become one. With no
   * sleeper the flag is not needed: an M that claims the role after we read {@code sleeper}
   * re-reads the heaps after our fenced add.
   */
  private void kick() {
    M sl = sleeper;
    if (sl != null) {
      kicked = true; // volatile: the sleeper clears it before each publish, checks it around parks
      LockSupport.unpark(sl.runner);
    } else if (s.idle.npidle > 0 && s.idle.nmspinning() == 0) {
      s.idle.wakep(); // all Ps busy otherwise: their Ms look at the heaps before they park
    }
  }

  /**
   * A cancel: a zombie of {@code h}, the heap that holds it (which counts it), or, for a task in
   * no heap (running, queued, due at once), counted here.
   */
  void cancelled(TimerHeap h, boolean elsewhere) {
    if (h != null) {
      h.noteCancelled();
    } else if (elsewhere) {
      cancelledElsewhere.increment();
    }
    if (s.runState >= Scheduler.SHUTDOWN) {
      tidyAfterCancel();
    }
  }

  private void tidyAfterCancel() {
    s.lock.lock();
    try {
      Lifecycle.tryTidyLocked(s); // the last pending timer of a shut-down executor is gone
    } finally {
      s.lock.unlock();
    }
    Lifecycle.finishTermination(s);
  }

  // ---------------------------------------------------------------- firing

  /** checkTimers at the top of findRunnable: pp's due timers, or every P's after a timer wake. */
  void check(M m, P pp) {
    long now = now();
    if (m.timerWake) {
      m.timerWake = false;
      runDueEverywhere(m, pp, now);
    } else if (pp.timers.nextWhen() <= now) {
      runDue(m, pp, pp.timers, now);
    }
  }

  /** The last steal pass, before m gives pp up: every P's due timers. Returns how many fired. */
  int stealDue(M m, P pp) {
    long min = earliestRacy();
    if (min == NONE) {
      return 0;
    }
    long now = now();
    return min <= now ? runDueEverywhere(m, pp, now) : 0;
  }

  private int runDueEverywhere(M m, P pp, long now) {
    int n = 0;
    for (P p2 : s.procs.all) {
      if (p2.timers.nextWhen() <= now) {
        n += runDue(m, pp, p2.timers, now);
      }
    }
    return n;
  }

  /**
   * Moves h's due timers to pp's ring as Gs (never runnext: the spawn chain keeps it, and the
   * ring keeps the timers' order). tryLock: a carrier never waits on a heap; whoever holds it is
   * firing or adding and the next round looks again. Returns how many fired.
   */
  private int runDue(M m, P pp, TimerHeap h, long now) {
    ScheduledTask<?>[] batch = m.timerBatch;
    if (batch == null) {
      batch = m.timerBatch = new ScheduledTask<?>[BATCH];
    }
    int total = 0;
    for (; ; ) {
      int k = 0;
      // Never more than the ring has room for: an overflow would send older timers to the
      // global queue behind newer ones. The rest stay due in the heap for the next round.
      int max = Math.min(BATCH, pp.runq.room());
      if (max == 0 || !h.tryLock()) {
        break;
      }
      try {
        while (k < max) {
          ScheduledTask<?> t = h.pollDueLocked(now);
          if (t == null) {
            break;
          }
          batch[k++] = t;
        }
      } finally {
        h.unlock();
      }
      for (int i = 0; i < k; i++) {
        G g = new G();
        g.task = batch[i];
        batch[i] = null;
        g.goid = pp.nextGoid(s);
        g.setStatus(G.Grunnable);
        pp.runq.put(g, false, s.global); // fits (room above): only we push to our ring
      }
      total += k;
      if (k < max) {
        break;
      }
    }
    if (total != 0) {
      fired.add(total);
      if (total > 1) {
        VarHandle.fullFence(); // Dekker A: the ring's release stores before wakep's reads
        s.idle.wakep(); // this M runs one; others may take the rest
      }
    }
    return total;
  }

  /**
   * sysmon's fallback (Go's sysmon startm for timers): a timer overdue since {@code before} sits
   * on a P too busy to look, or the sleeper overslept; start a spinner on an idle P, which runs it
   * in its last steal pass. sysmon never fires timers itself: into the global queue they could
   * overtake earlier ones already on a ring, and at parallelism 1 timers fire in deadline order.
   */
  int sysmonCheck(long before) {
    if (s.idle.npidle == 0 || earliestRacy() > before) {
      return 0;
    }
    s.idle.wakep();
    return 1;
  }

  // ---------------------------------------------------------------- the sleeper

  /** The earliest deadline over every live P's heap, read without locks. */
  long earliestRacy() {
    long min = NONE;
    for (P p : s.procs.all) {
      min = Math.min(min, p.timers.nextWhen());
    }
    return min;
  }

  /**
   * stopm, lock held, m just put on the idle list: m becomes the sleeper if there is none and
   * some timer is pending. The fence orders our npidle++ (pidleput) before the heap reads: Dekker
   * F's other half, against an adder that found no sleeper and read npidle.
   */
  boolean claimSleeperLocked(M m) {
    if (sleeper != null) {
      return false;
    }
    VarHandle.fullFence(); // StoreLoad: npidle++ before reading the heaps
    if (earliestRacy() == NONE) {
      return false;
    }
    sleeper = m;
    return true;
  }

  /**
   * Dekker F, the sleeper's side: publish a deadline, fence, re-read; repeat until stable.
   * Package-private for gmp-stress's TimerAddVsSleeperStress.
   */
  long publish() {
    long e = earliestClean();
    for (; ; ) {
      SLEEP_UNTIL.setRelease(this, e); // the StoreLoad is the fence below
      if (!Mutations.TIMER_SLEEPER_NO_FENCE) {
        VarHandle.fullFence(); // StoreLoad: sleepUntil before re-reading the heaps
      }
      long e2 = earliestRacy();
      if (e2 >= e) {
        return e;
      }
      e = e2;
    }
  }

  /** earliestRacy, first dropping cancelled heads (tryLock) so we do not wake for them. */
  private long earliestClean() {
    long min = NONE;
    for (P p : s.procs.all) {
      TimerHeap h = p.timers;
      if (h.zombies() != 0 && h.nextWhen() != NONE && h.tryLock()) {
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
      if (until == NONE) {
        vacate(m, false);
        return IDLE;
      }
      long left = until - now();
      if (left > SPIN_AHEAD_NANOS) {
        if (m.sleep(left - SPIN_AHEAD_NANOS, this)) {
          vacate(m, true);
          return WOKEN;
        }
        continue; // timeout or kick: look again
      }
      while (left > 0 && !kicked) {
        if (m.pollWoken()) {
          vacate(m, true);
          return WOKEN;
        }
        Thread.onSpinWait();
        left = until - now();
      }
      if (left > 0) {
        continue; // kicked
      }
      int r = takeP(m);
      if (r == DUE) {
        return DUE;
      }
      return r;
    }
  }

  /** A deadline passed: take an idle P for it (m leaves the idle list), or give the role up. */
  private int takeP(M m) {
    boolean claimed = false;
    s.lock.lock();
    try {
      if (sleeper == m) {
        sleeper = null;
        sleepUntil = NONE;
      }
      if (!m.onIdleList) {
        claimed = true; // a startm took us: its note wake-up follows
      } else {
        P pp = s.idle.pidleget();
        if (pp == null) {
          return IDLE; // every P busy: their Ms look at the heaps before they park
        }
        s.idle.mremove(m);
        m.nextp = pp;
        m.timerWake = true;
        return DUE;
      }
    } finally {
      s.lock.unlock();
    }
    if (claimed && earliestRacy() != NONE && s.idle.npidle > 0) {
      s.idle.wakep(); // we will run with a P: another M takes the sleeper role
    }
    return IDLE;
  }

  private void vacate(M m, boolean handOn) {
    s.lock.lock();
    try {
      if (sleeper == m) {
        sleeper = null;
        sleepUntil = NONE;
      }
    } finally {
      s.lock.unlock();
    }
    if (handOn && earliestRacy() != NONE && s.idle.npidle > 0 && s.runState < Scheduler.TIDYING) {
      s.idle.wakep(); // woken for work: another M takes the sleeper role
    }
  }

  // ---------------------------------------------------------------- moving, shutdown, stats

  /**
   * Moves a retired, retaken or zombie P's timers to the live P with its index (Go's
   * moveTimers); kicks the sleeper, whose scan may have missed them. Lock held.
   */
  void moveLocked(P from) {
    Procs procs = s.procs;
    P to = procs.all[from.id % procs.all.length];
    if (to == from) {
      return;
    }
    List<ScheduledTask<?>> moved = new ArrayList<>();
    from.timers.lock();
    try {
      from.timers.drainLocked(moved);
      cancelledElsewhere.add(from.timers.takeCancelledCountLocked()); // stats sum live Ps only
    } finally {
      from.timers.unlock();
    }
    if (moved.isEmpty()) {
      return;
    }
    to.timers.lock();
    try {
      for (ScheduledTask<?> t : moved) {
        to.timers.addLocked(t);
      }
    } finally {
      to.timers.unlock();
    }
    VarHandle.fullFence(); // Dekker F as for an add
    kicked = true;
    M sl = sleeper;
    if (sl != null) {
      LockSupport.unpark(sl.runner);
    }
  }

  /** An adder found its P retired or retaken after adding: move that P's timers to a live one. */
  private void rehome(P pp) {
    s.lock.lock();
    try {
      moveLocked(pp);
    } finally {
      s.lock.unlock();
    }
  }

  /** shutdown(): periodic timers are cancelled (STPE's default policy); one-shots still run. */
  void onShutdownLocked() {
    for (P p : s.procs.all) {
      cancelPeriodic(p.timers);
    }
    for (P z : s.retake.zombies) {
      cancelPeriodic(z.timers);
    }
  }

  private void cancelPeriodic(TimerHeap h) {
    h.lock();
    try {
      h.cancelPeriodicLocked(); // counted by the heap as it removes them
    } finally {
      h.unlock();
    }
  }

  /** shutdownNow(): every pending timer, returned (not cancelled), as STPE does. Lock held. */
  void drainLocked(List<Runnable> out) {
    List<ScheduledTask<?>> all = new ArrayList<>();
    for (P p : s.procs.all) {
      drain(p.timers, all);
    }
    for (P z : s.retake.zombies) {
      drain(z.timers, all);
    }
    out.addAll(all);
  }

  private static void drain(TimerHeap h, List<ScheduledTask<?>> out) {
    h.lock();
    try {
      h.drainLocked(out);
    } finally {
      h.unlock();
    }
  }

  /** Tidy's question after shutdown: is any timer still to fire? Compacts as it looks. Lock held. */
  boolean anyLiveLocked() {
    for (P p : s.procs.all) {
      TimerHeap h = p.timers;
      if (h.size() == 0) {
        continue;
      }
      h.lock();
      try {
        h.compactLocked();
        if (h.size() != 0) {
          return true;
        }
      } finally {
        h.unlock();
      }
    }
    return false;
  }

  long cancelledCount() {
    long n = cancelledElsewhere.sum();
    for (P p : s.procs.all) {
      n += p.timers.cancelledCount();
    }
    return n;
  }

  int pending() {
    int n = 0;
    for (P p : s.procs.all) {
      n += p.timers.live();
    }
    return n;
  }
}
