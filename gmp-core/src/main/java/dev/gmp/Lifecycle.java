package dev.gmp;

import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The executor's run state (ThreadPoolExecutor's RUNNING, SHUTDOWN, STOP, TIDYING, TERMINATED):
 * shutdown, shutdownNow, tidy and terminate, and awaitTermination.
 *
 * <p>TIDYING: shut down and nothing left anywhere (no queued G, every P idle, no spare M, no
 * zombie, no pending timer, no live virtual thread of ours, parked or not): every idle M is told
 * to exit and sysmon is told to stop. TERMINATED: TIDYING and every
 * M has passed mexit, so no thread of the executor has anything more to run. A fresh executor has
 * no M and no sysmon thread yet (both start on the first task), so shutdown() leaves it
 * TERMINATED before it returns.
 */
final class Lifecycle {
  private Lifecycle() {}

  /** One cleaner thread for all executors, started with the first one. */
  private static final class CleanerHolder {
    static final Cleaner CLEANER = Cleaner.create();
  }

  /**
   * Shuts {@code s} down once {@code owner} (its GmpExecutor, which nothing the threads reach
   * holds strongly) is unreachable: queued tasks still run, then every thread exits. The cleaner
   * holds its action until the owner has been collected and the cleaner thread has run it, so the
   * action lets go of the scheduler at termination: a terminated executor the program has dropped
   * is garbage at the next collection, not one cleaner pass later (its run queues are 64 KB per
   * processor; executors made and dropped quickly outran the cleaner in a 256 MB heap).
   */
  static void shutdownWhenUnreachable(Object owner, Scheduler s) {
    ShutdownWhenUnreachable action = new ShutdownWhenUnreachable(s);
    CleanerHolder.CLEANER.register(owner, action);
    onTermination(s, action);
  }

  /**
   * The cleaning action, and the termination action that disarms it; a class, not a lambda (see
   * Threads.DefaultFactory).
   */
  private static final class ShutdownWhenUnreachable implements Runnable {
    /** Null once terminated. Volatile: set by the terminating thread, read by the cleaner's. */
    private volatile Scheduler s;

    ShutdownWhenUnreachable(Scheduler s) {
      this.s = s;
    }

    @Override
    public void run() {
      Scheduler x = s;
      if (x == null) {
        return;
      }
      if (x.runState == Scheduler.TERMINATED) {
        s = null; // the termination action's run: nothing left to shut down
      } else {
        shutdown(x); // the cleaner's: the owner was dropped before shutdown
      }
    }
  }

  static void shutdown(Scheduler s) {
    // A caller at the end of its stack gets its StackOverflowError here, before any change: the
    // JDK throws one out of ReentrantLock.lock with the lock taken, which nobody would release.
    StackGuard.ensure();
    s.lock.lock();
    try {
      s.advanceRunState(Scheduler.SHUTDOWN);
    } finally {
      s.lock.unlock();
    }
    sweepTimersThenTidy(s);
  }

  /**
   * After the run state is written: shutdown's sweep of the timer heaps, outside the scheduler
   * lock (each heap lock once: nothing under the scheduler lock waits for a heap), then the
   * tidy-up, which waits for the sweep (Timers#anyLiveLocked). With {@code out}, shutdownNow's,
   * whose drain of the heaps came first; else periodic timers are cancelled here.
   */
  private static void sweepTimersThenTidy(Scheduler s, List<Runnable> out) {
    if (out == null) {
      s.timers.sweepOnShutdown();
    } // else shutdownNow drained the heaps before its queues (Timers#runDue)
    s.lock.lock();
    try {
      s.timers.swept = true;
      tryTidyLocked(s);
    } finally {
      s.lock.unlock();
    }
    finishTermination(s);
  }

  private static void sweepTimersThenTidy(Scheduler s) {
    sweepTimersThenTidy(s, null);
  }

  /** How many Gs shutdownNow takes from the global queue per hold of the lock. */
  private static final int DRAIN_BATCH = RunQueue.SIZE;

  /**
   * Drains every timer heap, then every queue (global, each P's ring and runnext, zombies'): in
   * that order, a due timer an M moved to its ring meanwhile is on the ring by the time the ring
   * is drained (Timers#runDue), so it is returned rather than started. The global queue goes in
   * batches, one hold of the lock each; rings are taken without it, as a thief takes (a CAS per G).
   * The queues are drained in passes until one takes nothing while no ring's owner moved Gs
   * ({@link RunQueue#moves}) and no outside submitter held an injection slot claimed and unfilled:
   * a steal or a full ring's overflow holds Gs in no queue for a moment (up to 129), and an
   * unfilled slot stops the drain with everything behind it (thousands), all of which would start
   * after shutdownNow returned. A G whose task already started (a virtual thread's continuation)
   * goes back on the queue once the drain is over, and one waiting for a P after a blocking call
   * is never taken; all others are returned, with whatever an M took meanwhile ({@link
   * #takenAtStop}). Then every worker thread and every live virtual thread of ours is
   * interrupted; workers re-check the state after clearing a stale interrupt, so a task starting
   * concurrently still sees it (as ThreadPoolExecutor does).
   */
  static List<Runnable> shutdownNow(Scheduler s) {
    StackGuard.ensure(); // as in shutdown
    // Without the lock, which Ms taking global batches may hold in turn for milliseconds on a
    // busy machine: from here on no M starts a queued task (takenAtStop).
    s.advanceRunState(Scheduler.STOP);
    List<Runnable> out = new ArrayList<>();
    s.timers.drainOnShutdownNow(out); // pending timers too: accepted == ran + returned
    GQueue started = new GQueue();
    // Until a pass takes nothing while no ring's owner moved Gs, no injection slot waited for its
    // G and no P was replaced: Gs a steal or an overflow had claimed but not yet put down when
    // their queue was drained, or queued behind an unfilled slot, are in the next pass's queues.
    for (boolean again = true; again; ) {
      P[] all;
      List<P> zombies;
      s.lock.lock();
      try {
        all = s.procs.all;
        zombies = new ArrayList<>(s.retake.zombies);
      } finally {
        s.lock.unlock();
      }
      int[] moves = new int[all.length + zombies.size()];
      readMoves(all, zombies, moves);
      int took = 0;
      boolean injecting = false;
      for (int n = 1; n != 0; ) {
        GQueue q = new GQueue();
        s.lock.lock();
        try {
          n = s.global.drainSomeLocked(q, DRAIN_BATCH);
          injecting = n == 0 && s.global.injectionPendingLocked();
        } finally {
          s.lock.unlock();
        }
        took += settle(q, out, started);
      }
      if (injecting) {
        // An outside submitter claimed a slot before STOP and has not stored its G: the drain
        // stops there, and the Gs queued behind it (accepted) would start after we return.
        Thread.yield(); // its store is the next thing it does: let it run
      }
      for (P pp : all) {
        took += settle(drain(pp.runq), out, started);
      }
      for (P z : zombies) {
        took += settle(drain(z.runq), out, started);
      }
      again = took != 0 || injecting || movedSince(all, zombies, moves) || s.procs.all != all;
    }
    boolean requeued = started.head != null;
    s.lock.lock();
    try {
      for (G g = started.pop(); g != null; g = started.pop()) {
        s.global.put(g); // a started virtual thread must still run to finish: never returned
      }
      if (!s.stopDrained) { // else a concurrent call's drain ended first and returned them
        if (s.takenAtStop != null) {
          out.addAll(s.takenAtStop); // what Ms took meanwhile, instead of starting it
          s.takenAtStop = null;
        }
        s.stopDrained = true; // from now on an M at STOP runs what it takes
      }
      tryTidyLocked(s);
      for (M m : s.threads.allm) {
        Thread t = m == null ? null : m.runner; // null: freed (Threads#freemLocked)
        if (t != null) {
          t.interrupt();
        }
      }
    } finally {
      s.lock.unlock();
    }
    if (requeued) {
      s.idle.wakep(); // the drained rings' owners may be gone: make sure an M looks
    }
    Carriers c = s.carriers;
    if (c != null) {
      c.interruptAll(); // outside the lock: each interrupt may resubmit a continuation (wakep)
    }
    sweepTimersThenTidy(s, out);
    return out;
  }

  /**
   * Each ring's move count, once every move under way has ended (an odd count): Gs it claimed
   * are in a queue by then. A wait for other threads, but outside every lock, for a copy of at
   * most half a ring and one hold of the scheduler lock.
   */
  private static void readMoves(P[] all, List<P> zombies, int[] moves) {
    for (int i = 0; i < moves.length; i++) {
      RunQueue rq = i < all.length ? all[i].runq : zombies.get(i - all.length).runq;
      int m;
      for (int spins = 0; ((m = rq.moves()) & 1) != 0; spins++) {
        if (spins < 100) {
          Thread.onSpinWait();
        } else {
          Thread.yield(); // its owner may be off its CPU
        }
      }
      moves[i] = m;
    }
  }

  /** Whether a ring's owner moved Gs since readMoves: they may be in a queue drained before. */
  private static boolean movedSince(P[] all, List<P> zombies, int[] moves) {
    for (int i = 0; i < moves.length; i++) {
      RunQueue rq = i < all.length ? all[i].runq : zombies.get(i - all.length).runq;
      if (rq.moves() != moves[i]) {
        return true;
      }
    }
    return false;
  }

  /**
   * Returns the tasks of q that never started; keeps the started ones (continuations). Returns
   * how many Gs q held.
   */
  private static int settle(GQueue q, List<Runnable> out, GQueue started) {
    int n = 0;
    for (G g = q.pop(); g != null; g = q.pop(), n++) {
      if (!settleOne(g, out)) {
        started.push(g);
      }
    }
    return n;
  }

  /**
   * Adds g's task to out unless it started: false for a continuation (left to the caller), true
   * otherwise, with g dead.
   */
  private static boolean settleOne(G g, List<Runnable> out) {
    Runnable task = g.userTask();
    if (Carriers.isContinuation(task)) {
      return false;
    }
    if (!(task instanceof HelpingFuture<?> f) || f.claimForReturn()) {
      out.add(task);
    } // else a task waiting on it ran it in place (HelpingFuture): started, so not returned
    g.task = null;
    g.setStatus(G.Gdead);
    return true;
  }

  /**
   * An M that took gp and then read STOP (only shutdownNow writes it; an M reading TIDYING has
   * nothing queued to take): while shutdownNow drains, gp's task goes into its list
   * instead of starting (ThreadPoolExecutor's getTask takes no task at STOP), so that the call
   * halts the processing of waiting tasks, as its contract says, rather than racing its drain.
   * True if gp was settled here; false if it must run: a started continuation, or a task taken
   * after the drain was over (a late outside submitter's, or one an M held through the drain's
   * last pass), which starts with the interrupt set, as a racing ThreadPoolExecutor worker's does.
   * Under the lock: the drain's end (shutdownNow) reads the list and ends it under it too.
   */
  static boolean takenAtStop(Scheduler s, G gp) {
    if (Carriers.isContinuation(gp.userTask())) {
      return false;
    }
    s.lock.lock();
    try {
      if (s.stopDrained) {
        return false;
      }
      if (s.takenAtStop == null) {
        s.takenAtStop = new ArrayList<>();
      }
      return settleOne(gp, s.takenAtStop);
    } finally {
      s.lock.unlock();
    }
  }

  /**
   * The termination funnel for a thread that holds no lock and may just have cleared the last
   * thing a shutdown waited for (a cancelled timer, a moved heap, sysmon's retry): tidy up under
   * the lock, then finish outside it.
   */
  static void tidy(Scheduler s) {
    s.lock.lock();
    try {
      tryTidyLocked(s);
    } finally {
      s.lock.unlock();
    }
    finishTermination(s);
  }

  /** When shut down and nothing is queued, running or blocked: tell every thread to exit. */
  static void tryTidyLocked(Scheduler s) {
    if (s.runState < Scheduler.SHUTDOWN || s.runState >= Scheduler.TIDYING) {
      return;
    }
    Carriers c = s.carriers;
    if (s.idle.npidle != s.gomaxprocs
        || s.global.pendingSizeLocked() != 0 // claimed injection slots too
        || s.spares.count != 0
        || !s.retake.zombies.isEmpty()
        || s.timers.anyLiveLocked() // delayed one-shots still run after shutdown (STPE)
        || (c != null && c.anyDeferred()) // one woken from a spent stack, for sysmon to queue
        || (c != null && c.liveCount() != 0)) { // a live virtual thread may resume (Dekker G)
      return;
    }
    s.advanceRunState(Scheduler.TIDYING);
    s.threads.writeOffStartingLocked(); // threads that never checked in hold no P: none is needed
    for (M m = s.idle.mget(); m != null; m = s.idle.mget()) {
      m.exitRequested = true;
      if (m.wakeup()) {
        s.idle.unparked(m);
      }
    }
    s.sysmon.waiting = false;
    s.sysmon.wake();
    tryTerminateLocked(s);
  }

  /**
   * TIDYING and the last M is gone: TERMINATED. Lock held. The termination actions (JMX
   * unregistration, ...) and the release of awaitTermination come after the lock is released:
   * every caller that may get here with the last M gone (shutdown, shutdownNow, submitExternal's
   * withdraw, Resize, Threads#writeOff, Threads#mexit) calls {@link #finishTermination} after
   * unlocking. Other callers of tryTidyLocked cannot end it: an M (theirs, or the blocked one
   * being handed off) is still counted in mcount.
   */
  static void tryTerminateLocked(Scheduler s) {
    if (s.runState == Scheduler.TIDYING && s.threads.mcount == 0) {
      s.advanceRunState(Scheduler.TERMINATED);
    }
  }

  /**
   * Registers {@code action} to run once, outside the scheduler lock, when the executor
   * terminates, before awaitTermination returns true. Registered before the executor is
   * published (GmpExecutor.Builder#build), so never after termination.
   */
  static void onTermination(Scheduler s, Runnable action) {
    s.terminationActions.add(action);
  }

  /**
   * Called without the lock by a thread that may just have made the executor TERMINATED: the
   * first such thread runs the termination actions, then releases awaitTermination. The claim is
   * a CAS, so a second observer does nothing; the volatile read of runState makes it free while
   * the executor runs.
   */
  static void finishTermination(Scheduler s) {
    if (s.runState != Scheduler.TERMINATED || !s.claimTermination()) {
      return;
    }
    try {
      for (int i = 0; i < s.terminationActions.size(); i++) { // no iterator: nothing to allocate
        try {
          s.terminationActions.get(i).run();
        } catch (Throwable e) {
          // An action failing (an MBean someone else already unregistered) must not stop the
          // rest.
          s.report(e);
        }
      }
    } finally {
      s.terminated.countDown(); // even if a report ran out of memory: awaitTermination returns
    }
  }

  /** isTerminated(): TERMINATED and the termination actions done (awaitTermination agrees). */
  static boolean isTerminated(Scheduler s) {
    return s.terminated.getCount() == 0;
  }

  /**
   * ExecutorService.close: shutdown, then wait; if interrupted while waiting, shutdownNow and keep
   * waiting, then restore the interrupt status.
   */
  static void close(Scheduler s) {
    if (isTerminated(s)) {
      return;
    }
    shutdown(s);
    boolean interrupted = false;
    boolean terminated = false;
    while (!terminated) {
      try {
        terminated = awaitTermination(s, 1L, TimeUnit.DAYS);
      } catch (InterruptedException e) {
        if (!interrupted) {
          shutdownNow(s);
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * True once TERMINATED within the timeout: every task done, every M past mexit, so every thread
   * of the executor has exited or is exiting with nothing more to run. Within what is left of the
   * timeout it also joins those threads (and sysmon), so that after a wait with time to spare no
   * thread of the executor is left; a timeout that runs out during the joins does not turn a
   * terminated executor into "not terminated" (isTerminated() and this method agree).
   */
  static boolean awaitTermination(Scheduler s, long timeout, TimeUnit unit)
      throws InterruptedException {
    StackGuard.ensure(); // exitedThreads takes the scheduler lock: overflow here, not inside it
    long nanos = unit.toNanos(timeout);
    long start = System.nanoTime();
    // Terminated already: true, whatever the caller's interrupt status (kept), as the JDK's
    // executors answer; the latch's await would throw on the flag first.
    if (s.terminated.getCount() != 0 && !s.terminated.await(nanos, TimeUnit.NANOSECONDS)) {
      return false;
    }
    Thread self = Thread.currentThread();
    List<Thread> all = s.threads.exitedThreads();
    Thread sm = s.sysmon.thread();
    if (sm != null) {
      all.add(sm);
    }
    for (Thread t : all) {
      long left = nanos - (System.nanoTime() - start); // no deadline sum: timeout may be huge
      if (left <= 0) {
        break;
      }
      if (t != self) {
        if (self.isInterrupted()) {
          break; // terminated is the answer; the joins only tidy, and would throw on the flag
        }
        TimeUnit.NANOSECONDS.timedJoin(t, left);
      }
    }
    return true;
  }

  /** The run state as GmpExecutor.toString shows it. */
  static String stateName(int runState) {
    return switch (runState) {
      case Scheduler.RUNNING -> "running";
      case Scheduler.SHUTDOWN -> "shutting down";
      case Scheduler.STOP -> "stopping";
      case Scheduler.TIDYING -> "terminating";
      default -> "terminated";
    };
  }

  /** Takes every G of a ring as a consumer (no lock: a CAS per G), runnext last (the newest). */
  private static GQueue drain(RunQueue rq) {
    GQueue out = new GQueue();
    for (G g = rq.poll(); g != null; g = rq.poll()) {
      out.push(g);
    }
    return out;
  }
}
