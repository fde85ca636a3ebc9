package dev.gmp;

import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
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
   * Runs {@code command} once after {@code delay} (at once if {@code delay <= 0}). From one of
   * this executor's tasks the timer goes on that processor's heap.
   *
   * @throws NullPointerException if command or unit is null
   * @throws java.util.concurrent.RejectedExecutionException if the executor is shut down
   */
  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    Runnable r = checked(command, unit);
    long d = unit.toNanos(delay);
    return sched.timers.schedule(new ScheduledTask<Void>(sched, r, null, Timers.deadline(d), 0), d);
  }

  /** As {@link #schedule(Runnable, long, TimeUnit)}, for a value-returning task. */
  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    Objects.requireNonNull(callable, "callable");
    Objects.requireNonNull(unit, "unit");
    long d = unit.toNanos(delay);
    return sched.timers.schedule(new ScheduledTask<>(sched, callable, Timers.deadline(d)), d);
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
    Runnable r = checked(command, unit);
    if (period <= 0) {
      throw new IllegalArgumentException("period must be > 0, was " + period);
    }
    long d = unit.toNanos(initialDelay);
    return sched.timers.schedule(
        new ScheduledTask<Void>(sched, r, null, Timers.deadline(d), unit.toNanos(period)), d);
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
    Runnable r = checked(command, unit);
    if (delay <= 0) {
      throw new IllegalArgumentException("delay must be > 0, was " + delay);
    }
    long d = unit.toNanos(initialDelay);
    return sched.timers.schedule(
        new ScheduledTask<Void>(sched, r, null, Timers.deadline(d), -unit.toNanos(delay)), d);
  }

  private Runnable checked(Runnable command, TimeUnit unit) {
    Objects.requireNonNull(command, "command");
    Objects.requireNonNull(unit, "unit");
    UnaryOperator<Runnable> d = decorator;
    return d == null ? command : decorate(d, command);
  }

  static Runnable decorate(UnaryOperator<Runnable> d, Runnable task) {
    Runnable r = d.apply(task);
    if (r == null) {
      throw new NullPointerException("taskDecorator returned null for " + task);
    }
    return r;
  }
}
