package dev.gmp;

import java.lang.ref.Reference;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * GmpExecutor's {@link ScheduledExecutorService} methods (Go's timers, see {@link Timers}), kept
 * apart from the executor's own file for its length; package-private, so its public methods
 * belong to GmpExecutor's API (javadoc documents them there).
 */
abstract class ScheduledExecutorSupport extends AbstractExecutorService
    implements ScheduledExecutorService {
  final Scheduler sched;

  /** Builder#taskDecorator, or null: execute's only extra cost when unset is this null check. */
  final UnaryOperator<Runnable> decorator;

  ScheduledExecutorSupport(Scheduler sched, UnaryOperator<Runnable> decorator) {
    this.sched = sched;
    this.decorator = decorator;
  }

  /**
   * The future of AbstractExecutorService's {@code invokeAny} (from outside a task): its
   * {@code get()} from one of this executor's tasks runs the task in place if no thread has
   * started it (see {@link HelpingFuture}); a plain FutureTask under a task decorator (the
   * ExecutorCompletionService wraps it in a future of its own, which execute decorates). submit
   * and invokeAll make theirs themselves.
   *
   * @param <T> the task's result type
   * @param callable the task
   * @return the future that is queued and handed out
   */
  @Override
  protected <T> RunnableFuture<T> newTaskFor(Callable<T> callable) {
    return decorator == null
        ? new HelpingFuture<>(sched, callable, false)
        : new FutureTask<>(callable);
  }

  /**
   * As {@link #newTaskFor(Callable)}, for a Runnable and the value its future returns.
   *
   * @param <T> the future's result type
   * @param runnable the task
   * @param value what the future returns once the task ran
   * @return the future that is queued and handed out
   */
  @Override
  protected <T> RunnableFuture<T> newTaskFor(Runnable runnable, T value) {
    return decorator == null
        ? new HelpingFuture<>(sched, runnable, value, false)
        : new FutureTask<>(runnable, value);
  }

  /**
   * As AbstractExecutorService's submit, less the queue claim: the future is its own G, queued
   * before anyone else can see it, so the CAS that makes invokeAll's futures queue once
   * (executeFuture) has nothing to decide here.
   *
   * @throws NullPointerException if task is null
   * @throws java.util.concurrent.RejectedExecutionException if the executor is shut down
   */
  @Override
  public Future<?> submit(Runnable task) {
    if (decorator != null) {
      rejectIfShutdown(Objects.requireNonNull(task, "task")); // null first, as without one
      return queued(DecoratedFuture.<Void>of(sched, decorator, task, null, true));
    }
    return queued(new HelpingFuture<Void>(sched, task, null, true));
  }

  /**
   * As {@link #submit(Runnable)}; the future returns {@code result}.
   *
   * @throws NullPointerException if task is null
   * @throws java.util.concurrent.RejectedExecutionException if the executor is shut down
   */
  @Override
  public <T> Future<T> submit(Runnable task, T result) {
    if (decorator != null) {
      rejectIfShutdown(Objects.requireNonNull(task, "task")); // null first, as without one
      return queued(DecoratedFuture.of(sched, decorator, task, result, true));
    }
    return queued(new HelpingFuture<>(sched, task, result, true));
  }

  /**
   * As {@link #submit(Runnable)}, for a Callable.
   *
   * @throws NullPointerException if task is null
   * @throws java.util.concurrent.RejectedExecutionException if the executor is shut down
   */
  @Override
  public <T> Future<T> submit(Callable<T> task) {
    if (decorator != null) {
      rejectIfShutdown(Objects.requireNonNull(task, "task")); // null first, as without one
      return queued(DecoratedFuture.of(sched, decorator, task, true));
    }
    return queued(new HelpingFuture<>(sched, task, true));
  }

  /**
   * invokeAll's future for {@code task}: as {@link #newTaskFor(Callable)}, but a HelpingFuture
   * under a task decorator too, decorated (invokeAll queues it itself, by executeFuture).
   */
  final <T> HelpingFuture<T> futureFor(Callable<T> task) {
    if (decorator != null) {
      rejectIfShutdown(Objects.requireNonNull(task, "task")); // null first, as without one
      return DecoratedFuture.of(sched, decorator, task, false);
    }
    return new HelpingFuture<>(sched, task, false);
  }

  /**
   * invokeAll's execute of a future futureFor made: queued as its own G, once (claimQueue); one
   * whose run was already called goes in a G of its own like any task, and finds the run claimed.
   */
  final void executeFuture(HelpingFuture<?> f) {
    if (f.claimQueue(sched)) {
      queued(f);
    } else {
      execute(f);
    }
  }

  private <T> Future<T> queued(HelpingFuture<T> f) {
    sched.submitFuture(f); // its own G, no wrapper
    Reference.reachabilityFence(this); // as in GmpExecutor#execute: see M#pinned
    return f;
  }

  /**
   * Runs {@code command} once after {@code delay} (at once if {@code delay <= 0}). From one of
   * this executor's tasks the timer goes on that processor's heap.
   *
   * @throws NullPointerException if command or unit is null
   * @throws java.util.concurrent.RejectedExecutionException if the executor is shut down
   */
  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    Objects.requireNonNull(command, "command");
    Objects.requireNonNull(unit, "unit");
    long d = unit.toNanos(delay);
    Owned<Void> c = new Owned<>(accepting(command), null, this);
    return sched.timers.schedule(new ScheduledTask<>(sched, c, Timers.deadline(d), 0), d);
  }

  /**
   * As {@link #schedule(Runnable, long, TimeUnit)}, for a value-returning task. With a task
   * decorator, the decorator wraps the call of {@code callable} (a Runnable that makes it), so it
   * sees every scheduled task, as it sees what {@code submit} wraps.
   */
  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    Objects.requireNonNull(callable, "callable");
    Objects.requireNonNull(unit, "unit");
    long d = unit.toNanos(delay);
    Callable<V> c = callable;
    if (decorator != null) {
      rejectIfShutdown(callable);
      c = new DecoratedCall<>(decorator, callable);
    }
    Owned<V> o = new Owned<>(null, c, this);
    return sched.timers.schedule(new ScheduledTask<>(sched, o, Timers.deadline(d), 0), d);
  }

  /**
   * Runs {@code command} after {@code initialDelay}, then every {@code period} counted from the
   * first run's scheduled time (a late run does not shift later ones; runs never overlap). A run
   * that throws ends the repetition and completes the future with its exception.
   *
   * @throws IllegalArgumentException if period &lt;= 0
   */
  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    Objects.requireNonNull(command, "command");
    Objects.requireNonNull(unit, "unit");
    if (period <= 0) {
      throw new IllegalArgumentException("period must be > 0, was " + period);
    }
    long d = unit.toNanos(initialDelay);
    Owned<Void> c = new Owned<>(accepting(command), null, this);
    return sched.timers.schedule(
        new ScheduledTask<>(sched, c, Timers.deadline(d), unit.toNanos(period)), d);
  }

  /**
   * Runs {@code command} after {@code initialDelay}, then again {@code delay} after each run
   * ends. A run that throws ends the repetition and completes the future with its exception.
   *
   * @throws IllegalArgumentException if delay &lt;= 0
   */
  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(
      Runnable command, long initialDelay, long delay, TimeUnit unit) {
    Objects.requireNonNull(command, "command");
    Objects.requireNonNull(unit, "unit");
    if (delay <= 0) {
      throw new IllegalArgumentException("delay must be > 0, was " + delay);
    }
    long d = unit.toNanos(initialDelay);
    Owned<Void> c = new Owned<>(accepting(command), null, this);
    return sched.timers.schedule(
        new ScheduledTask<>(sched, c, Timers.deadline(d), -unit.toNanos(delay)), d);
  }

  /**
   * A timer's task, holding its executor: while the timer is pending (in a timer heap, reachable
   * from the Ms' threads), the executor is reachable too, as a ScheduledThreadPoolExecutor or a
   * ForkJoinPool stays alive for its pending delayed tasks. Without it, an executor the program
   * dropped was collected and shut down by the Cleaner before its timers fired: a periodic task
   * was cancelled (a heartbeat whose future alone was kept stopped at the first collection), and
   * a one-shot ran on an executor already shut down, on an M that had woken by its own timeout
   * and so could not pin it: {@code current()} was null inside the task. The callable of a
   * FutureTask goes at its end or cancel, and this with it, so a cancelled timer left in its heap
   * for lazy removal holds nothing. Also the Runnable-to-Callable adapter FutureTask would
   * otherwise allocate: one object either way.
   */
  private static final class Owned<V> implements Callable<V> {
    private final Runnable runnable; // the task, or null for a Callable's
    private final Callable<V> callable;

    @SuppressWarnings("unused") // held, never read: reachability is its job
    private final ScheduledExecutorSupport owner;

    Owned(Runnable runnable, Callable<V> callable, ScheduledExecutorSupport owner) {
      this.runnable = runnable;
      this.callable = callable;
      this.owner = owner;
    }

    @Override
    public V call() throws Exception {
      if (runnable != null) {
        runnable.run();
        return null;
      }
      return callable.call();
    }

    @Override
    public String toString() {
      return runnable != null ? runnable.toString() : callable.toString();
    }
  }

  /**
   * The task as it will be queued: decorated, after the arguments were checked and only if the
   * executor still accepts tasks (a decorator sees no task that is rejected for shutdown; one that
   * races a shutdown is rejected later, decorated).
   */
  final Runnable accepting(Runnable task) {
    UnaryOperator<Runnable> d = decorator;
    if (d == null) {
      return task;
    }
    rejectIfShutdown(task);
    return decorate(d, task);
  }

  private void rejectIfShutdown(Object task) {
    if (sched.runState >= Scheduler.SHUTDOWN) { // volatile
      throw sched.rejected(task);
    }
  }

  /**
   * A scheduled Callable under a task decorator: the decorator wraps a Runnable that makes the
   * call, and the future gets the call's value or exception. Both fields are written and read by
   * the one thread that runs the task.
   */
  private static final class DecoratedCall<V> implements Callable<V> {
    private final Callable<V> callable;
    private final Runnable decorated;
    private V value;
    private Exception failure;

    DecoratedCall(UnaryOperator<Runnable> d, Callable<V> callable) {
      this.callable = callable;
      this.decorated = decorate(d, new Call(this));
    }

    @Override
    public V call() throws Exception {
      value = null;
      failure = null;
      decorated.run();
      if (failure != null) {
        throw failure;
      }
      return value;
    }

    @Override
    public String toString() {
      return callable.toString();
    }

    /** The Runnable the decorator sees. */
    private static final class Call implements Runnable {
      private final DecoratedCall<?> owner;

      Call(DecoratedCall<?> owner) {
        this.owner = owner;
      }

      @Override
      public void run() {
        owner.run();
      }

      @Override
      public String toString() {
        return owner.callable.toString();
      }
    }

    private void run() {
      try {
        value = callable.call();
      } catch (Exception e) {
        failure = e;
      }
    }
  }

  static Runnable decorate(UnaryOperator<Runnable> d, Runnable task) {
    Runnable r = d.apply(task);
    if (r == null) {
      throw new NullPointerException("taskDecorator returned null for " + task);
    }
    return r;
  }
}
