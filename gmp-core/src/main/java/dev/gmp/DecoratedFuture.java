package dev.gmp;

import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;

/**
 * The future of {@code submit} and {@code invokeAll} under a task decorator: a {@link
 * HelpingFuture} whose task runs inside its decoration wherever it runs. The decorator wraps the
 * future itself (what it sees, as it would see a FutureTask), so the wrapper calls the future's
 * run() from inside. The claimed run ({@link #runHere}) runs the wrapper; the wrapper's call back
 * runs the task; any other run finds the future claimed. So the decoration runs once around the
 * task on the M its G reaches, in place in a task that waits for it, or in the caller that
 * shutdownNow returned it to.
 *
 * <p>Until 2026-12-07 a decorated submit made a plain FutureTask, whose get() in a task waited
 * off the CPU, unmarked, for a thread a retake had to hand its P to: a depth-7 tree of such waits
 * took 3.7x its undecorated time with 80-91 threads, and never ended with no spare threads
 * allowed. A class of its own, loaded only by an executor with a decorator: HelpingFuture's run
 * stays one call for everyone else.
 */
final class DecoratedFuture<V> extends HelpingFuture<V> {
  private static final int IDLE = 0;
  private static final int WRAPPED = 1; // the wrapper runs: its call back runs the task
  private static final int CALLED = 2; // the task was called, or the run ended without it

  private final Scheduler sched;

  /** What the decorator returned for this future (final: published with the future). */
  private final Runnable wrapper;

  /** Plain: written and read only by the thread that claimed the run (the claim is for good). */
  private int phase = IDLE;

  private DecoratedFuture(
      Scheduler sched, UnaryOperator<Runnable> decorator, Callable<V> callable, boolean queued) {
    super(sched, callable, queued);
    this.sched = sched;
    this.wrapper = ScheduledExecutorSupport.decorate(decorator, this); // last: sees a whole future
  }

  private DecoratedFuture(Scheduler sched, UnaryOperator<Runnable> decorator, Runnable task,
      V value, boolean queued) {
    super(sched, task, value, queued);
    this.sched = sched;
    this.wrapper = ScheduledExecutorSupport.decorate(decorator, this); // as above
  }

  /**
   * A future for {@code callable} (queued: as HelpingFuture's), wrapped by {@code decorator}
   * before anyone else sees it; a decorator that throws leaves nothing behind. Typed as a
   * HelpingFuture: its callers then never make the bytecode verifier load this class, which an
   * executor without a decorator never needs.
   */
  static <V> HelpingFuture<V> of(
      Scheduler sched, UnaryOperator<Runnable> decorator, Callable<V> callable, boolean queued) {
    return new DecoratedFuture<>(sched, decorator, callable, queued);
  }

  /** As {@link #of(Scheduler, UnaryOperator, Callable, boolean)}, for a Runnable and its value. */
  static <V> HelpingFuture<V> of(
      Scheduler sched, UnaryOperator<Runnable> decorator, Runnable task, V value, boolean queued) {
    return new DecoratedFuture<>(sched, decorator, task, value, queued);
  }

  /**
   * The wrapper runs the decorator's code around the task's end, where an overflow could not be
   * left for later: a run in place only with stack room for it, as before {@link
   * HelpingFuture#runInPlace}; without, the waiter waits.
   */
  @Override
  boolean runInPlace(M m) {
    return StackGuard.hasRoom() && runHere(false);
  }

  @Override
  boolean runHere(boolean returned) {
    // The wrapper's call back: on the claiming thread, inside w.run() below. Any other
    // thread's run (an M reaching the G while a waiter runs it in place) finds the run claimed;
    // a second call back, or the task's own call of run(), finds the task called.
    if (phase == WRAPPED && claimedBy(Thread.currentThread())) {
      phase = CALLED;
      callTask();
      return true;
    }
    if (isDone() || !claimRun(returned)) {
      return false;
    }
    Runnable w = wrapper;
    if (w == null) { // run by the decorator itself, before it returned a wrapper: inside it
      phase = CALLED;
      callTask();
      ranClaimed();
      return true;
    }
    phase = WRAPPED;
    Throwable failure = null;
    try {
      w.run();
    } catch (Throwable e) {
      failure = e;
    }
    if (phase == WRAPPED) {
      // The wrapper threw before it ran the task, or returned without running it (a decorator
      // that drops tasks, or hands them to another thread, whose call back finds the run
      // claimed): the future ends now rather than leave a get() waiting for good.
      phase = CALLED;
      fail(failure != null ? failure : new IllegalStateException("taskDecorator's Runnable "
          + wrapper + " returned without running the task on its thread: " + this));
    } else if (failure != null) {
      // After the task: its outcome stands. Reported as an execute's task failure would be, never
      // thrown from here (a waiter's get() would throw it as its own).
      sched.uncaught(Thread.currentThread(), failure);
    }
    ranClaimed();
    return true;
  }
}
