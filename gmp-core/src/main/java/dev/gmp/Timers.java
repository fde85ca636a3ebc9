package dev.gmp;

import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

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
 * full fence, reads the sleeper's deadline and kicks it if that is later ({@link #added}); the
 * sleeper publishes its deadline, full fence, re-reads every heap (TimerSleeper#publish). The
 * sleeper's side and the no-sleeper case are described in {@link TimerSleeper}.
 */
final class Timers {
  /** "No timer": larger than every deadline. */
  static final long NONE = Long.MAX_VALUE;

  /** The timer clock's zero, so that deadlines are non-negative and compare with {@code <}. */
  private static final long ORIGIN = System.nanoTime();

  /** Scratch size for firing: due timers are moved out in batches of this many. */
  private static final int BATCH = 32;

  private final Scheduler s;
  final LongAdder fired = new LongAdder();
  /** Cancels of tasks in no heap, and the counts of heaps that were retired (moveLocked). */
  final LongAdder cancelledElsewhere = new LongAdder();

  /** The one idle M that sleeps for the earliest deadline (Go's netpoll block with pollUntil). */
  final TimerSleeper sleeper;

  Timers(Scheduler s) {
    this.s = s;
    this.sleeper = new TimerSleeper(s, this);
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
    M m = ThreadTable.currentM();
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
    VarHandle.fullFence(); // StoreLoad: nextWhen (written under the heap lock) before until
    if (when < sleeper.until) {
      sleeper.kick();
    }
  }

  /**
   * A cancel: a zombie of {@code h}, the heap that holds it (which counts it), or, for a task in
   * no heap (running, queued, due at once), counted here.
   */
  void cancelled(TimerHeap h) {
    if (h != null) {
      h.noteCancelled(); // getAndAdd, then read retired: one of us sees the other's write
      if (h.retired() && h.reclaimLateCancel()) {
        cancelledElsewhere.increment(); // counted after the heap handed its count over
      }
    } else {
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
        G g = s.newG(pp, batch[i]);
        batch[i] = null;
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

  // ---------------------------------------------------------------- for the sleeper

  /** The earliest deadline over every live P's heap, read without locks. */
  long earliestRacy() {
    long min = NONE;
    for (P p : s.procs.all) {
      min = Math.min(min, p.timers.nextWhen());
    }
    return min;
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
    sleeper.kickHolder(); // not wakep: we hold the scheduler lock; sysmon covers no sleeper
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
