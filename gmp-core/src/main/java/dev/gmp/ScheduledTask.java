package dev.gmp;

import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * A timer (Go's {@code timer}) and the future the caller holds: one object, as in
 * ScheduledThreadPoolExecutor. It lives in one P's {@link TimerHeap} until it fires; firing makes
 * it a task (a G whose task is this object), run on the ring of the P that fired it.
 *
 * <p>{@code period}: 0 one-shot, &gt; 0 fixed rate, &lt; 0 fixed delay (STPE's encoding). A
 * periodic task is re-armed only after its run returns, so it never overlaps itself.
 */
final class ScheduledTask<V> extends FutureTask<V> implements RunnableScheduledFuture<V> {
  // A field updater, not a VarHandle: cheaper in the interpreter and C1 (as TimerHeap's).
  @SuppressWarnings("rawtypes")
  private static final AtomicIntegerFieldUpdater<ScheduledTask> ACCOUNT =
      AtomicIntegerFieldUpdater.newUpdater(ScheduledTask.class, "cancelAccount");

  // cancelAccount states: 0 in a heap (or never in one); the first of canceller and remover
  // decides who counts the cancel.
  private static final int COUNTED = 1; // cancelled in a heap: the canceller counted the cancelled entry
  private static final int REMOVED = 2; // cancelled, removed before the canceller counted it
  private static final int LEFT = 3; // left its heap live (fired, drained): cancel counts elsewhere
  private static final int ELSEWHERE = 4; // cancelled while LEFT, counted elsewhere: stays out

  // A periodic task fired (Timers#runDue, or due at once): LEFT for cancel, and the run that the
  // fire started claims it back to LEFT, so only that run re-arms it. A caller's own run() (the
  // ScheduledFuture is a Runnable; execute(future) too) runs it once and leaves the schedule as
  // it is: re-armed, it would be in a heap twice.
  private static final int FIRED = 5;

  private final Scheduler s;

  /** Who accounts for this entry as a cancelled entry: settled by one CAS between canceller and remover. */
  @SuppressWarnings("unused")
  private volatile int cancelAccount;

  /** Deadline on the {@link Timers#now()} clock. Written by the arming or re-arming thread only. */
  long when;

  private final long period;

  /**
   * Tie-break for equal deadlines within one heap (FIFO); set by TimerHeap under its lock. An int
   * (compared by difference, so it may wrap); with it and no heap index (removal is lazy) a timer
   * is smaller than STPE's task (JOL: docs/benchmarks.md, "Timers").
   */
  int seq;

  /**
   * The heap holding it, or null; written under that heap's lock, read racily by cancel, which
   * only uses it as a hint of where to count a cancelled entry (a stale value miscounts, never corrupts).
   */
  TimerHeap heap;


  ScheduledTask(Scheduler s, Callable<V> c, long when, long period) {
    super(c);
    this.s = s;
    this.when = when;
    this.period = period;
  }

  @Override
  public boolean isPeriodic() {
    return period != 0;
  }

  @Override
  public long getDelay(TimeUnit unit) {
    return unit.convert(when - Timers.now(), TimeUnit.NANOSECONDS);
  }

  @Override
  public int compareTo(Delayed other) {
    if (other == this) {
      return 0;
    }
    if (other instanceof ScheduledTask<?> t) {
      int c = Long.compare(when, t.when);
      return c != 0 ? c : Integer.signum(seq - t.seq);
    }
    return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
  }

  /**
   * Cancels as FutureTask does (which drops the task's Runnable or Callable, so what it holds is
   * released at once) and leaves the heap entry for lazy removal (Go's zombie timers; here
   * "cancelled entries"): the heap
   * compacts once cancelled entries pass a quarter of it.
   */
  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    boolean cancelled = super.cancel(mayInterruptIfRunning);
    while (cancelled) {
      int z = cancelAccount;
      if (z == 0) {
        // In a heap. heap is read after the state (a move or a re-arm writes it before its CAS
        // back to 0, enterHeap) and before our CAS (a remover may clear it once it has counted
        // us, its CAS failing on ours). Winning the CAS means no remover has come.
        TimerHeap h = heap;
        if (ACCOUNT.compareAndSet(this, 0, COUNTED)) { // CAS: races the heap's remover
          s.timers.cancelled(h);
          break;
        }
      } else if (z == LEFT || z == FIRED) {
        // Fired, or drained for a move: counted elsewhere, and a move or re-arm that comes
        // after this CAS leaves it out (enterHeap), so no heap holds it uncounted.
        if (ACCOUNT.compareAndSet(this, z, ELSEWHERE)) { // CAS: races enterHeap and run's claim
          s.timers.cancelled(null);
          break;
        }
      } else {
        break; // REMOVED: a remover saw the cancel first and counted it
      }
    }
    return cancelled;
  }

  /**
   * TimerHeap#addLocked: in a heap (again, for a re-armed or moved task); false if a cancel
   * counted it while it was out of every heap, and then it stays out (a heap holding it would
   * count it live, as a stats-only leak of one pending timer, then count its cancel twice). A
   * cancel racing a fresh task's first add is not guarded: the public API returns the future
   * only after the add.
   */
  boolean enterHeap() {
    int z = cancelAccount;
    // CAS: races cancel's LEFT -> ELSEWHERE; volatile, after the heap write, for cancel's read
    return z == 0 || (z == LEFT && ACCOUNT.compareAndSet(this, LEFT, 0));
  }

  /**
   * A remover takes a cancelled entry out (lock held): true if the canceller counted it, so the
   * heap's cancelled-entry count must drop; false if it had not yet, and now never will.
   */
  boolean uncountCancel() {
    // Usually the canceller has counted it already (COUNTED is final while in a heap): a read
    // settles that without a CAS, which compaction would otherwise pay once per cancelled entry.
    return cancelAccount != 0
        || !ACCOUNT.compareAndSet(this, 0, REMOVED); // CAS: the canceller races us for it
  }

  /** A live entry leaves its heap (lock held): false if a cancel counted it there meanwhile. */
  boolean leaveLive() {
    return ACCOUNT.compareAndSet(this, 0, LEFT); // CAS: the canceller races us for it
  }

  /**
   * Its heap fired it (Timers#runDue, heap lock held; LEFT), or it was due at once (never in a
   * heap: 0): the run this starts re-arms a periodic task.
   */
  void fired() {
    int z = cancelAccount;
    if (period != 0 && (z == LEFT || z == 0)) {
      ACCOUNT.compareAndSet(this, z, FIRED); // CAS: a cancel may have come first (ELSEWHERE)
    }
  }

  /** Cancels without the cancelled entry hook: shutdown's sweep, which compacts the heap itself. */
  boolean cancelQuietly() {
    return super.cancel(false);
  }

  /**
   * Runs once fired. STPE's rules: after shutdown a periodic task is cancelled instead of run; a
   * periodic run that throws completes the future exceptionally and is not repeated; fixed rate
   * counts from the schedule, fixed delay from the end of the run.
   */
  @Override
  public void run() {
    if (period == 0) {
      super.run();
      return;
    }
    // CAS: a caller's run() may race the fired run for the claim, and cancel too; one wins.
    boolean fromHeap = ACCOUNT.compareAndSet(this, FIRED, LEFT);
    if (s.runState >= Scheduler.SHUTDOWN) {
      cancel(false);
      return;
    }
    // Not run here because a caller's run() holds the task at this moment (runAndReset false,
    // the task not done): the schedule goes on all the same, or this period's clash dropped it.
    if ((runAndReset() || !isDone()) && fromHeap) {
      when = period > 0 ? Timers.saturatedAdd(when, period) : Timers.deadline(-period);
      s.timers.rearm(this);
    }
  }

  /**
   * From a task, the wait is declared ({@link Syscall#blocking}), as a wait on submit's future
   * is: the task's P goes to another thread at once if work waits, instead of when the block
   * detector sees the thread off the CPU. Nothing runs in place: a timer's time has not come.
   */
  @Override
  public V get() throws InterruptedException, ExecutionException {
    if (isDone() || ThreadTable.currentM() == null) {
      return super.get(); // no wait, or not a worker: nothing to declare, nothing allocated
    }
    try {
      return declaredWait(false, 0L);
    } catch (TimeoutException e) {
      throw new AssertionError(e); // an untimed wait does not time out
    }
  }

  /** As {@link #get()}: from a task, a wait with time left is declared. */
  @Override
  public V get(long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    long nanos = unit.toNanos(timeout); // a null unit throws here, as FutureTask's
    if (nanos <= 0 || isDone() || ThreadTable.currentM() == null) {
      return super.get(timeout, unit);
    }
    return declaredWait(true, nanos);
  }

  private V declaredWait(boolean timed, long nanos)
      throws InterruptedException, ExecutionException, TimeoutException {
    try {
      return Syscall.blocking(new DeclaredGet<>(this, timed, nanos));
    } catch (InterruptedException | ExecutionException | TimeoutException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new AssertionError(e); // FutureTask's get throws nothing else
    }
  }

  private V plainGet(boolean timed, long nanos)
      throws InterruptedException, ExecutionException, TimeoutException {
    return timed ? super.get(nanos, TimeUnit.NANOSECONDS) : super.get();
  }

  /** The wait declaredWait declares: a class, not a lambda (HelpingFuture.DeclaredWait's reason). */
  private static final class DeclaredGet<V> implements Callable<V> {
    private final ScheduledTask<V> t;
    private final boolean timed;
    private final long nanos;

    DeclaredGet(ScheduledTask<V> t, boolean timed, long nanos) {
      this.t = t;
      this.timed = timed;
      this.nanos = nanos;
    }

    @Override
    public V call() throws InterruptedException, ExecutionException, TimeoutException {
      return t.plainGet(timed, nanos);
    }
  }

  @Override
  public String toString() {
    return super.toString() + "[" + (isPeriodic() ? "periodic, " : "") + "delay="
        + getDelay(TimeUnit.NANOSECONDS) + "ns]";
  }
}
