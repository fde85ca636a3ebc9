package dev.gmp;

/**
 * The scheduling loop every M runs (Go's schedule / findRunnable / stealWork / execute), in Go's
 * order: the 61-tick global check, runnext, the local ring, a global batch, stealing, then drop
 * the P, leave spinning, StoreLoad, recheck everything, park.
 */
final class SchedulingLoop {
  /** Tasks per entry into {@link #schedule}. */
  static final int SCHEDULE_TURNS = 1024;

  private SchedulingLoop() {}

  /** mstart: the first P comes through nextp from startm. */
  static void mstart(M m) {
    Scheduler s = m.sched;
    // getAndSet: the watchdog may take a late thread's P back (Threads#takeBackFromLate), and
    // with it the spinning count, which then is not ours to give back.
    P pp = m.takeNextp();
    if (pp == null) {
      m.spinning = false;
    } else if (!s.acquirep(m, pp) && m.spinning) {
      s.idle.leaveSpinning(m); // the P was retired on its way to us: we spin for nothing
    }
    // The running-G slot's island (64 KB), before the first task is taken: made at that task,
    // out of memory it ended the thread between taking the task and starting it (notStarted).
    // After acquirep, not before: a spinner that took 64 KB of zeroing to arrive was stale to
    // the next submitter (Idle#wakeAnotherIfStale), which started one more M.
    m.setCurg(null);
    for (; ; ) {
      // No branch here, so no uncommon trap can ever invalidate this loop's compiled code while
      // other Ms run in it: the M leaves by MExit (M.run catches it), not by a test.
      schedule(m);
    }
  }

  /**
   * Runs up to {@link #SCHEDULE_TURNS} tasks and returns; throws {@link MExit} when the M must
   * exit. It returns now and then for the JIT's sake: a loop that never returns runs in
   * on-stack-replaced code for the M's whole life, and when another M's uncommon trap invalidates
   * that code, this M keeps running it; a call out of invalidated code that was unbound when the
   * callee was being recompiled is not re-bound, so every findRunnable goes through the
   * interpreter for the JVM's whole life (docs/benchmarks.md, "An M's loop is entered afresh
   * every 1,024 tasks"). A new entry takes the current code.
   */
  static void schedule(M m) {
    Scheduler s = m.sched;
    for (int turn = SCHEDULE_TURNS; turn > 0; turn--) {
      G gp = findRunnable(m);
      if (gp == null) {
        throw MExit.INSTANCE;
      }
      if (gp.task instanceof M lockedm) { // an M's stand-in (M#asLocked): Go's lockedg
        if (m.spinning) {
          s.idle.resetspinning(m); // as in execute
        }
        if (!startlockedm(m, gp, lockedm)) {
          throw MExit.INSTANCE;
        }
        continue;
      }
      execute(m, gp, m.inheritTime);
    }
  }

  /**
   * How an M leaves mstart's loop: thrown past it to M.run, so that the loop itself has no exit
   * branch (and no exception handler, which C2 may prune into a trap as well). Preallocated and
   * without a stack trace: it is control flow, never reported.
   */
  static final class MExit extends RuntimeException {
    static final MExit INSTANCE = new MExit();

    private MExit() {
      super("M exit", null, false, false);
    }
  }

  /**
   * Runs gp on m. A runnext G inherits the time slice: schedtick does not advance. Until the task
   * starts, gp is in this frame only: an Error that ends the M's thread there puts it back
   * ({@link #notStarted}).
   */
  static void execute(M m, G gp, boolean inheritTime) {
    Scheduler s = m.sched;
    Thread t = Thread.currentThread();
    Runnable task;
    try {
      if (!mayStart(m, gp)) {
        return; // gp went back to the global queue: the P died under the task before
      }
      // This M is going to run a task and is no longer spinning: if it was the last spinner,
      // start another so that no submission waits for a P while one is idle.
      if (m.spinning) {
        s.idle.resetspinning(m);
      }
      int rs = s.runState; // volatile: read once, for both checks below
      if (rs == Scheduler.STOP && Lifecycle.takenAtStop(s, gp)) {
        return; // shutdownNow returns it rather than this M starting it
      }
      P pp = m.p;
      if (!inheritTime) {
        pp.incSchedtick();
      }
      gp.setStatus(G.Grunning);
      m.setCurg(gp);
      // A stale interrupt (Future.cancel(true) of the previous task) must not leak into this
      // one, but a shutdownNow interrupt must stay: clear, then re-check the state (as TPE does).
      if (rs >= Scheduler.STOP) {
        if (!t.isInterrupted()) {
          t.interrupt();
        }
      } else if (Thread.interrupted() && s.runState >= Scheduler.STOP) {
        t.interrupt();
      }
      // The task as submitted, with a sampled G's wait since it became runnable recorded. Only
      // once sampling is on: until then no type test of the user's task is profiled here, which
      // C2 would compile as a guess at its class and recompile the loop for each new one. A G
      // made Sampled was made after sampleLatency's store (it is never cleared), and its
      // publication to this M orders that store before this read; missing it, Sampled.run runs
      // the task and one sample is lost.
      task = gp.task;
      if (s.sampleLatency) {
        task = s.counters.latency.started(m, task);
      }
    } catch (Throwable e) {
      notStarted(m, gp);
      throw e; // to M.run: the M exits, giving back its P
    }
    try {
      task.run();
    } catch (Throwable e) {
      s.uncaught(t, e);
    }
    if (m.unendedRuns != 0) { // plain: owner only
      HelpingFuture.endUnended(m); // runs in place an overflow cut short (HelpingFuture#runInPlace)
    }
    endTask(m);
    gp.task = null;
    gp.setStatus(G.Gdead);
    if (Switches.GFREE && !(gp instanceof HelpingFuture)) { // a future outlives its run: no reuse
      P now = m.p; // the task may have moved us to another P (blocking) or left us without one
      if (now != null) {
        GFree.put(now, gp, s);
      }
    }
  }

  /**
   * Whether gp, just taken, may start on m's P. Dekker J, the M's side: the last task's count
   * (endTask), the take of gp (every G findRunnable returns was taken by a CAS, by popNewest's
   * volatile store and load, or under the lock: the StoreLoad), then the claim's read. A claim
   * means sysmon may be retaking the P for the task that just ended: settled under the lock
   * (Retake#mayStartAfterClaim).
   */
  static boolean mayStart(M m, G gp) {
    return !m.claimed() || m.sched.retake.mayStartAfterClaim(m, gp);
  }

  /** The M's task is over: curg cleared, then the count bumped (sysmon's seqlock). */
  static void endTask(M m) {
    m.setCurg(null);
    m.incCompleted();
  }

  /**
   * An Error ended m's thread between taking gp and starting its task (the JVM can raise one
   * anywhere while the heap is full: a wake-up's thread start, a call site linked for the first
   * time): gp goes back on the global queue, where the P this M gives back on its way out (or
   * another M) takes it, rather than being lost with the thread. Best effort: without room even
   * for this, it is lost.
   */
  static void notStarted(M m, G gp) {
    Scheduler s = m.sched;
    try {
      if (m.curg() == gp) {
        m.setCurg(null);
      }
      gp.setStatus(G.Grunnable); // plain: the lock below publishes it with the G
      s.lock.lock();
      try {
        s.global.put(gp); // behind the queue: a plain G, not a stand-in (putStandIn)
      } finally {
        s.lock.unlock();
      }
    } catch (Throwable e) {
      // not even that: the M's own error is the one M.run lets through
    }
  }

  /**
   * startlockedm: gp is the stand-in of {@code target}, whose task's stack lives on its own thread
   * (it waits in exitsyscall for a P), so rather than run anything here, hand our P to that M and
   * park this one.
   */
  private static boolean startlockedm(M m, G gp, M target) {
    Scheduler s = m.sched;
    P pp = m.p;
    // Our P, so ours to write: a locked M's hand-off is never taken back, and a stale handedTo
    // (from the hand-off that brought pp to some M) naming the target would be (see
    // Idle#handToLockedLocked). Before the CAS, which publishes it to takeLateHandoffLocked.
    pp.handedTo = null;
    // CAS: setParallelism may have retired our P; then gp goes back to the queue for a live P.
    if (!pp.casStatus(P.Prunning, P.Pidle)) {
      s.lock.lock();
      try {
        s.global.putStandIn(gp);
      } finally {
        s.lock.unlock();
      }
      s.retake.dropOrphan(m);
      return true;
    }
    s.releasep(m); // the P is now in transit (Pidle, on no list): the target's acquirep takes it
    target.nextp = pp;
    if (target.wakeup()) {
      s.idle.unparked(target);
    }
    return s.idle.stopm(m);
  }

  /**
   * findRunnable: returns the next G to run on m (setting m.inheritTime), parking m while there
   * is nothing; null when m must exit.
   */
  static G findRunnable(M m) {
    Scheduler s = m.sched;
    for (; ; ) {
      P pp = m.p;
      if (pp == null) {
        if (Spares.reacquire(m) == null) {
          return null; // exit
        }
        continue;
      }
      if (pp.status() == P.Pdead) { // retired or retaken while we ran a task
        if (m.spinning) {
          s.idle.leaveSpinning(m);
        }
        s.retake.dropOrphan(m);
        continue;
      }
      if (pp.preempt()) {
        // sysmon: the slice expired. A runnext chain sharing one slice goes to the global queue,
        // the Java form of Go preempting the running G into globrunqput.
        pp.setPreempt(false);
        G next = pp.runq.takeOwnRunnext();
        if (next != null) {
          s.lock.lock();
          try {
            try {
              // Behind the outside submissions made before it: put alone would overtake those
              // still on the injection side, and the chain would run again before them.
              s.global.drainInjectedLocked();
            } finally {
              s.global.put(next); // an Error in the drain must not drop next (notStarted)
            }
          } finally {
            s.lock.unlock();
          }
          s.idle.wakep(); // Go's goschedImpl: an idle P may take it (the lock orders the put)
          Counters.count(s.counters.runnextDemotions);
          if (Jfr.on) {
            Jfr.runnextDemotion(s, pp.id, next.id());
          }
        }
      }

      // checkTimers: this P's due timers become runnable before we look at the queues (every
      // P's, after the sleeper took a P for them). One load when the P has no timer.
      if (m.timerWake || pp.timers.nextWhen() != Timers.NONE) {
        s.timers.check(m, pp);
      }

      // Fairness: every 61st tick look at the global queue first, so that two tasks respawning
      // each other through the local queue cannot starve it; unless the ring's head came from
      // it, in a batch (older than its head: one submitter's order is kept; RunQueue).
      if (Switches.GLOBAL_CHECK_61 && pp.schedtick() % 61 == 0 && s.global.size() > 0
          && !pp.runq.headFromGlobal()) {
        G gp;
        s.lock.lock();
        try {
          gp = s.global.get();
        } finally {
          s.lock.unlock();
        }
        if (gp != null) {
          m.inheritTime = false;
          return gp;
        }
      }

      G gp = pp.runq.takeOwnRunnext();
      if (gp != null) {
        m.inheritTime = true;
        return gp;
      }
      // Newest first (depth-first for fork-join work), but the oldest on every 61st tick, so a
      // ring that never drains below its depth still reaches its oldest G. With one P, Go's
      // order: depth-first pays only where a second CPU runs sibling subtrees, and the pop's
      // fence would be paid for nothing (docs/benchmarks.md, "The owner pops newest first").
      gp =
          Switches.LIFO_POP && s.gomaxprocs > 1 && pp.schedtick() % 61 != 0
              ? pp.runq.popNewest()
              : pp.runq.pollRing();
      if (gp != null) {
        m.inheritTime = false;
        return gp;
      }

      if (s.global.size() > 0) {
        s.lock.lock();
        try {
          gp = s.global.getBatch(pp, s.gomaxprocs);
        } finally {
          s.lock.unlock();
        }
        if (gp != null) {
          m.inheritTime = false;
          return gp;
        }
      }

      // Spin (steal) only while fewer than half the busy Ps have a spinner.
      if (m.spinning
          || !Switches.SPIN_LIMIT
          || 2 * s.idle.nmspinning() < s.gomaxprocs - s.idle.npidle) {
        if (!m.spinning) {
          s.idle.becomeSpinning(m);
        }
        gp = Steal.stealWork(m, pp);
        if (gp != null) {
          m.inheritTime = false;
          return gp;
        }
      }

      // Go's last steal pass also runs other Ps' due timers; here it is its own step, so that an
      // M that did not spin (the spin limit) still never parks beside a due timer.
      if (s.timers.stealDue(m, pp) != 0) {
        continue;
      }

      // Nothing anywhere: give the P back.
      gp = dropP(m, pp);
      if (gp == RETRY) {
        continue;
      }
      if (gp != null) {
        return gp;
      }
      if (m.spinning && spinnerLastLook(m)) {
        continue;
      }
      if (!s.idle.stopm(m)) {
        return null;
      }
    }
  }

  /** dropP's answer "look again from the top" (the P is dead, or needspinning made us spin). */
  static final G RETRY = new G();

  /**
   * The drop-P step of findRunnable, under the lock: returns a G from the global queue, or
   * {@link #RETRY}, or null once pp is on the idle list and m holds no P. A separate method so
   * that gmp-stress can race it against a submitter (the needspinning protocol).
   */
  static G dropP(M m, P pp) {
    Scheduler s = m.sched;
    Idle idle = s.idle;
    s.lock.lock();
    try {
      if (s.global.liveSizeLocked() != 0) {
        G gp = s.global.getBatch(pp, s.gomaxprocs);
        if (gp != null) {
          m.inheritTime = false;
          return gp;
        }
        // Only claimed-but-unfilled injection slots: their producers call wakep once filled.
      }
      if (pp.status() == P.Pdead) {
        return RETRY; // handled at the top
      }
      if (!m.spinning && idle.needspinning == 1 && !Mutations.NO_NEEDSPINNING) {
        // Go 1.20: work found no idle P; instead of parking, spin and look again.
        idle.becomeSpinning(m);
        return RETRY;
      }
      s.releasep(m);
      idle.pidleput(pp);
      // Dekker (B), dropP's side: npidle++ (volatile) above, then this volatile read, against
      // wakep's "needspinning = 1, then read npidle": one side sees the other.
      if (!m.spinning && idle.needspinning == 1 && !Mutations.NO_NEEDSPINNING) {
        P back = idle.pidleget();
        if (back != null && s.acquirep(m, back)) {
          idle.becomeSpinning(m);
          return RETRY;
        }
      } else {
        Lifecycle.tryTidyLocked(s);
      }
      return null;
    } finally {
      s.lock.unlock();
    }
  }

  /**
   * A spinning M that dropped its P: leave spinning first, then (after the full barrier of the
   * decrement) recheck every queue: a submitter that saw us spinning did not wake anyone, so we
   * must see its work (Dekker (A), spinner side). True if work showed up and m holds a P again
   * (and spins).
   */
  static boolean spinnerLastLook(M m) {
    m.sched.idle.dropSpinning(m);
    if (Mutations.NO_RECHECK) {
      return false;
    }
    return recheck(m);
  }

  /**
   * The spinner's last look after dropping its P: takes an idle P back if any work shows up. With
   * work visible and no idle P (Ms returning from blocking calls took them), it sets needspinning
   * as Go's pidlegetSpinning does, so the next M to drop a P spins instead of parking: otherwise
   * the work could wait beside a P idled later until some long task ends. Both sides hold the
   * lock, so no fence argument is needed.
   */
  private static boolean recheck(M m) {
    Scheduler s = m.sched;
    Idle idle = s.idle;
    if (!idle.workVisible()) {
      return false;
    }
    P pp;
    s.lock.lock();
    try {
      pp = idle.pidleget();
      if (pp == null && !Mutations.NO_PIDLEGET_SPINNING) {
        idle.needspinning = 1; // volatile write under the lock; dropP reads it under the lock
      }
    } finally {
      s.lock.unlock();
    }
    if (pp == null) {
      s.sysmon.wakeForBacklog(); // work that no idle P can take: sysmon's eye (Idle#wakep)
      return false;
    }
    if (!s.acquirep(m, pp)) {
      return true; // retired in transit; loop and try again
    }
    idle.becomeSpinning(m);
    return true;
  }
}
