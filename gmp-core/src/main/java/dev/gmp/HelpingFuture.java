package dev.gmp;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

/**
 * The future {@code submit}, {@code invokeAll} and {@code invokeAny} hand out, and the G that
 * queues it: one 48-byte object per submitted task, where a {@code FutureTask}, the JDK's
 * adapter for a Runnable and a G took 96 (72 for a Callable; ForkJoinPool's adapted task is 32).
 * Every byte is allocated per task, and a fresh JVM pays a page fault for each new 4 KB of heap:
 * a thread that submits and collects futures spent a third of its time in them
 * (docs/benchmarks.md, "submit: the future is the G").
 *
 * <p>{@code get()}, called from one of this executor's tasks, runs the awaited task on the
 * caller's thread if no thread has started it yet (ForkJoinPool's helping join). A deviation from
 * Go, where a goroutine that waits simply parks and its M runs another: here a waiting task holds
 * a JVM thread, so parking it means handing its P to another thread (often a new one) and, for a
 * tree of tasks that wait on their children, one thread per level. Running the child in place
 * costs nothing of that and keeps Go's invariant: the thread that runs it is the one that holds
 * the P and was about to stop using the CPU. The queued G stays where it is and later finds the
 * task done.
 *
 * <p>One CAS on {@link #runner} decides who runs the task: the M its G reaches, a waiter in
 * place, or a caller of {@link #run} itself, whichever gets there first; {@code shutdownNow}
 * claims it the same way before returning it as never started ({@link #claimForReturn}), so gmp
 * never runs a returned task (its caller may) and never returns a started one. A task that
 * another thread already runs cannot be helped; the wait then goes through {@link
 * Syscall#blocking} (entersyscall), so the P goes to another thread if work waits, as for any
 * declared blocking call. A timed {@code get} runs the task in place too, as ForkJoinPool's timed
 * join does, and may so return past its timeout. Under a task decorator the future is a {@link
 * DecoratedFuture}, whose claimed run runs the task inside its decoration: in place too.
 *
 * <p>The future's own states follow FutureTask's (the same transitions, so the same answers to
 * {@code cancel}, {@code isDone} and {@code get} in every interleaving); a thread that must block
 * waits on a latch the first such thread creates, so waiting is the JDK's code, not ours. As a G
 * the object carries the scheduling status and queue links ({@link G}); outside the package it is
 * a {@code RunnableFuture} and nothing more.
 */
class HelpingFuture<V> extends G implements RunnableFuture<V> {
  // The future's states (FutureTask's). Only PENDING is left, and only by CAS: to COMPLETING when
  // the run ends (then SUCCEEDED or FAILED), to CANCELLED, or to INTERRUPTING (then INTERRUPTED).
  private static final int PENDING = 0;
  private static final int COMPLETING = 1;
  private static final int SUCCEEDED = 2;
  private static final int FAILED = 3;
  private static final int CANCELLED = 4;
  private static final int INTERRUPTING = 5;
  private static final int INTERRUPTED = 6;

  /**
   * {@link #runner} once shutdownNow has returned the task as never started: no M or waiter runs
   * it; a caller's {@link #run} may.
   */
  private static final Object RETURNED = new Object();

  /**
   * {@link #runner} once the claimed run has ended: the thread is not kept (FutureTask nulls it),
   * so a kept future does not pin a finished worker and its context class loader.
   */
  private static final Object RAN = new Object();

  /**
   * {@link #runner} of the last future on an M's list of runs in place left unended ({@link
   * #runInPlace}); the others there hold the next one. Claimed, as a thread's claim: never
   * unclaimed, never a thread to interrupt.
   */
  private static final Object UNENDED = new Object();

  @SuppressWarnings("rawtypes")
  private static final AtomicIntegerFieldUpdater<HelpingFuture> STATE =
      AtomicIntegerFieldUpdater.newUpdater(HelpingFuture.class, "state");

  @SuppressWarnings("rawtypes")
  private static final AtomicReferenceFieldUpdater<HelpingFuture, Object> RUNNER =
      AtomicReferenceFieldUpdater.newUpdater(HelpingFuture.class, Object.class, "runner");

  @SuppressWarnings("rawtypes")
  private static final AtomicReferenceFieldUpdater<HelpingFuture, CountDownLatch> DONE =
      AtomicReferenceFieldUpdater.newUpdater(HelpingFuture.class, CountDownLatch.class, "done");

  // 48 bytes in all: G's 32 and four 4-byte fields. Every byte is per task (see above), so the
  // task and its outcome share a field, and the executor is the runner field's unclaimed value.

  private volatile int state;

  /**
   * Who runs the task. Before the claim, the executor's scheduler (null for gmp-stress's bare
   * futures): the one whose tasks may run it in place and whose execute queues it as its own G.
   * Then the thread that claimed the run (the claim is for good), RAN once that run has ended, or
   * RETURNED.
   */
  private volatile Object runner;

  /** Created by the first thread that has to block in get; counted down when the future ends. */
  private volatile CountDownLatch done;

  /**
   * Before the end, the task: a Callable, or a Runnable whose result is null (others are wrapped
   * by {@link Executors#callable(Runnable, Object)}); after it, the result or the Throwable; null
   * once cancelled. Plain: the task is written before the future is queued or handed out (either
   * publishes it) and read by the runner after its claim; the outcome is written before the
   * release store of the final state and read after a volatile read of it. Cancel's null is a
   * hint for the collector that a runner may miss.
   */
  private Object slot;

  /**
   * A future for {@code callable}. {@code queued}: its G is claimed for queueing at birth (Gidle,
   * the default: submit queues it itself before anyone else sees it); else Gnew, for {@link
   * #claimQueue} (futureFor's: invokeAll and invokeAny queue them by executeFuture; newTaskFor's:
   * AbstractExecutorService's invokeAny runs them inside a future of its own).
   */
  HelpingFuture(Scheduler sched, Callable<V> callable, boolean queued) {
    if (!queued) {
      setStatus(Gnew); // plain: published with the future, before any claimQueue can run
    }
    // A release store, not a volatile one (a fence per submit): the queue or whoever hands the
    // future to another thread publishes it, with the task.
    RUNNER.lazySet(this, sched);
    this.slot = Objects.requireNonNull(callable, "callable");
  }

  /** As {@link #HelpingFuture(Scheduler, Callable, boolean)}, for a Runnable and its value. */
  HelpingFuture(Scheduler sched, Runnable task, V value, boolean queued) {
    if (!queued) {
      setStatus(Gnew); // as above
    }
    RUNNER.lazySet(this, sched); // as above
    Objects.requireNonNull(task, "task");
    // run() calls a Callable and runs anything else: a Runnable that is a Callable too, or one
    // with a result to return, goes in the JDK's adapter (rare: submit(Runnable) returns null;
    // FutureTask wraps every Runnable in it).
    this.slot =
        value == null && !(task instanceof Callable) ? task : Executors.callable(task, value);
  }

  /**
   * Claims this future's G for queueing on {@code s} (invokeAll's executeFuture): true once, for
   * this executor only; false afterwards, and for a future of another executor, which then
   * queues in a G of its own like any Runnable.
   */
  boolean claimQueue(Scheduler s) {
    // A future already claimed (its run called directly) goes into a G of its own, whose run
    // finds it claimed. CAS: a future executed twice queues one G.
    return runner == s && casStatus(Gnew, Gidle);
  }

  /**
   * Runs the task unless a thread has claimed it. A task that {@code shutdownNow} returned is the
   * caller's to run, as ThreadPoolExecutor's are: this run takes it. An M's run of the future's
   * own G never meets one (shutdownNow took that G out of its queue), and a waiter's run in place
   * refuses it.
   */
  @Override
  public void run() {
    runHere(true);
  }

  /**
   * {@link #run}, and a waiter's run in place ({@code returned} false): true if this thread
   * claimed the run (and so ran the task or saw it cancelled). Package-private for gmp-stress.
   */
  boolean runHere(boolean returned) {
    // CAS: one thread runs the task, whichever of an M, a waiter or a caller gets here first; a
    // waiter never after shutdownNow returned it (the same CAS in claimForReturn).
    if (state != PENDING || !claimRun(returned)) {
      return false;
    }
    callTask();
    ranClaimed();
    return true;
  }

  /** Runs the task (none once cancelled) and ends the future with its outcome. Claim held. */
  final void callTask() {
    Object task = slot;
    if (task != null && state == PENDING) { // a cancel may have come after the first look
      Object result = null;
      int end;
      try {
        if (task instanceof Callable<?> c) {
          result = c.call();
        } else {
          ((Runnable) task).run();
        }
        end = SUCCEEDED;
      } catch (Throwable e) {
        result = e;
        end = FAILED;
      }
      finish(result, end);
    }
  }

  /** The claimed run is over: the thread is let go. */
  final void ranClaimed() {
    // cancel(true) may be interrupting this thread: let it finish, so that its interrupt lands
    // while the task still runs and never in whatever this thread runs next.
    while (state == INTERRUPTING) {
      Thread.yield();
    }
    // Release store: nothing reads the thread after this point (cancel only while PENDING).
    RUNNER.lazySet(this, RAN);
  }

  final boolean claimRun(boolean returned) {
    Object r = runner;
    if (!unclaimed(r) && !(returned && r == RETURNED)) {
      return false;
    }
    if (r == RETURNED) {
      // The caller's run of a returned task, from any depth: its StackOverflowError now, before
      // the claim, rather than at finish's call after the task (the future then never ended).
      // An M's run never meets RETURNED, and its stack is shallow.
      StackGuard.ensure();
    }
    if (Mutations.FUTURE_RUN_NO_CAS) { // a deliberate bug for gmp-stress (FutureRunOnceStress)
      Thread.onSpinWait();
      runner = Thread.currentThread();
      return true;
    }
    return RUNNER.compareAndSet(this, r, Thread.currentThread());
  }

  /** Whether a runner value says nobody has claimed the run: the scheduler, or null. */
  private static boolean unclaimed(Object r) {
    return r == null || r instanceof Scheduler;
  }

  /** Ends the future with {@code e} unless it has ended (DecoratedFuture: a wrapper's failure). */
  final void fail(Throwable e) {
    finish(e, FAILED);
  }

  /** Whether {@code t} holds the claim on this future's run. */
  final boolean claimedBy(Thread t) {
    return runner == t;
  }

  private void finish(Object result, int end) {
    finish(result, end, false);
  }

  /**
   * Ends the future with the run's outcome, then wakes its waiters. {@code inPlace}: a waiter's
   * run ({@link #runInPlace}), which probes the stack before the wake-up (a latch's count-down, an
   * unpark deep in the JDK) when there is one: an overflow inside it would leave a waiter parked
   * on a done future. No waiter, no probe: the common case, the waiter being this thread.
   */
  private void finish(Object result, int end, boolean inPlace) {
    CountDownLatch early = null;
    if (Mutations.FUTURE_WAKE_EARLY) { // a deliberate bug (FutureEnd*VsWaiterStress), window widened
      early = done;
      for (int i = 0; i < 64; i++) {
        Thread.onSpinWait();
      }
    }
    // CAS: loses to a cancel that came first, and then the outcome is that cancellation.
    if (STATE.compareAndSet(this, PENDING, COMPLETING)) {
      slot = result;
      STATE.lazySet(this, end); // release: whoever reads the final state reads outcome too
      // After the CAS: Dekker with latchToWaitOn (wakeWaiters).
      CountDownLatch l = Mutations.FUTURE_WAKE_EARLY ? early : done;
      if (l != null) {
        if (inPlace) {
          StackGuard.ensure();
        }
        l.countDown();
      }
    }
  }

  /**
   * Dekker with {@link #latchToWaitOn}: we changed the state by a CAS (a full barrier) and now
   * read {@link #done}; a waiter puts it in place by a CAS and then reads the state. One of the
   * two sees the other, so a waiter never sleeps through the end (FutureEndVsWaiterStress).
   */
  private void wakeWaiters() {
    CountDownLatch l = done;
    if (l != null) {
      l.countDown();
    }
  }

  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    if (state != PENDING) {
      return false; // ended: the common clean-up call (invokeAll's, a finally block) probes nothing
    }
    // Room for the waiters' wake-up first: an overflow in it, after the CAS, would leave a
    // waiter in get() blocked on a future that reads done (StackGuard).
    StackGuard.ensure();
    // CAS: only a pending future is cancelled; a run that ends later loses its finish CAS.
    if (!STATE.compareAndSet(this, PENDING, mayInterruptIfRunning ? INTERRUPTING : CANCELLED)) {
      return false;
    }
    try {
      if (mayInterruptIfRunning) {
        try {
          if (runner instanceof Thread t) { // pending, so that thread is in the task (or about to be)
            t.interrupt();
          }
        } finally {
          STATE.lazySet(this, INTERRUPTED); // release: the runner's wait in run() ends on it
        }
      }
    } finally {
      slot = null;
      wakeWaiters();
    }
    return true;
  }

  @Override
  public boolean isCancelled() {
    return state >= CANCELLED;
  }

  @Override
  public boolean isDone() {
    return state != PENDING;
  }

  @Override
  public V get() throws InterruptedException, ExecutionException {
    int s = state;
    if (s <= COMPLETING) {
      M m = taskM();
      if (m != null) {
        s = runInPlaceIfUnstarted(m);
        if (s <= COMPLETING) {
          s = declaredWait(false, 0L); // another thread runs it: wait as a blocking call
        }
      } else {
        s = await(false, 0L);
      }
    }
    return report(s);
  }

  /**
   * A waiting task's run of this future's task in place, if it is this executor's and no thread
   * has started it; returns the state after. Only this executor's: another's task run here would
   * run outside that executor's processors, limits, shutdownNow and termination, and see this
   * one's current(). Not once it stops: shutdownNow returns a task that has not started
   * (Lifecycle#takenAtStop).
   */
  private int runInPlaceIfUnstarted(M m) throws InterruptedException {
    if (runner == m.sched && m.sched.runState < Scheduler.STOP) {
      if (Thread.interrupted()) {
        throw new InterruptedException(); // as FutureTask's get: not the task's interrupt
      }
      // Ours and unclaimed: here, unless a thread claims it first.
      if (runInPlace(m)) {
        // Its G, if still in runnext (the child a task submitted last) or newest in the ring
        // (the one before it, displaced by the last), leaves the queue now: counted here as the
        // M's run of it would have been. Only from the P this task still runs on, as a spawn's
        // put: the run may have left the M another P, or none (a blocking call inside it), or a
        // retaken one, whose queue the retake moves as a consumer.
        P pp = m.runningTaskP(m.sched);
        if (pp != null && (pp.runq.takeOwnRunnextIf(this) || pp.runq.takeOwnNewestIf(this))) {
          setStatus(Gdead);
          m.incRanInPlace();
        }
        afterRunInPlace(m.sched);
      }
    }
    return state;
  }

  /**
   * The waiter's run of the task in place: the claim, the task and its end, as {@link #runHere}
   * but with no stack probe before the claim ({@link StackGuard}'s 48 frames were most of a
   * submit-and-get inside a task: 170 ns of it, against 24 without). So the end may overflow the
   * stack after the task ran; then the handler below, which calls nothing, leaves the end to this
   * thread's M, which makes it from a frame with room ({@link #endUnended}): once the task that
   * waits returns to the M's loop, or earlier, when this thread next waits on a future or enters
   * a blocking call (a wait on this very future, say, after catching the error). The
   * StackOverflowError goes on to the caller of get, as from any call at the end of its stack.
   * The task runs on the waiter's stack, as under ForkJoinPool's join: at its end, the task
   * overflows where a fresh thread might not, and fails with the error. True if this thread
   * claimed the run. {@link DecoratedFuture}'s claimed run calls the decorator's wrapper around
   * the task's end, so it probes first instead.
   */
  boolean runInPlace(M m) {
    if (state != PENDING || !claimRun(false)) {
      return false; // an overflow up to the claim's CAS claims nothing
    }
    // callTask's body, here: the handler needs the outcome in this frame.
    Object result = null;
    int end = 0;
    try {
      Object task = slot;
      if (task != null && state == PENDING) { // a cancel may have come after the first look
        try {
          if (task instanceof Callable<?> c) {
            result = c.call();
          } else {
            ((Runnable) task).run();
          }
          end = SUCCEEDED;
        } catch (Throwable e) { // an overflow at the task's own entry too: its outcome
          result = e;
          end = FAILED;
        }
        finish(result, end, true);
      }
      ranClaimed();
    } catch (StackOverflowError e) {
      // From here to the throw, field accesses only: any call would overflow again. The claim
      // stays ours. The end's CAS made: the final state at once (only the claim's holder writes
      // it in COMPLETING, and nobody may spin on a COMPLETING that only this thread can end). Not
      // made: the outcome waits in slot (a cancel meanwhile wins, as it would have) and the
      // future on the list of its outcome. end is 0 only with the future cancelled.
      int s = state;
      if (s == COMPLETING) {
        state = end; // volatile: publishes the outcome stored before it
      } else if (s == PENDING) {
        slot = result;
      }
      HelpingFuture<?> next;
      if (end == FAILED) {
        next = m.unendedFailed;
        m.unendedFailed = this;
      } else {
        next = m.unendedSucceeded;
        m.unendedSucceeded = this;
      }
      runner = next != null ? next : UNENDED;
      m.unendedRuns++;
      throw e;
    }
    return true;
  }

  /**
   * Ends the runs in place that an overflow left unended on m's thread ({@link #runInPlace}),
   * from a frame with room: the M's loop after its task, or the thread's next wait or blocking
   * call, which probes first (still deep in the stack, it throws before anything changes). Owner
   * only: m is the caller's M.
   */
  static void endUnended(M m) {
    StackGuard.ensure();
    for (HelpingFuture<?> f; (f = m.unendedSucceeded) != null; ) {
      m.unendedSucceeded = f.unendedNext();
      m.unendedRuns--;
      f.endUnended(SUCCEEDED);
    }
    for (HelpingFuture<?> f; (f = m.unendedFailed) != null; ) {
      m.unendedFailed = f.unendedNext();
      m.unendedRuns--;
      f.endUnended(FAILED);
    }
  }

  private HelpingFuture<?> unendedNext() {
    Object next = runner;
    return next == UNENDED ? null : (HelpingFuture<?>) next;
  }

  private void endUnended(int end) {
    // CAS: a cancel may still come first (its wake-up is its own). The outcome is in slot.
    if (state == PENDING && STATE.compareAndSet(this, PENDING, COMPLETING)) {
      STATE.lazySet(this, end); // release, as in finish
    }
    wakeWaiters(); // in any state: the overflow may have come before the run's own wake-up
    ranClaimed();
  }

  /**
   * The thread is the waiting task's again, as a pool's worker is its next task's:
   * <ul>
   *   <li>an interrupt that cancelled the task run here was that task's, and the waiter must not
   *       see it (its next sleep or read would fail), so it is cleared. The caller was not
   *       interrupted before the run (get() checks); one that came from elsewhere during it
   *       cannot be told apart and is cleared too;
   *   <li>shutdownNow's is the waiter's as well, but the task run here may have taken it (a loop
   *       on {@code Thread.interrupted()}, a caught {@code InterruptedException}): it is set again
   *       at STOP, as ThreadPoolExecutor sets it before each task, or the waiter's next wait, on a
   *       task shutdownNow returned and nobody runs, would never end, nor the executor with it.
   * </ul>
   */
  private void afterRunInPlace(Scheduler s) {
    if (state == INTERRUPTED) {
      Thread.interrupted();
    }
    if (s.runState >= Scheduler.STOP) { // volatile
      Thread.currentThread().interrupt();
    }
  }

  /**
   * From one of this executor's tasks, a task no thread has started runs in place, as in {@link
   * #get()} and as ForkJoinPool's timed join does: the call returns when that run ends, with its
   * outcome, even past the timeout. Declaring the wait instead costs a hand-off and a spare
   * thread per call, and with no spare threads allowed the task, queued behind its waiter, could
   * only time out.
   */
  @Override
  public V get(long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    Objects.requireNonNull(unit, "unit");
    int s = state;
    if (s <= COMPLETING) {
      long nanos = unit.toNanos(timeout);
      M m;
      if (nanos > 0 && (m = taskM()) != null) {
        long start = System.nanoTime();
        s = runInPlaceIfUnstarted(m);
        if (s <= COMPLETING) { // another thread runs it
          nanos -= System.nanoTime() - start;
          s = nanos > 0 ? declaredWait(true, nanos) : await(true, 0L); // await: a COMPLETING end
        }
      } else {
        s = await(true, nanos);
      }
      if (s <= COMPLETING) {
        throw new TimeoutException();
      }
    }
    return report(s);
  }

  private int declaredWait(boolean timed, long nanos) throws InterruptedException {
    try {
      return Syscall.blocking(new DeclaredWait(this, timed, nanos));
    } catch (InterruptedException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new AssertionError(e); // await throws nothing else
    }
  }

  /**
   * The wait that declaredWait declares: a class, not a lambda. A lambda's call site is linked at
   * its first run, by allocating; in a JVM where the heap ran out while the JDK initialised the
   * classes that linking needs, it fails for good, and every later get() from a task would throw
   * (gmp-stress's HeapExhaustion saw that happen to a lambda of its own). The state it returns
   * is a small int: boxed from Integer's cache.
   */
  private static final class DeclaredWait implements Callable<Integer> {
    private final HelpingFuture<?> f;
    private final boolean timed;
    private final long nanos;

    DeclaredWait(HelpingFuture<?> f, boolean timed, long nanos) {
      this.f = f;
      this.timed = timed;
      this.nanos = nanos;
    }

    @Override
    public Integer call() throws InterruptedException {
      return f.await(timed, nanos);
    }
  }

  /**
   * Waits for the end (or, timed, at most {@code nanos}); returns the final state, or PENDING on
   * a timeout (as FutureTask, a future that is writing its outcome is waited for, never timed out).
   */
  private int await(boolean timed, long nanos) throws InterruptedException {
    M me = ThreadTable.currentM();
    if (me != null && me.unendedRuns != 0) {
      endUnended(me); // this very future may be one, which no other thread can end
    }
    long deadline = timed ? System.nanoTime() + nanos : 0L;
    for (; ; ) {
      int s = state;
      if (s > COMPLETING) {
        return s;
      }
      if (s == COMPLETING) { // the runner is writing the outcome: a moment, never a timeout
        Thread.yield();
        continue;
      }
      // nanos <= 0 first: a deadline near Long.MIN_VALUE ns would wrap to the far future.
      long left = !timed ? 1L : nanos <= 0L ? 0L : deadline - System.nanoTime();
      if (left <= 0) {
        return s; // timed out, before a latch is made for nothing
      }
      CountDownLatch l = latchToWaitOn();
      if (l == null) {
        continue; // it ended meanwhile
      }
      if (!timed) {
        l.await();
      } else {
        l.await(left, TimeUnit.NANOSECONDS); // then the state decides, at the top
      }
    }
  }

  /**
   * The waiter's half of the Dekker pair with {@link #wakeWaiters}: puts the latch in place (a
   * CAS, or a volatile read of another waiter's), then reads the state. Returns the latch to
   * block on, which the end will count down, or null if the future has left PENDING.
   */
  CountDownLatch latchToWaitOn() {
    CountDownLatch l = done;
    if (l == null) {
      DONE.compareAndSet(this, null, new CountDownLatch(1));
      l = done;
    }
    return state == PENDING ? l : null;
  }

  @SuppressWarnings("unchecked")
  private V report(int s) throws ExecutionException {
    if (s == SUCCEEDED) {
      return (V) slot;
    }
    if (s >= CANCELLED) {
      throw new CancellationException();
    }
    throw new ExecutionException((Throwable) slot);
  }

  /** The final state; waits out COMPLETING (a moment). PENDING if not done. */
  private int settled() {
    int s = state;
    while (s == COMPLETING) {
      Thread.yield();
      s = state;
    }
    return s;
  }

  @Override
  public State state() {
    return switch (settled()) {
      case PENDING -> State.RUNNING;
      case SUCCEEDED -> State.SUCCESS;
      case FAILED -> State.FAILED;
      default -> State.CANCELLED;
    };
  }

  @Override
  @SuppressWarnings("unchecked")
  public V resultNow() {
    return switch (settled()) {
      case SUCCEEDED -> (V) slot;
      case FAILED -> throw new IllegalStateException("Task completed with exception");
      case PENDING -> throw new IllegalStateException("Task has not completed");
      default -> throw new IllegalStateException("Task was cancelled");
    };
  }

  @Override
  public Throwable exceptionNow() {
    return switch (settled()) {
      case FAILED -> (Throwable) slot;
      case SUCCEEDED -> throw new IllegalStateException("Task completed with a result");
      case PENDING -> throw new IllegalStateException("Task has not completed");
      default -> throw new IllegalStateException("Task was cancelled");
    };
  }

  /**
   * shutdownNow found this task's G queued: true if it may return the task as never started
   * (and from now on nobody runs it), false if a thread has claimed its run. Any thread, lock held
   * or not.
   */
  boolean claimForReturn() {
    Object r = runner;
    return r == RETURNED || (unclaimed(r) && RUNNER.compareAndSet(this, r, RETURNED));
  }

  /**
   * The caller's M if the caller is a task of a gmp executor running on its P (not a spare, not
   * blocked), else null. Its wait on any future is then a declared blocking call on its own
   * executor; it runs the task in place only if the future is of that executor.
   */
  private static M taskM() {
    M m = ThreadTable.currentM();
    return m != null && m.runningTaskP(m.sched) != null ? m : null;
  }

  /** Whether the caller is a task of {@code s}'s executor running on its P (see taskM). */
  static boolean callerIsTaskOf(Scheduler s) {
    M m = taskM();
    return m != null && m.sched == s;
  }

  /** As FutureTask's: the state, and the task while it has not ended. */
  @Override
  public String toString() {
    String what =
        switch (settled()) {
          case SUCCEEDED -> "[Completed normally]";
          case FAILED -> "[Completed exceptionally: " + slot + "]";
          case PENDING -> {
            Object w = slot;
            // The task, unless the future ended between the two reads (then w is its outcome).
            yield w == null || state != PENDING
                ? "[Not completed]"
                : "[Not completed, task = " + w + "]";
          }
          default -> "[Cancelled]";
        };
    return getClass().getName() + "@" + Integer.toHexString(System.identityHashCode(this)) + what;
  }

  // ---------------------------------------------------------------- invokeAll

  /**
   * GmpExecutor#invokeAll: AbstractExecutorService's, waiting newest first (see there). Here and
   * not in GmpExecutor so that the exception types of its catch clauses load when this class is
   * linked (the first submit or invokeAll), not with the first executor.
   */
  static <T> List<Future<T>> invokeAll(
      ScheduledExecutorSupport ex, Collection<? extends Callable<T>> tasks)
      throws InterruptedException {
    requireNoNullTasks(tasks);
    ArrayList<Future<T>> futures = new ArrayList<>(tasks.size());
    try {
      for (Callable<T> t : tasks) {
        futures.add(ex.futureFor(t)); // all made (a decorator may throw) before any is queued
      }
      for (Future<T> f : futures) {
        ex.executeFuture((HelpingFuture<?>) f); // futureFor's
      }
      for (int i = futures.size() - 1; i >= 0; i--) {
        Future<T> f = futures.get(i);
        if (!f.isDone()) {
          try {
            f.get();
          } catch (CancellationException | ExecutionException ignore) {
            // done: its future reports how
          }
        }
      }
      return futures;
    } catch (Throwable e) {
      cancelAll(futures);
      throw e;
    }
  }

  /** GmpExecutor#invokeAll with a timeout: AbstractExecutorService's, waiting newest first. */
  static <T> List<Future<T>> invokeAll(
      ScheduledExecutorSupport ex,
      Collection<? extends Callable<T>> tasks,
      long timeout,
      TimeUnit unit)
      throws InterruptedException {
    requireNoNullTasks(tasks);
    Objects.requireNonNull(unit, "unit");
    long nanos = unit.toNanos(timeout);
    long deadline = System.nanoTime() + nanos;
    ArrayList<Future<T>> futures = new ArrayList<>(tasks.size()); // the caller's list, as made
    try {
      for (Callable<T> t : tasks) {
        futures.add(ex.futureFor(t));
      }
      int n = futures.size();
      for (int i = 0; i < n; i++) {
        // The deadline is checked between submissions, as AbstractExecutorService does: with
        // few workers, submitting may itself take the whole timeout.
        if ((i == 0 ? nanos : deadline - System.nanoTime()) <= 0L) {
          cancelAll(futures);
          return futures;
        }
        ex.executeFuture((HelpingFuture<?>) futures.get(i)); // futureFor's
      }
      for (int i = n - 1; i >= 0; i--) {
        Future<T> f = futures.get(i);
        if (!f.isDone()) {
          try {
            f.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
          } catch (CancellationException | ExecutionException ignore) {
            // done: its future reports how
          } catch (TimeoutException timedOut) {
            cancelAll(futures);
            return futures;
          }
        }
      }
      return futures;
    } catch (Throwable e) {
      cancelAll(futures);
      throw e;
    }
  }

  // ---------------------------------------------------------------- invokeAny

  /**
   * GmpExecutor#invokeAny from one of {@code ex}'s own tasks (timed: {@code nanos >= 0}). The
   * first task to succeed is the answer while the others still run, and a timed call ends at its
   * timeout: the contract callers race tasks for (hedged requests, a deadline over several
   * tries), as AbstractExecutorService and ForkJoinPool keep it. So the waiting task runs none of
   * them in its place, which would commit it to that task's whole run: it waits for the first
   * end on a completion queue inside a declared blocking call, which hands its processor (and the
   * queued tasks) to another thread at once, as ForkJoinPool compensates a joining worker.
   * AbstractExecutorService's own version waits there unmarked: a retake per call. Where no
   * other thread may take the processor (no spare budget, or no thread allowed beyond the
   * processors) the waiter runs the tasks in place ({@link #invokeAnyInPlace}): no other thread
   * could run them at all. Where threads run out at run time (the spare budget spent by waiters
   * like this one), a wait that sees no end for {@link #ANY_HELP_NANOS} while a task is unstarted
   * and no thread may be made runs the oldest such in place, so that tasks queued behind
   * waiting threads never stall for good.
   */
  static <T> T invokeAnyInTask(
      ScheduledExecutorSupport ex, Collection<? extends Callable<T>> tasks, long nanos)
      throws InterruptedException, ExecutionException, TimeoutException {
    requireNoNullTasks(tasks);
    if (tasks.isEmpty()) {
      throw new IllegalArgumentException("invokeAny: no tasks");
    }
    Scheduler s = ex.sched;
    if (s.config.maxSpareThreads() == 0 || s.config.maxThreads() <= s.gomaxprocs) {
      return invokeAnyInPlace(ex, tasks, nanos);
    }
    boolean timed = nanos >= 0;
    long deadline = timed ? System.nanoTime() + nanos : 0L;
    ArrayBlockingQueue<AnyTask<T>> ends = new ArrayBlockingQueue<>(tasks.size());
    ArrayList<HelpingFuture<T>> futures = new ArrayList<>(tasks.size());
    int answered = -1;
    try {
      for (Callable<T> t : tasks) {
        // All made (a decorator may throw) before any is queued, as invokeAll's.
        futures.add(ex.futureFor(new AnyTask<>(t, futures.size(), ends)));
      }
      for (HelpingFuture<T> f : futures) {
        ex.executeFuture(f);
      }
      ExecutionException failed = null;
      for (int left = futures.size(); left > 0; left--) {
        AnyTask<T> end;
        while ((end = ends.poll()) == null) {
          long wait = timed ? deadline - System.nanoTime() : Long.MAX_VALUE;
          if (wait <= 0L) {
            throw new TimeoutException();
          }
          // Every task started: each will report, so wait for it; else not for long (below).
          boolean unstarted = oldestUnstarted(futures, s) >= 0;
          end = awaitAnyEnd(ends, unstarted ? Math.min(wait, ANY_HELP_NANOS) : wait);
          if (end != null) {
            break;
          }
          M m;
          if (!unstarted || !noThreadToBeHad(s) || (m = taskM()) == null) {
            continue; // a thread will come for them; a spare without a processor runs nothing
          }
          // Nothing ended for a while, a task is still unstarted, and no thread may be made to
          // start it (each waiting like this one, the spare budget spent): the oldest such runs
          // here (its end comes through ends), the first the caller listed, and the last the
          // thread that took the processor reaches (it runs the newest, in runnext, first).
          int i = oldestUnstarted(futures, s);
          if (i >= 0) {
            futures.get(i).runInPlaceIfUnstarted(m);
          }
        }
        if (end.failure == null) {
          answered = end.index;
          return end.result;
        }
        failed = new ExecutionException(end.failure); // none succeeds: the last failure, as
        // AbstractExecutorService's
      }
      throw failed;
    } finally {
      // The rest never start, or are interrupted (the contract's cancel); not the answer's own,
      // whose run may still be ending: an interrupt there would land on its worker.
      cancelAll(futures, answered);
    }
  }

  /** The index of the oldest of {@code futures} no thread has claimed yet, or -1. */
  private static int oldestUnstarted(List<? extends HelpingFuture<?>> futures, Scheduler s) {
    for (int i = 0; i < futures.size(); i++) {
      HelpingFuture<?> f = futures.get(i);
      if (f.state == PENDING && f.runner == s) { // volatile: a claim moves runner off s first
        return i;
      }
    }
    return -1;
  }

  /**
   * Whether no thread may be made for a processor handed on: the spare budget spent or the
   * thread cap reached. Racy reads, a hint taken again at each of invokeAnyInTask's looks: a
   * stale "room" waits one look more, a stale "none" runs one task in place.
   */
  private static boolean noThreadToBeHad(Scheduler s) {
    return s.spares.count >= s.config.maxSpareThreads()
        || s.threads.mcount >= s.config.maxThreads();
  }

  /**
   * How often invokeAnyInTask looks, while a task is unstarted, whether no thread may be made
   * to start it: short next to the stall it ends, long next to a look.
   */
  static final long ANY_HELP_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  /** invokeAnyInTask's wait for the next end, declared: the processor goes on at once. */
  private static <T> AnyTask<T> awaitAnyEnd(ArrayBlockingQueue<AnyTask<T>> ends, long nanos)
      throws InterruptedException {
    try {
      return Syscall.blocking(new AnyEndWait<>(ends, nanos));
    } catch (InterruptedException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e); // the queue's waits throw nothing else
    }
  }

  /** The wait awaitAnyEnd declares: a class, not a lambda (DeclaredWait's reason). */
  private static final class AnyEndWait<T> implements Callable<AnyTask<T>> {
    private final ArrayBlockingQueue<AnyTask<T>> ends;
    private final long nanos;

    AnyEndWait(ArrayBlockingQueue<AnyTask<T>> ends, long nanos) {
      this.ends = ends;
      this.nanos = nanos;
    }

    @Override
    public AnyTask<T> call() throws InterruptedException {
      return ends.poll(nanos, TimeUnit.NANOSECONDS);
    }
  }

  /**
   * An invokeAny task in a task: runs the caller's task and reports its outcome to the waiting
   * caller, itself, as the task's last act (the future's end comes after it, and the caller
   * need not wait for that). Named by the caller's task, as the future that holds it.
   */
  private static final class AnyTask<T> implements Callable<T> {
    private final Callable<T> task;
    final int index;
    private final ArrayBlockingQueue<AnyTask<T>> ends;
    T result; // written before the queue's put, read after its take: the queue's lock orders them
    Throwable failure;

    AnyTask(Callable<T> task, int index, ArrayBlockingQueue<AnyTask<T>> ends) {
      this.task = task;
      this.index = index;
      this.ends = ends;
    }

    @Override
    public T call() throws Exception {
      try {
        result = task.call();
      } catch (Throwable e) {
        failure = e;
        ends.add(this); // room for every task: never full
        throw e;
      }
      ends.add(this);
      return result;
    }

    @Override
    public String toString() {
      return task.toString();
    }
  }

  /**
   * invokeAnyInTask where no other thread may run the tasks: every task queued as its own
   * future, then waited for newest first as invokeAll does, so that the waiting task runs in
   * place what no thread has started (and waits, declared, for what another thread runs); the
   * first that succeeds is the answer, and every other future is cancelled. Timed, each wait gets
   * what is left of the timeout (a run in place may end past it); once it is spent, a task that
   * succeeded meanwhile on another thread is still the answer, and only if none did is it a
   * TimeoutException (or, every task done and failed, the last failure).
   */
  private static <T> T invokeAnyInPlace(
      ScheduledExecutorSupport ex, Collection<? extends Callable<T>> tasks, long nanos)
      throws InterruptedException, ExecutionException, TimeoutException {
    boolean timed = nanos >= 0;
    long deadline = timed ? System.nanoTime() + nanos : 0L;
    ArrayList<HelpingFuture<T>> futures = new ArrayList<>(tasks.size());
    try {
      for (Callable<T> t : tasks) {
        futures.add(ex.futureFor(t)); // all made (a decorator may throw) before any is queued
      }
      for (HelpingFuture<T> f : futures) {
        ex.executeFuture(f);
      }
      ExecutionException failed = null;
      boolean timedOut = false;
      for (int i = futures.size() - 1; i >= 0 && !timedOut; i--) {
        HelpingFuture<T> f = futures.get(i);
        try {
          if (!timed) {
            return f.get();
          }
          return f.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
          failed = e; // AbstractExecutorService's answer when none succeeds: the last failure
        } catch (CancellationException e) {
          failed = new ExecutionException(e); // cancelled by its own task's call: a failure too
        } catch (TimeoutException e) {
          timedOut = true;
        }
      }
      if (!timedOut) {
        throw failed;
      }
      boolean allDone = true;
      for (HelpingFuture<T> f : futures) {
        if (f.state == SUCCEEDED) {
          return f.get(); // done: at once
        }
        allDone &= f.isDone();
      }
      if (allDone && failed != null) {
        throw failed;
      }
      throw new TimeoutException();
    } finally {
      cancelAll(futures); // the rest never start, or are interrupted (the contract's cancel)
    }
  }

  /**
   * invokeAll's and invokeAny's check of every element before any task is queued, so that a call
   * that throws for a null ran none of its tasks. AbstractExecutorService's checks each as it
   * queues it: its invokeAll may have run the tasks before the null, and its invokeAny may
   * return the first one's result without reaching the null at all.
   */
  static void requireNoNullTasks(Collection<?> tasks) {
    Objects.requireNonNull(tasks, "tasks");
    int i = 0;
    for (Object t : tasks) {
      if (t == null) {
        throw new NullPointerException("tasks holds a null at position " + i);
      }
      i++;
    }
  }

  private static void cancelAll(List<? extends Future<?>> futures) {
    cancelAll(futures, -1);
  }

  /** As {@link #cancelAll(List)}, all but the one at {@code spared}. */
  private static void cancelAll(List<? extends Future<?>> futures, int spared) {
    for (int i = 0; i < futures.size(); i++) {
      if (i != spared) {
        futures.get(i).cancel(true); // a no-op on a done one
      }
    }
  }
}
