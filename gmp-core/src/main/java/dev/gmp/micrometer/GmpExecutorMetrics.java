package dev.gmp.micrometer;

import dev.gmp.GmpExecutor;
import dev.gmp.GmpStats;
import dev.gmp.SchedulingLatency;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.function.ToDoubleFunction;

/**
 * Binds a {@link GmpExecutor}'s scheduler statistics to a Micrometer {@link MeterRegistry}, with
 * the meters Micrometer's own {@code ExecutorServiceMetrics} gives a {@code ForkJoinPool} (which
 * it cannot do for other executors), plus gmp's own. Every meter is tagged {@code name=<name>}
 * and the given tags.
 *
 * <p>The seven meters ForkJoinPool's binding also publishes (on JDK 25) have exactly its type,
 * base unit and description (Micrometer 1.17), so a ForkJoinPool dashboard reads gmp unchanged:
 * in Prometheus {@code executor_steals_total}, {@code executor_queued}, {@code executor_active},
 * {@code executor_running}, {@code executor_parallelism_threads}, {@code
 * executor_pool_size_threads}, {@code executor_delayed_tasks}.
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type, base unit</th><th>what</th></tr>
 *   <tr><td>{@code executor.steals}</td><td>function counter</td>
 *       <td>tasks stolen from another processor's local queue ({@link GmpStats#steals})</td></tr>
 *   <tr><td>{@code executor.queued}</td><td>gauge</td>
 *       <td>tasks queued and not started: global plus local queues ({@link
 *       GmpStats#runnableTasks})</td></tr>
 *   <tr><td>{@code executor.active}</td><td>gauge</td>
 *       <td>threads stealing or executing tasks, as ForkJoinPool's: spinning, running a task on
 *       a processor, inside {@link GmpExecutor#blocking}, or found blocked by sysmon (a parked
 *       virtual thread occupies none)</td></tr>
 *   <tr><td>{@code executor.running}</td><td>gauge</td>
 *       <td>of those, the ones not blocked: spinning or running a task on a processor
 *       (ForkJoinPool's threads "not blocked waiting to join tasks or for other managed
 *       synchronization")</td></tr>
 *   <tr><td>{@code executor.parallelism}</td><td>gauge, threads</td>
 *       <td>processors (GOMAXPROCS)</td></tr>
 *   <tr><td>{@code executor.pool.size}</td><td>gauge, threads</td>
 *       <td>worker threads alive ({@link GmpStats#threads})</td></tr>
 *   <tr><td>{@code executor.delayed}</td><td>gauge, tasks</td>
 *       <td>delayed and periodic tasks waiting for their time ({@link
 *       GmpStats#pendingTimers})</td></tr>
 *   <tr><td>{@code executor.handoffs}</td><td>function counter</td>
 *       <td>{@link GmpStats#handoffs}</td></tr>
 *   <tr><td>{@code executor.retakes}</td><td>function counter</td>
 *       <td>{@link GmpStats#retakes}</td></tr>
 *   <tr><td>{@code executor.spinning}</td><td>gauge, threads</td>
 *       <td>threads looking for work to steal</td></tr>
 *   <tr><td>{@code executor.idle.processors}</td><td>gauge</td>
 *       <td>processors on the idle list</td></tr>
 *   <tr><td>{@code executor.completed}</td><td>function counter, tasks</td>
 *       <td>tasks that finished, normally or by throwing (ThreadPoolExecutor's binding has the
 *       same name and unit)</td></tr>
 *   <tr><td>{@code executor.queued.global}</td><td>gauge, tasks</td>
 *       <td>the part of {@code executor.queued} in the global queue</td></tr>
 *   <tr><td>{@code executor.parks}</td><td>function counter</td>
 *       <td>times a thread parked for want of work</td></tr>
 *   <tr><td>{@code executor.idle}</td><td>timer, with percentiles 0.5, 0.9, 0.99, 0.999</td>
 *       <td>scheduling latency: how long tasks waited between becoming runnable and starting
 *       (the name Micrometer's {@code TimedExecutorService} gives queue wait). Sampled: its count
 *       is of the sampled tasks, one in {@link SchedulingLatency#sampleEvery}, and each sample is
 *       recorded by the worker thread about to start the task ({@link
 *       GmpExecutor#onSchedulingLatency})</td></tr>
 * </table>
 *
 * <p>Cost. The values are read when the registry asks (a scrape), so they cost nothing between
 * scrapes. One scrape reads every meter one after another; building a {@link GmpStats} for each
 * would walk every processor and thread a dozen times and let the meters of one scrape disagree
 * (active below running). So the meters share one snapshot, taken by the first meter read and
 * reused by those read within 50 ms of it: a whole scrape, and never
 * the next one (scrape intervals are seconds). Meters refer to the executor weakly, as
 * Micrometer's gauges do, and read NaN once it has been collected.
 *
 * <pre>{@code
 * new GmpExecutorMetrics(executor, "app", Tags.of("region", "eu")).bindTo(registry);
 * }</pre>
 *
 * <p>The {@code executor.idle} Timer is fed by a listener on the executor, which holds the Timer
 * for as long as the executor lives. An executor that outlives its registries (one per test, a
 * refreshed application context) should have its binder closed with them: {@link #close}
 * removes the listeners this binder added (Spring calls {@code close()} on a binder bean when
 * its context closes). The meters stay in their registries, as Micrometer's own binders leave
 * theirs.
 */
public final class GmpExecutorMetrics implements MeterBinder, AutoCloseable {
  /** How long a snapshot serves further meter reads: longer than a scrape, shorter than two. */
  static final long SNAPSHOT_REUSE_MILLIS = 50;

  private final GmpExecutor executor;
  private final Tags tags;

  /** The latency listeners bindTo added to the executor, for close. Guarded by itself. */
  private final List<LongConsumer> added = new ArrayList<>();

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
    Snapshots snap = new Snapshots();
    // ForkJoinPool's six, as ExecutorServiceMetrics#monitor(registry, ForkJoinPool) defines them.
    FunctionCounter.builder("executor.steals", executor, e -> snap.of(e).steals())
        .tags(tags)
        .description("Estimate of the total number of tasks stolen from one thread's work queue"
            + " by another. The reported value underestimates the actual total number of steals"
            + " when the pool is not quiescent")
        .register(registry);
    Gauge.builder("executor.queued", executor, e -> snap.of(e).runnableTasks())
        .tags(tags)
        .description("The approximate number of tasks that are queued for execution")
        .register(registry);
    Gauge.builder("executor.active", executor, e -> active(snap.of(e)))
        .tags(tags)
        .description("An estimate of the number of threads that are currently stealing or"
            + " executing tasks")
        .register(registry);
    Gauge.builder("executor.running", executor, e -> running(snap.of(e)))
        .tags(tags)
        .description("An estimate of the number of worker threads that are not blocked waiting"
            + " to join tasks or for other managed synchronization threads")
        .register(registry);
    Gauge.builder("executor.parallelism", executor, e -> snap.of(e).parallelism())
        .tags(tags)
        .description("The targeted parallelism level of this pool")
        .baseUnit(BaseUnits.THREADS)
        .register(registry);
    Gauge.builder("executor.pool.size", executor, e -> snap.of(e).threads())
        .tags(tags)
        .description("The current number of threads in the pool")
        .baseUnit(BaseUnits.THREADS)
        .register(registry);
    // What the binding adds for a ForkJoinPool on JDK 25 and later, where it has delayed tasks.
    Gauge.builder("executor.delayed", executor, e -> snap.of(e).pendingTimers())
        .tags(tags)
        .description("An estimate of the number of delayed tasks scheduled but not yet ready for"
            + " execution")
        .baseUnit(BaseUnits.TASKS)
        .register(registry);
    // gmp's own.
    counter(registry, snap, "executor.handoffs", GmpStats::handoffs, null,
        "Processors passed on from a thread that cannot use them (a blocking call as it starts,"
            + " or after a sysmon retake), to another thread or the idle list");
    counter(registry, snap, "executor.retakes", GmpStats::retakes, null,
        "Processors taken from a blocking call, a blocked task or a task that held one a whole"
            + " time slice, by sysmon or by a thread back from its own blocking call");
    gauge(registry, snap, "executor.spinning", GmpStats::spinningThreads, BaseUnits.THREADS,
        "Worker threads looking for work to steal");
    gauge(registry, snap, "executor.idle.processors", GmpStats::idleProcessors, null,
        "Processors on the idle list");
    counter(registry, snap, "executor.completed", GmpStats::completedTasks, BaseUnits.TASKS,
        "Tasks that finished, normally or by throwing");
    gauge(registry, snap, "executor.queued.global", GmpStats::globalQueueLength,
        BaseUnits.TASKS, "Tasks in the global queue");
    counter(registry, snap, "executor.parks", GmpStats::parks, null,
        "Times a worker thread parked for want of work");
    // Queue wait, under the name Micrometer's TimedExecutorService gives it; fed by the workers.
    Timer idle = Timer.builder("executor.idle")
        .tags(tags)
        .description("Time tasks waited between becoming runnable and starting (scheduling"
            + " latency), sampled: one task in " + SchedulingLatency.SAMPLE_EVERY_DEFAULT)
        .publishPercentiles(0.5, 0.9, 0.99, 0.999)
        .register(registry);
    // Binding again to the same registry gets this Timer back (as every meter above): the
    // executor keeps one listener per Timer (Record's equality), not one per binding.
    Record feed = new Record(idle);
    synchronized (added) {
      executor.onSchedulingLatency(feed);
      added.add(feed);
    }
  }

  /**
   * Removes the latency listeners that {@link #bindTo} added to the executor, so that it no
   * longer holds or feeds the {@code executor.idle} Timers of this binder's registries. The
   * meters stay registered; bindTo may be called again. A second binder of the same executor,
   * name and tags on the same registry shares that Timer, and its feed, with this one.
   */
  @Override
  public void close() {
    synchronized (added) {
      for (LongConsumer l : added) {
        executor.removeSchedulingLatencyListener(l);
      }
      added.clear();
    }
  }

  /**
   * The executor's latency listener: a class holding only the Timer, not the registry. A Timer
   * with percentiles costs a few hundred nanoseconds per record (its time-windowed histograms),
   * paid by the worker once per sample, so a bound executor pays a few nanoseconds per task
   * more than an unbound one; Micrometer has no way to feed a Timer's percentiles in bulk.
   */
  private record Record(Timer timer) implements LongConsumer {
    @Override
    public void accept(long nanos) {
      timer.record(nanos, TimeUnit.NANOSECONDS);
    }

    // By the Timer's identity: meters of two registries may be equal, and each needs its feed.
    @Override
    public boolean equals(Object o) {
      return o instanceof Record r && r.timer == timer;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(timer);
    }
  }

  /** ForkJoinPool's active threads: stealing (spinning) or executing, blocked or not. */
  static int active(GmpStats s) {
    // Parked virtual threads are in waitingTasks but occupy no thread: not active.
    return s.spinningThreads() + s.runningTasks() + s.syscallTasks() + s.waitingTasks()
        - s.parkedVirtualThreads();
  }

  /** Of the active, those not in a blocking call nor found blocked. */
  static int running(GmpStats s) {
    return s.spinningThreads() + s.runningTasks();
  }

  private void gauge(MeterRegistry registry, Snapshots snap, String name,
      ToDoubleFunction<GmpStats> f, String unit, String description) {
    Gauge.builder(name, executor, e -> f.applyAsDouble(snap.of(e)))
        .tags(tags)
        .description(description)
        .baseUnit(unit)
        .register(registry);
  }

  private void counter(MeterRegistry registry, Snapshots snap, String name,
      ToDoubleFunction<GmpStats> f, String unit, String description) {
    FunctionCounter.builder(name, executor, e -> f.applyAsDouble(snap.of(e)))
        .tags(tags)
        .description(description)
        .baseUnit(unit)
        .register(registry);
  }

  /**
   * The snapshot the meters of one binding share. It holds no reference to the executor (the
   * meters' lambdas hold it strongly, and the executor must stay collectable).
   */
  static final class Snapshots {
    private static final long REUSE_NANOS = SNAPSHOT_REUSE_MILLIS * 1_000_000L;

    /** A snapshot and when it was taken; immutable, so a reader sees it whole. */
    private record Taken(GmpStats stats, long at) {}

    /**
     * The latest snapshot. Volatile: a reader on another scraping thread sees a recent one (or
     * takes its own); two readers that both take one waste a walk, nothing else.
     */
    private volatile Taken last;

    GmpStats of(GmpExecutor e) {
      long now = System.nanoTime();
      Taken t = last;
      if (t != null && now - t.at < REUSE_NANOS) {
        return t.stats;
      }
      GmpStats st = e.stats();
      last = new Taken(st, now);
      return st;
    }
  }
}
