package dev.gmp;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * The future {@code submit}, {@code invokeAll} and {@code invokeAny} hand out: a {@link
 * FutureTask} whose {@code get()}, called from one of this executor's tasks, runs the awaited task
 * on the caller's thread if no thread has started it yet (ForkJoinPool's helping join).
 *
 * <p>A deviation from Go, where a goroutine that waits simply parks and its M runs another: here
 * a waiting task holds a JVM thread, so parking it means handing its P to another thread (often a
 * new one) and, for a tree of tasks that wait on their children, one thread per level. Running
 * the child in place costs nothing of that and keeps Go's invariant: the thread that runs it is
 * the one that holds the P and was about to stop using the CPU. The queued G stays where it is
 * and later finds the task done: {@code FutureTask.run} claims the task by a CAS on its runner,
 * so the task runs exactly once whichever thread gets there first.
 *
 * <p>A task that another thread already runs cannot be helped; the wait then goes through {@link
 * Syscall#blocking} (entersyscall), so the P goes to another thread if work waits, as for any
 * declared blocking call. A timed {@code get} never runs the task in place (its run could outlast
 * the timeout) and only declares the wait. Under a task decorator nothing is helped: the queue
 * holds the decorated task, and running the bare one in place would skip the decorator.
 */
final class HelpingFuture<V> extends FutureTask<V> {
  private static final AtomicIntegerFieldUpdater<HelpingFuture> CLAIM =
      AtomicIntegerFieldUpdater.newUpdater(HelpingFuture.class, "claim");
  private static final int FREE = 0;
  private static final int HELPED = 1;
  private static final int RETURNED = 2;

  private final Scheduler sched;

  /**
   * Who may run the task besides the M its G reaches: a waiter in place ({@link #HELPED}), or
   * nobody because shutdownNow returned it as never started ({@link #RETURNED}). One CAS decides,
   * so a returned task is never run by a waiter and a helped one is never returned (its G, still
   * queued, is dropped: Lifecycle#settle). Costs nothing on the queued path: an M's run of the G
   * and a waiter's run are already one run by FutureTask's runner CAS. Fits in the padding of
   * the object (40 bytes either way).
   */
  private volatile int claim;

  HelpingFuture(Scheduler sched, Callable<V> callable) {
    super(callable);
    this.sched = sched;
  }

  HelpingFuture(Scheduler sched, Runnable task, V value) {
    super(task, value);
    this.sched = sched;
  }

  @Override
  public V get() throws InterruptedException, ExecutionException {
    if (!isDone() && inOwnTask()) {
      if (claim == HELPED || CLAIM.compareAndSet(this, FREE, HELPED)) {
        run(); // runs the task here unless a thread has claimed it (runner CAS): then a no-op
      }
      if (!isDone()) { // another thread runs it, or shutdownNow returned it
        return declaredWait(); // another thread runs it: wait as a blocking call
      }
    }
    return super.get();
  }

  @Override
  public V get(long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    if (!isDone() && inOwnTask()) {
      try {
        return Syscall.blocking(() -> super.get(timeout, unit));
      } catch (InterruptedException | ExecutionException | TimeoutException | RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new AssertionError(e); // FutureTask.get throws nothing else
      }
    }
    return super.get(timeout, unit);
  }

  private V declaredWait() throws InterruptedException, ExecutionException {
    try {
      return Syscall.blocking(super::get);
    } catch (InterruptedException | ExecutionException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new AssertionError(e); // FutureTask.get throws nothing else
    }
  }

  /**
   * shutdownNow found this task's G queued: true if it may return the task as never started,
   * false if a waiter has run it (or runs it) in place. Any thread, lock held or not.
   */
  boolean claimForReturn() {
    return claim == RETURNED || CLAIM.compareAndSet(this, FREE, RETURNED);
  }

  /** True if the caller is a task of this executor, running on its P (not a spare, not blocked). */
  private boolean inOwnTask() {
    M m = ThreadTable.currentM();
    if (m == null || m.sched != sched || m.p == null) {
      return false;
    }
    G gp = m.curg();
    return gp != null && gp.status() == G.Grunning;
  }
}
