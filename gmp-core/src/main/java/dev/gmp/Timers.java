package dev.gmp;

import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
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
 * <p><b>Dekker pair F</b> (timer add vs the sleeper): an adder whose timer became its heap's
 * earliest writes the heap (its nextWhen), full fence, reads the sleeper's deadline and kicks it
 * if that is later ({@link #added}; a later timer needs none, see {@link #add(P, ScheduledTask)}); the
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

  /**
   * now() + delay, saturating (a delay of Long.MAX_VALUE ns means never, not the past); a negative
   * delay is none, as ScheduledThreadPoolExecutor takes it: a fixed-rate task's first run at
   * now - 10 s would otherwise be followed by ten catch-up runs, and a delay near Long.MIN_VALUE
   * wrapped getDelay to the far future.
   */
  static long deadline(long delayNanos) {
    return delayNanos <= 0 ? now() : saturatedAdd(now(), delayNanos);
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
   * @throws java.util.concurrent.RejectedExecutionException if the executor is shut down, or it
   *     has no thread and none can be started
   */
  <T extends ScheduledTask<?>> T schedule(T t, long delayNanos) {
    if (delayNanos <= 0) { // decided on the delay: one clock read per schedule (in deadline)
      // At the queue's tail, not runnext: equal deadlines start in the order they were scheduled
      // (ScheduledThreadPoolExecutor's rule). Throws if shut down or no thread can run it: then
      // it is not counted. Fired now: its run re-arms a periodic task.
      t.fired();
      s.submitInOrder(t);
      Counters.count(fired);
      return t;
    }
    if (!add(t)) {
      throw s.rejected(t);
    }
    // volatile: no M to fire it unless one starts (Scheduler); without stack room for the start
    // (its lock), sysmon starts one, as for execute (Idle#roomToWake)
    if (s.threads.mcount == 0 && s.idle.roomToWake()) {
      Throwable failure = s.startFirstM();
      if (failure != null && s.threads.mcount == 0 && t.cancel(false)) {
        throw s.noThread(t, failure);
      }
    }
    return t;
  }

  /** A periodic task ran and is due again: back into a heap, unless shut down meanwhile. */
  void rearm(ScheduledTask<?> t) {
    if (!add(t)) {
      t.cancel(false); // STPE: periodic tasks do not outlive shutdown
    }
  }

  private static final int ADDED = 0;
  private static final int SHUT = 1;
  private static final int DEAD = 2;
  /** add's result before it has one: an error came first. */
  private static final int NOT_YET = -1;

  /** Adds t to a live P's heap; false if the executor is shut down. */
  private boolean add(ScheduledTask<?> t) {
    for (; ; ) {
      int r = add(target(), t);
      if (r != DEAD) {
        return r == ADDED;
      }
    }
  }

  /**
   * Adds t to pp's heap. The run state and pp's status are read under the heap lock, and
   * shutdown, a retire and a retake write theirs before they take that lock (to cancel periodic
   * timers, to drain the heap: {@link #sweepOnShutdown}, {@link #moveAll}): so either their sweep
   * sees t, or we see their write and refuse (SHUT) or go to another P (DEAD). No timer is ever
   * left in a heap that nobody will look at. gmp-stress calls it for a given P.
   */
  int add(P pp, ScheduledTask<?> t) {
    TimerHeap h = pp.timers;
    int r = NOT_YET;
    boolean earliest = false;
    h.lock(); // an error at its entry leaves the lock free: it is taken by the call's last step
    try {
      if (s.runState >= Scheduler.SHUTDOWN) {
        r = SHUT;
      } else if (pp.status() == P.Pdead) {
        r = DEAD;
      } else {
        earliest = h.addLocked(t);
        r = ADDED;
      }
      h.unlock();
    } catch (Throwable e) {
      // A StackOverflowError at one of the calls above (schedule() near the end of a deep
      // stack), or an OutOfMemoryError growing the heap, with the lock still held: give it back
      // by a field store, which needs no frame (a call here could overflow again). addLocked
      // leaves the heap whole wherever the error lands.
      h.locked = 0; // volatile store: releases the heap writes before it
      if (r != ADDED) {
        throw e;
      }
      // t is in (only unlock's own call failed): the caller gets its future, as for any add.
    }
    // Only an add that lowers the heap's nextWhen needs Dekker F (Go's maybeAdd wakes the
    // netpoller only when when < ts.wakeTime()): nextWhen is otherwise lowered by nothing, so a
    // sleeper that saw it, or the adder that set it and kicked, already covers this timer. In
    // the timeout pattern (each new deadline later than the pending ones) the fence is skipped.
    if (earliest) {
      try {
        added(t.when);
      } catch (StackOverflowError e) {
        // t is in with its deadline published, only its kick is missing: the next add to this
        // heap makes it (below). Failing here would report as lost a timer that runs.
      }
    } else if (r == ADDED && h.nextWhen() < sleeper.until) {
      // A deadline no sleeper waits for: an earlier add's kick was cut short (the error above,
      // or the first M's start in schedule). Two volatile reads, no fence: that add's deadline
      // was published long ago; a sleeper publishing now re-reads the heaps itself.
      sleeper.kick();
    }
    return r;
  }

  private P target() {
    M m = ThreadTable.currentM();
    if (m != null && m.sched == s) {
      P pp = m.p;
      if (pp != null && m.curgOwn() != null && pp.status() == P.Prunning) {
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
   * A cancel: a cancelled entry of {@code h}, the heap that holds it (which counts it), or, for a task in
   * no heap (running, queued, due at once), counted here.
   */
  void cancelled(TimerHeap h) {
    if (h != null) {
      h.noteCancelled(); // getAndAdd, then read retired: one of us sees the other's write
      if (h.retired() && h.reclaimLateCancel()) {
        Counters.count(cancelledElsewhere); // counted after the heap handed its count over
      }
    } else {
      Counters.count(cancelledElsewhere);
    }
    if (s.runState >= Scheduler.SHUTDOWN) {
      tidyAfterCancel();
    }
  }

  private void tidyAfterCancel() {
    // The last pending timer of a shut-down executor may be gone. The tidy-up takes the scheduler
    // lock, which a cancel near its stack's end must not (StackGuard): sysmon retries it each
    // round once shut down.
    if (StackGuard.hasRoom()) {
      Lifecycle.tidy(s);
    } else {
      s.sysmon.wake();
    }
  }

  // ---------------------------------------------------------------- firing

  /** checkTimers at the top of findRunnable: pp's due timers, or every P's after a timer wake. */
  void check(M m, P pp) {
    long now = now();
    if (m.timerWake) {
      m.timerWake = false;
      runDueEverywhere(m, pp, now);
      sleeper.handOn(); // the wake gave the sleeper role up: the timers left need one
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
   *
   * <p>Between shutdownNow's STOP and the end of its drain of the heaps nothing moves: it returns
   * the timers itself. A move finishes under the heap lock, so shutdownNow, which drains the heaps
   * before the rings, finds each timer moved before the STOP on its ring: no timer pending when
   * shutdownNow was called starts after it returned, unless an M had already taken it to run.
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
        if (s.runState >= Scheduler.STOP && !drainedOnStop) {
          break; // volatile reads under the heap lock: STOP is written before the heaps' drain
        }
        while (k < max) {
          ScheduledTask<?> t = h.pollDueLocked(now);
          if (t == null) {
            break;
          }
          t.fired();
          batch[k++] = t;
        }
        for (int i = 0; i < k; i++) {
          G g = s.newG(pp, batch[i]);
          batch[i] = null;
          pp.runq.put(g, false, s.global); // fits (room above): only we push to our ring
        }
        pp.runq.keepOrder(); // deadline order, not newest first (RunQueue#popNewest)
      } finally {
        h.unlock();
      }
      total += k;
      if (k < max) {
        break;
      }
    }
    if (total != 0) {
      Counters.count(fired, total);
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
   * Moves a dead P's timers (retired by setParallelism, or retaken from under a task) to the
   * live P with its index (Go's moveTimers); kicks the sleeper, whose scan may have missed them.
   * Called without the scheduler lock, after the P's status became Pdead (so no add lands in its
   * heap afterwards: {@link #add(P, ScheduledTask)}), and then {@link #moved}. Once shut down,
   * periodic timers are cancelled rather than moved: the shutdown sweep may have passed the target.
   */
  void moveAll(P from) {
    // Out of memory, a step is tried again rather than given up: a dropped timer never fires,
    // and tidy-up waits for the move (movesPending). Each step allocates before it takes.
    ArrayList<ScheduledTask<?>> moved = null;
    while (moved == null) {
      try {
        ArrayList<ScheduledTask<?>> out = new ArrayList<>(0); // 0: ensureCapacity grows it
        from.timers.lock();
        try {
          from.timers.drainLocked(out);
          // stats sum live Ps only
          Counters.count(cancelledElsewhere, from.timers.takeCancelledCountLocked());
        } finally {
          from.timers.unlock();
        }
        moved = out;
      } catch (OutOfMemoryError e) {
        Threads.awaitMemory();
      }
    }
    for (int i = 0; i < moved.size(); ) {
      Procs procs = s.procs;
      P to = procs.all[from.id % procs.all.length];
      TimerHeap h = to.timers;
      boolean noRoom = false;
      h.lock();
      try {
        if (to.status() == P.Pdead) {
          continue; // retired meanwhile: its mover drains it; look at procs again
        }
        for (; i < moved.size(); i++) {
          ScheduledTask<?> t = moved.get(i);
          if (t.isPeriodic() && s.runState >= Scheduler.SHUTDOWN) {
            t.cancelQuietly(); // shutdown's policy for periodic timers (sweepOnShutdown)
            Counters.count(cancelledElsewhere);
          } else {
            h.addLocked(t); // grows before t enters: an error leaves t in moved
          }
        }
      } catch (OutOfMemoryError e) {
        noRoom = true;
      } finally {
        h.unlock();
      }
      if (noRoom) {
        Threads.awaitMemory(); // then the rest, from t on
      }
    }
    if (!moved.isEmpty()) {
      VarHandle.fullFence(); // Dekker F as for an add
      sleeper.kickHolder();
    }
  }

  /** Timers of dead Ps not yet moved: tidy waits for them (they may hold one-shots). Lock. */
  int movesPending;

  /**
   * A P died (Resize, Retake): its timers move once the caller has released the scheduler lock,
   * then {@link #moved}. Lock held.
   */
  void willMoveLocked() {
    movesPending++;
  }

  /** After {@link #moveAll}: the executor may tidy now. Not under the lock. */
  void moved() {
    s.lock.lock();
    try {
      movesPending--;
    } finally {
      s.lock.unlock();
    }
    Lifecycle.tidy(s);
  }

  /** Whether shutdown's sweep of the heaps is done: tidy waits for it. Lock held. */
  boolean swept;

  /**
   * shutdown(), after writing the run state and without the scheduler lock: periodic timers are
   * cancelled (STPE's default policy), one-shots stay and still run. Each heap lock is taken once:
   * an add that comes after it sees the run state and refuses ({@link #add(P, ScheduledTask)}).
   */
  void sweepOnShutdown() {
    for (P p : s.procs.all) {
      TimerHeap h = p.timers;
      h.lock();
      try {
        h.cancelPeriodicLocked(); // counted by the heap as it removes them
      } finally {
        h.unlock();
      }
    }
  }

  /**
   * shutdownNow(), after writing the run state and without the scheduler lock: every pending
   * timer, returned (not cancelled), as STPE does.
   */
  void drainOnShutdownNow(List<Runnable> out) {
    ArrayList<ScheduledTask<?>> all = new ArrayList<>(0); // see moveAll
    try {
      for (P p : s.procs.all) {
        TimerHeap h = p.timers;
        h.lock();
        try {
          h.drainLocked(all);
        } finally {
          h.unlock();
        }
      }
    } finally {
      // Even if cut short: runDue fires again, so a timer left behind (or moved in by a retire
      // after its heap was drained) still runs, and tidy-up never waits for one nobody fires.
      drainedOnStop = true;
    }
    out.addAll(all);
  }

  /**
   * shutdownNow has drained every heap: runDue, which holds back between the STOP and this, fires
   * again (a retiring P's timers may arrive after the drain). Volatile: read under a heap lock
   * that the drain may never have taken (a heap not yet in procs at the drain).
   */
  volatile boolean drainedOnStop;

  /**
   * Tidy's question after shutdown: may a timer still fire? Never waits for a heap: one another
   * thread holds counts as live, and sysmon's next round asks again (Sysmon#tidy). After the
   * shutdown sweep a heap only shrinks, so a racy size of 0 is final. Lock held.
   */
  boolean anyLiveLocked() {
    if (!swept || movesPending != 0) {
      return true;
    }
    for (P p : s.procs.all) {
      TimerHeap h = p.timers;
      if (h.size() == 0) {
        continue;
      }
      if (!h.tryLock()) {
        return true;
      }
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

  /**
   * Cancelled timers (stats): racy reads, no lock. A cancel whose count is moving (between a
   * heap's two counts, from a heap to cancelledElsewhere, or with a dead P's heap not yet handed
   * over) reads low for a moment, never high: each move takes from its source before it adds to
   * its target, and this reads cancelledElsewhere before the heaps. So the highest sum any reader
   * has seen never exceeds the true count, and a read never goes below it: a cumulative counter
   * that a scraper never sees go down.
   */
  long cancelledCount() {
    long n = cancelledElsewhere.sum();
    for (P p : s.procs.all) {
      n += p.timers.cancelledCount();
    }
    return CANCELLED_SEEN.accumulateAndGet(this, n, Math::max); // CAS: concurrent readers
  }

  private static final AtomicLongFieldUpdater<Timers> CANCELLED_SEEN =
      AtomicLongFieldUpdater.newUpdater(Timers.class, "cancelledSeen");

  /** The highest cancelled count a stats read has returned ({@link #cancelledCount}). */
  private volatile long cancelledSeen;

  /** Pending timers (stats): racy reads, no lock. */
  int pending() {
    int n = 0;
    for (P p : s.procs.all) {
      n += p.timers.live();
    }
    return n;
  }
}
