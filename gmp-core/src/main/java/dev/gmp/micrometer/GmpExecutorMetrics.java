package dev.gmp.micrometer;

import dev.gmp.GmpExecutor;
import dev.gmp.GmpStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Binds a {@link GmpExecutor}'s scheduler statistics to a Micrometer {@link MeterRegistry}, with
 * the meter names Micrometer's own {@code ExecutorServiceMetrics} gives a {@code ForkJoinPool}
 * (which it cannot do for other executors), plus gmp's own. Every meter is tagged {@code
 * name=<name>} and the given tags.
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>what</th></tr>
 *   <tr><td>{@code executor.steals}</td><td>function counter</td>
 *       <td>tasks stolen from another processor's local queue ({@link GmpStats#steals})</td></tr>
 *   <tr><td>{@code executor.queued}</td><td>gauge</td>
 *       <td>tasks queued and not started: global plus local queues ({@link
 *       GmpStats#runnableTasks})</td></tr>
 *   <tr><td>{@code executor.active}</td><td>gauge</td>
 *       <td>tasks started and not finished, each on its own thread: running on a processor,
 *       inside {@link GmpExecutor#blocking}, or found blocked by sysmon (the three task states
 *       of {@link GmpStats})</td></tr>
 *   <tr><td>{@code executor.running}</td><td>gauge</td>
 *       <td>threads running a task on a processor, not in a blocking call (ForkJoinPool's
 *       "running threads": {@link GmpStats#runningTasks})</td></tr>
 *   <tr><td>{@code executor.parallelism}</td><td>gauge</td>
 *       <td>processors (GOMAXPROCS)</td></tr>
 *   <tr><td>{@code executor.pool.size}</td><td>gauge</td>
 *       <td>worker threads alive ({@link GmpStats#threads})</td></tr>
 *   <tr><td>{@code executor.handoffs}</td><td>function counter</td>
 *       <td>processors handed from a blocked thread to another</td></tr>
 *   <tr><td>{@code executor.retakes}</td><td>function counter</td>
 *       <td>processors taken back from a blocking call or a task that held one too long</td></tr>
 *   <tr><td>{@code executor.spinning}</td><td>gauge</td>
 *       <td>threads looking for work to steal</td></tr>
 *   <tr><td>{@code executor.idle.processors}</td><td>gauge</td>
 *       <td>processors on the idle list</td></tr>
 *   <tr><td>{@code executor.completed}</td><td>function counter</td>
 *       <td>tasks that finished, normally or by throwing</td></tr>
 *   <tr><td>{@code executor.queued.global}</td><td>gauge</td>
 *       <td>the part of {@code executor.queued} in the global queue</td></tr>
 *   <tr><td>{@code executor.parks}</td><td>function counter</td>
 *       <td>times a thread parked for want of work</td></tr>
 * </table>
 *
 * <p>Each value is read from {@link GmpExecutor#stats()} when the registry asks (a scrape), so it
 * costs nothing between scrapes; meters refer to the executor weakly, as Micrometer's gauges do,
 * and read NaN once it has been collected.
 *
 * <pre>{@code
 * new GmpExecutorMetrics(executor, "app", Tags.of("region", "eu")).bindTo(registry);
 * }</pre>
 */
public final class GmpExecutorMetrics implements MeterBinder {
  private final GmpExecutor executor;
  private final Tags tags;

  /**
   * A binder for {@code executor}'s meters; {@link #bindTo} registers them.
   *
   * @param executor the executor to observe
   * @param name the value of the {@code name} tag
   * @param tags further tags for every meter; null means none
   * @throws NullPointerException if executor or name is null
   * @throws IllegalArgumentException if name is blank
   */
  public GmpExecutorMetrics(GmpExecutor executor, String name, Iterable<Tag> tags) {
    this.executor = Objects.requireNonNull(executor, "executor");
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("name must not be blank, was '" + name + "'");
    }
    this.tags = Tags.concat(tags, "name", name);
  }

  /**
   * Registers this executor's meters (the table above) with {@code registry}.
   *
   * @param registry where the meters go
   * @throws NullPointerException if registry is null
   */
  @Override
  public void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    counter(registry, "executor.steals", GmpStats::steals, BaseUnits.TASKS,
        "Tasks stolen from another processor's local queue");
    gauge(registry, "executor.queued", GmpStats::runnableTasks, BaseUnits.TASKS,
        "Tasks queued and not started, in the global queue and every processor's local queue");
    gauge(registry, "executor.active", s -> s.runningTasks() + s.syscallTasks() + s.waitingTasks(),
        BaseUnits.THREADS,
        "Tasks started and not finished (running, in a blocking call, or found blocked), one"
            + " thread each");
    gauge(registry, "executor.running", GmpStats::runningTasks, BaseUnits.THREADS,
        "Threads running a task on a processor, not in a blocking call");
    gauge(registry, "executor.parallelism", GmpStats::parallelism, BaseUnits.THREADS,
        "Processors (GOMAXPROCS): how many tasks may run at once");
    gauge(registry, "executor.pool.size", GmpStats::threads, BaseUnits.THREADS,
        "Worker threads alive");
    counter(registry, "executor.handoffs", GmpStats::handoffs, null,
        "Processors handed from a blocked worker thread to another");
    counter(registry, "executor.retakes", GmpStats::retakes, null,
        "Processors taken back from a blocking call or from a task that held one too long");
    gauge(registry, "executor.spinning", GmpStats::spinningThreads, BaseUnits.THREADS,
        "Worker threads looking for work to steal");
    gauge(registry, "executor.idle.processors", GmpStats::idleProcessors, null,
        "Processors on the idle list");
    counter(registry, "executor.completed", GmpStats::completedTasks, BaseUnits.TASKS,
        "Tasks that finished, normally or by throwing");
    gauge(registry, "executor.queued.global", GmpStats::globalQueueLength, BaseUnits.TASKS,
        "Tasks in the global queue");
    counter(registry, "executor.parks", GmpStats::parks, null,
        "Times a worker thread parked for want of work");
  }

  private void gauge(MeterRegistry registry, String name, ToDoubleFunction<GmpStats> f,
      String unit, String description) {
    Gauge.builder(name, executor, e -> f.applyAsDouble(e.stats()))
        .tags(tags)
        .description(description)
        .baseUnit(unit)
        .register(registry);
  }

  private void counter(MeterRegistry registry, String name, ToDoubleFunction<GmpStats> f,
      String unit, String description) {
    FunctionCounter.builder(name, executor, e -> f.applyAsDouble(e.stats()))
        .tags(tags)
        .description(description)
        .baseUnit(unit)
        .register(registry);
  }
}
