package dev.gmp;

import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntSupplier;
import java.util.function.LongConsumer;
import java.util.function.UnaryOperator;

/**
 * A work-stealing {@link java.util.concurrent.ExecutorService} built on Go's GMP scheduler:
 * {@code parallelism} processors (Ps) each with a 256-slot lock-free run queue and a
 * {@code runnext} slot, worker threads (Ms) that spin, steal and park as Go's do, a locked global
 * queue, and a sysmon thread that hands processors away from blocked workers.
 *
 * <p>{@link #execute} from one of this executor's own tasks is Go's {@code go} statement: the
 * new task takes the processor's runnext slot and runs next, on the same thread, inheriting the
 * time slice. From any other thread it goes to the global queue. {@link #virtualThreadBuilder}
 * makes it the carrier scheduler of JDK virtual threads. See the <a
 * href="https://github.com/gmp-dev/gmp">project page</a> for a guide and its <a
 * href="https://github.com/gmp-dev/gmp/blob/main/docs/design.md">design notes</a> for how the
 * scheduler works.
 *
 * <p>As a {@link java.util.concurrent.ScheduledExecutorService} it follows
 * ScheduledThreadPoolExecutor's semantics and default policies (after {@code shutdown()} delayed
 * one-shot tasks still run and periodic ones are cancelled; {@code shutdownNow()} returns pending
 * delayed tasks too), with Go's timers: each processor owns a 4-ary timer heap, the scheduling
 * loop runs the due ones, and an idle worker sleeps only until the earliest; there is no timer
 * thread. A cancelled timer releases its task at once and its heap entry soon after.
 */
public final class GmpExecutor extends ScheduledExecutorSupport {
  private GmpExecutor(Config config) {
    this(config, true);
  }

  /** With {@code withSysmon} false (tests only): no sysmon thread, to prove a path needs none. */
  GmpExecutor(Config config, boolean withSysmon) {
    super(new Scheduler(config, withSysmon), config.taskDecorator());
    Scheduler s = sched;
    // Nothing the threads reach refers to this object strongly (the scheduler has only this weak
    // reference, for current()), so an executor dropped without shutdown() is collected and its
    // scheduler shut down: queued tasks still run, then every thread exits.
    s.owner = new WeakReference<>(this);
    Lifecycle.shutdownWhenUnreachable(this, s);
    Jfr.register(s); // JFR's listener (once per JVM) and the periodic ExecutorStats
  }

  /**
   * The most processors an executor may have: 32,767, ForkJoinPool's limit. Each processor costs
   * about 64 KB at {@link Builder#build()} (its run queue's island), whether or not it is used.
   */
  public static final int MAX_PARALLELISM = 0x7fff;

  /**
   * An executor with {@code Runtime.availableProcessors()} processors, following that count as
   * it changes, and default settings.
   *
   * @return a new executor; it starts no thread until its first task
   */
  public static GmpExecutor create() {
    return builder().build();
  }

  /**
   * An executor with {@code parallelism} processors.
   *
   * @param parallelism the number of processors (GOMAXPROCS), pinned
   * @return a new executor; it starts no thread until its first task
   * @throws IllegalArgumentException if parallelism &lt; 1 or &gt; {@link #MAX_PARALLELISM}
   */
  public static GmpExecutor create(int parallelism) {
    return builder().parallelism(parallelism).build();
  }

  /**
   * A builder for an executor with settings other than the defaults.
   *
   * @return a new builder with every setting at its default
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The executor whose worker is running the calling thread, or null. From a virtual thread
   * carried by gmp ({@link #virtualThreadBuilder}), the executor that carries it.
   *
   * @return the executor running the caller, or null if it is not running on one
   */
  public static GmpExecutor current() {
    M m = ThreadTable.currentOrCarrierM();
    return m == null ? null : m.sched.owner.get();
  }

  /**
   * Runs {@code work}, a call that may block (I/O, a lock, {@code Future.get}), telling the
   * scheduler so: Go's entersyscall/exitsyscall. On a gmp worker the processor goes to another
   * thread if tasks wait (at once to an idle thread, else at sysmon's next tick), within the
   * spare budget ({@link Builder#maxSpareThreads}); the task continues once it has a processor
   * again. Outside a gmp worker this just calls {@code work}.
   *
   * @param <T> the result type of {@code work}
   * @param work the call that may block
   * @return what {@code work} returns
   * @throws Exception whatever {@code work} throws, unchanged
   */
  public static <T> T blocking(Callable<T> work) throws Exception {
    return Syscall.blocking(work);
  }

  /**
   * Virtual threads carried by this executor's worker threads: goroutines on Go's scheduler. A
   * start or unpark from one of them takes the processor's runnext slot (newproc / goready),
   * {@code Thread.yield} is Gosched, other wake-ups go to the global queue; sysmon retakes a
   * carrier stuck in file I/O or pinned. Threads started inside one inherit this executor (the
   * JDK's rule). The executor terminates only once every thread it started has: shutdown() lets
   * them finish, shutdownNow() interrupts them, and a start after termination throws {@link
   * java.util.concurrent.RejectedExecutionException}. The <a
   * href="https://github.com/gmp-dev/gmp/blob/main/docs/design.md#12-virtual-threads-gmp-as-their-carrier-scheduler">design
   * notes, section 12</a>, say how.
   *
   * @return a builder of virtual threads carried by this executor
   * @throws UnsupportedOperationException unless java.lang is open to gmp: {@code --add-opens
   *     java.base/java.lang=ALL-UNNAMED} (on the module path {@code =dev.gmp}). Nothing else
   *     in gmp needs a flag.
   */
  public Thread.Builder.OfVirtual virtualThreadBuilder() {
    return Carriers.of(sched).builder(this);
  }

  /**
   * As {@link Executors#newVirtualThreadPerTaskExecutor()}, on this executor's carriers.
   *
   * @return an executor that starts a new virtual thread, carried by this executor, per task
   * @throws UnsupportedOperationException as {@link #virtualThreadBuilder()}
   */
  public ExecutorService newVirtualThreadPerTaskExecutor() {
    return Executors.newThreadPerTaskExecutor(virtualThreadBuilder().factory());
  }

  /**
   * Go's GOMAXPROCS: how many tasks may run at once.
   *
   * @return the current number of processors
   */
  public int parallelism() {
    return sched.gomaxprocs;
  }

  /**
   * Changes the number of processors while tasks run. Shrinking retires the highest-numbered
   * processors: their queued tasks move to the global queue and a task running on one finishes
   * on its thread before that thread looks for another processor. Nothing is lost or run twice.
   * The value is then pinned: the executor stops following {@code availableProcessors()} (see
   * {@link Builder#followAvailableProcessors}). Each processor takes about 64 KB of heap while it
   * exists; a growth the heap cannot hold throws {@code OutOfMemoryError} and changes nothing.
   *
   * @param n the new number of processors
   * @throws IllegalArgumentException if n &lt; 1, n &gt; {@link #MAX_PARALLELISM} or n &gt;
   *     maxThreads
   */
  public void setParallelism(int n) {
    Resize.setParallelismChecked(sched, n);
  }

  /**
   * A snapshot of the scheduler's counters.
   *
   * @return the counters, each read without stopping the scheduler
   */
  public GmpStats stats() {
    return Counters.snapshot(sched);
  }

  /**
   * Scheduling latency so far: percentiles of how long sampled tasks waited between becoming
   * runnable and starting. Separate from {@link #stats()} because it sums a histogram (a few
   * thousand counters): cheap for a scrape or a JMX read, not for a tight polling loop.
   *
   * <p>Recorded from the first call of this method (or of {@link #onSchedulingLatency}, a JMX
   * read of a latency attribute, a JFR recording of {@code dev.gmp.ExecutorStats}), so the first
   * call may show no samples; {@link Builder#recordSchedulingLatency} records from the first task
   * instead.
   *
   * @return the sampled tasks' scheduling latency so far
   */
  public SchedulingLatency schedulingLatency() {
    sched.recordLatency();
    return sched.counters.latency.snapshot();
  }

  /**
   * Also passes each sampled task's scheduling latency, in nanoseconds, to {@code listener}: on
   * the worker thread about to start that task, so it must be quick and must not block (a
   * metrics Timer's {@code record}). One task in {@link SchedulingLatency#sampleEvery} is
   * sampled, from this call on (see {@link #schedulingLatency}). A throw goes to the executor's
   * uncaught-exception handler, or is logged (see {@link Builder#uncaughtExceptionHandler}), and
   * the task still runs. A listener equal to one added before is not added again. A listener
   * stays until {@link #removeSchedulingLatencyListener} removes it, or the executor is gone.
   *
   * @param listener receives each sampled task's scheduling latency, in nanoseconds
   * @throws NullPointerException if listener is null
   */
  public void onSchedulingLatency(LongConsumer listener) {
    sched.counters.latency.addListener(Objects.requireNonNull(listener, "listener"));
    sched.recordLatency();
  }

  /**
   * Removes a listener added by {@link #onSchedulingLatency} (one equal to {@code listener});
   * samples already being passed to it may still arrive. Sampling goes on.
   *
   * @param listener the listener to remove
   * @return whether it was there
   * @throws NullPointerException if listener is null
   */
  public boolean removeSchedulingLatencyListener(LongConsumer listener) {
    return sched.counters.latency.removeListener(Objects.requireNonNull(listener, "listener"));
  }

  /**
   * A goroutine-style dump of the scheduler as text: a header (Go's schedtrace line), one line
   * per processor ({@code P0: status=running m=M1 runqsize=2 runnext=G18 schedtick=41 ...}), one
   * per worker thread ({@code M1: thread=app-m1 state=RUNNABLE p=P0 curg=G17 ...}), one per task
   * that has started and not finished ({@code G17: status=running for=12.0ms m=M1 p=P0
   * task=com.example.Work}; states {@code running}, {@code syscall}, {@code waiting}, {@code
   * runnable}), and the totals. Stops nothing and takes no lock, so it is safe to call in
   * production at any time; lines may be from slightly different instants. The format is for
   * people: it may change.
   *
   * @return the dump, one line per item
   */
  public String dump() {
    return Dump.of(sched);
  }

  /**
   * Runs {@code task} (decorated first, if a {@link Builder#taskDecorator taskDecorator} is set):
   * from one of this executor's tasks it takes the processor's runnext slot, from any other
   * thread it goes to the global queue.
   *
   * @throws NullPointerException if task is null, or the decorator returned null
   * @throws java.util.concurrent.RejectedExecutionException if the executor is shut down
   * @throws RuntimeException whatever the decorator throws, unchanged; the task is then not
   *     accepted
   */
  @Override
  public void execute(Runnable task) {
    if (task == null) {
      throw new NullPointerException("task");
    }
    // No type test of the task here (invokeAll's futures take executeFuture): C2 would compile
    // one as a guess at the class it saw, and recompile execute for each new task class.
    sched.submit(accepting(task)); // decorated before anything is queued: a throw leaves no trace
    // Reachable until here: an M this call made or woke pins it (M#pinned) before it can go.
    Reference.reachabilityFence(this);
  }

  /**
   * Runs every task and returns their futures, in the collection's order, once all are done
   * (AbstractExecutorService's contract: if interrupted, or if a task cannot be accepted, every
   * future is cancelled and the exception thrown). It waits for the futures newest first, as
   * ForkJoinPool's invokeAll does: from one of this executor's tasks each wait runs a task no
   * thread has started yet in place, at the end of the queue the other workers do not steal from;
   * from any other thread the newest task is about the last to run, so the caller blocks about
   * once instead of once for each task it catches up with.
   *
   * @throws NullPointerException if tasks or any of its elements is null, checked before any
   *     task is queued: a call that throws it ran none of them
   * @throws java.util.concurrent.RejectedExecutionException if the executor is shut down
   */
  @Override
  public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks)
      throws InterruptedException {
    return HelpingFuture.invokeAll(this, tasks);
  }

  /**
   * Runs the tasks and returns the result of one that succeeded; the others are cancelled
   * (AbstractExecutorService's contract): the first to succeed is the answer, however long the
   * others run. From one of this executor's tasks the wait is a declared blocking call (see
   * {@link #blocking}): the task's processor, with the queued tasks, goes to another thread at
   * once. Where no other thread may take it ({@link Builder#maxSpareThreads maxSpareThreads(0)},
   * or {@link Builder#maxThreads maxThreads} no more than the parallelism), the waiting task runs
   * the tasks itself instead, newest first, as {@link #invokeAll(Collection)} does: then a task
   * that succeeds is the answer only after the one running in its place ends. So it does, for
   * the oldest task nobody started, when no task has ended for 10 ms and no thread may be made to
   * start one (every spare busy, or maxThreads reached). From any other thread it is
   * AbstractExecutorService's.
   *
   * @throws NullPointerException if tasks or any of its elements is null, checked before any
   *     task is queued: a call that throws it ran none of them
   * @throws IllegalArgumentException if tasks is empty
   * @throws ExecutionException if no task succeeded (the last failure is its cause)
   * @throws java.util.concurrent.RejectedExecutionException if the executor is shut down
   */
  @Override
  public <T> T invokeAny(Collection<? extends Callable<T>> tasks)
      throws InterruptedException, ExecutionException {
    if (HelpingFuture.callerIsTaskOf(sched)) {
      try {
        return HelpingFuture.invokeAnyInTask(this, tasks, -1L);
      } catch (TimeoutException e) {
        throw new AssertionError(e); // untimed: never
      }
    }
    HelpingFuture.requireNoNullTasks(tasks);
    return super.invokeAny(tasks);
  }

  /**
   * As {@link #invokeAny(Collection)}, within {@code timeout}: it ends at the timeout if no task
   * succeeded by then. Where the waiting task runs the tasks itself (no other thread may take its
   * processor: see {@link #invokeAny(Collection)}), it can end past the timeout by the run in its
   * place, as ForkJoinPool's timed join does.
   *
   * @throws NullPointerException if tasks, any of its elements, or unit is null, checked before
   *     any task is queued: a call that throws it ran none of them
   * @throws IllegalArgumentException if tasks is empty
   * @throws ExecutionException if no task succeeded (the last failure is its cause)
   * @throws TimeoutException if no task succeeded within the timeout
   * @throws java.util.concurrent.RejectedExecutionException if the executor is shut down
   */
  @Override
  public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    Objects.requireNonNull(unit, "unit");
    if (HelpingFuture.callerIsTaskOf(sched)) {
      return HelpingFuture.invokeAnyInTask(this, tasks, Math.max(0L, unit.toNanos(timeout)));
    }
    HelpingFuture.requireNoNullTasks(tasks);
    return super.invokeAny(tasks, timeout, unit);
  }

  /**
   * As {@link #invokeAll(Collection)}, within {@code timeout}: the futures of tasks not done
   * when it elapses are cancelled (AbstractExecutorService's contract). From one of this
   * executor's tasks, a task no thread has started runs in place as in the untimed call (as
   * ForkJoinPool's timed join does): the call can end past the timeout by that run.
   *
   * @throws NullPointerException if tasks, any of its elements, or unit is null, checked before
   *     any task is queued: a call that throws it ran none of them
   * @throws java.util.concurrent.RejectedExecutionException if the executor is shut down
   */
  @Override
  public <T> List<Future<T>> invokeAll(
      Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
      throws InterruptedException {
    return HelpingFuture.invokeAll(this, tasks, timeout, unit);
  }

  /**
   * Stops accepting tasks; every task already accepted still runs, and the threads exit once
   * nothing is left. Delayed one-shot tasks still run when due and periodic ones are cancelled
   * (ScheduledThreadPoolExecutor's default policies). Does not wait: see {@link
   * #awaitTermination} and {@link #close}. Calling it again has no further effect.
   */
  @Override
  public void shutdown() {
    Lifecycle.shutdown(sched);
  }

  /**
   * Stops accepting tasks, interrupts the running ones, and returns every queued task that never
   * started. With a {@link Builder#taskDecorator taskDecorator}, these are the decorated
   * Runnables, as queued (ThreadPoolExecutor returns what it queued too); a task of {@code
   * submit} or {@code invokeAll} comes back as its future, whose {@code run()} runs it inside
   * its decoration.
   */
  @Override
  public List<Runnable> shutdownNow() {
    return Lifecycle.shutdownNow(sched);
  }

  /**
   * Whether {@link #shutdown}, {@link #shutdownNow} or {@link #close} has been called.
   *
   * @return true once the executor accepts no more tasks
   */
  @Override
  public boolean isShutdown() {
    return sched.runState >= Scheduler.SHUTDOWN;
  }

  /**
   * Whether the executor has terminated: shut down, every accepted task done, and every virtual
   * thread it carried terminated.
   *
   * @return true once the executor has terminated
   */
  @Override
  public boolean isTerminated() {
    return Lifecycle.isTerminated(sched);
  }

  /**
   * Waits until the executor has terminated (every task done, every worker exited or exiting with
   * nothing left to run) or the timeout elapses; it also joins the workers within what is left.
   *
   * @param timeout the longest time to wait
   * @param unit the unit of {@code timeout}
   * @return true if the executor terminated, false if the timeout elapsed first
   * @throws InterruptedException if interrupted while waiting
   * @throws NullPointerException if unit is null
   */
  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    Objects.requireNonNull(unit, "unit");
    return Lifecycle.awaitTermination(sched, timeout, unit);
  }

  /**
   * Shuts down and waits for termination; if interrupted while waiting, calls shutdownNow and
   * keeps waiting, then restores the interrupt status (ExecutorService.close's contract).
   *
   * @throws IllegalStateException if called from one of this executor's own tasks, which would
   *     wait for itself forever
   */
  @Override
  public void close() {
    if (current() == this) {
      throw new IllegalStateException(
          "close() called from a task of this executor: it would wait for itself");
    }
    Lifecycle.close(sched);
  }

  /**
   * The state and live counts, in ForkJoinPool's format with the executor's name and
   * ThreadPoolExecutor's completed count added: {@code dev.gmp.GmpExecutor@1b6d3586[Running,
   * name = app, parallelism = 2, size = 3, active = 1, running = 1, steals = 0, tasks = 0,
   * submissions = 4, completed = 10]}. As in ForkJoinPool: {@code size} the worker threads,
   * {@code active} those stealing or running a task (a blocked one too), {@code running} the
   * active ones not blocked, {@code tasks} queued in processors' local queues, {@code
   * submissions} in the global queue. One {@link #stats()} snapshot.
   *
   * @return a one-line description of this executor
   */
  @Override
  public String toString() {
    GmpStats st = stats();
    int running = st.spinningThreads() + st.runningTasks(); // as GmpExecutorMetrics's meters
    // parked virtual threads occupy no thread: not active
    int active = running + st.syscallTasks() + st.waitingTasks() - st.parkedVirtualThreads();
    String level = isTerminated() ? "Terminated"
        : sched.runState >= Scheduler.STOP ? "Terminating"
        : sched.runState >= Scheduler.SHUTDOWN ? "Shutting down"
        : "Running";
    return super.toString() + "[" + level
        + ", name = " + sched.config.name()
        + ", parallelism = " + st.parallelism()
        + ", size = " + st.threads()
        + ", active = " + active
        + ", running = " + running
        + ", steals = " + st.steals()
        + ", tasks = " + st.localQueueLength()
        + ", submissions = " + st.globalQueueLength()
        + ", completed = " + st.completedTasks() + "]";
  }

  /** Settings for a {@link GmpExecutor}; every setter validates and names a bad value. */
  public static final class Builder {
    // Package-private: Config.of reads them (cross-checks and defaults).
    /** 0: not set, follow the CPU count. */
    int parallelism;
    Boolean follow;
    IntSupplier cpus = Resize.RuntimeCpus.INSTANCE;
    int maxThreads = 10_000;
    int maxSpareThreads = 256;
    Duration timeSlice = Duration.ofMillis(10);
    Duration keepAlive = Duration.ofSeconds(60);
    String name;
    ThreadFactory threadFactory;
    Thread.UncaughtExceptionHandler handler;
    boolean jmx;
    UnaryOperator<Runnable> taskDecorator;
    boolean recordLatency;

    private Builder() {}

    /**
     * Processors (GOMAXPROCS), pinned: the executor will not follow the CPU count. Default:
     * {@code Runtime.availableProcessors()}, followed (see {@link #followAvailableProcessors}).
     *
     * @param n the number of processors, at least 1
     * @return this builder
     * @throws IllegalArgumentException if n &lt; 1 or n &gt; {@link #MAX_PARALLELISM}
     */
    public Builder parallelism(int n) {
      if (n < 1 || n > MAX_PARALLELISM) {
        throw new IllegalArgumentException(
            "parallelism must be between 1 and " + MAX_PARALLELISM + ", was " + n);
      }
      this.parallelism = n;
      return this;
    }

    /**
     * Go 1.25's container-aware GOMAXPROCS (default true): unless {@link #parallelism(int)} was
     * set, sysmon re-reads {@code Runtime.availableProcessors()} (cgroup limits, affinity) about
     * once a second while the executor has threads and resizes to it, capped at {@link
     * #maxThreads}. A {@link GmpExecutor#setParallelism} call pins the value; false keeps the
     * count read at build(). True with an explicit parallelism fails at build().
     *
     * @param follow whether to follow {@code Runtime.availableProcessors()}
     * @return this builder
     */
    public Builder followAvailableProcessors(boolean follow) {
      this.follow = follow;
      return this;
    }

    /** The CPU count to start with and to follow (a test seam; production never sets it). */
    Builder availableProcessors(IntSupplier cpus) {
      this.cpus = Objects.requireNonNull(cpus, "cpus");
      return this;
    }

    /**
     * Upper bound on worker threads, blocked ones included; default 10,000 (Go's limit).
     *
     * @param n the most worker threads alive at once, at least 1
     * @return this builder
     * @throws IllegalArgumentException if n &lt; 1
     */
    public Builder maxThreads(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("maxThreads must be >= 1, was " + n);
      }
      this.maxThreads = n;
      return this;
    }

    /**
     * The spare budget: how many threads may hold no processor while their task blocks or runs on
     * (a {@link GmpExecutor#blocking} call that handed its processor on, or a task sysmon took
     * the processor from because it blocked without saying so or ran past its time slice).
     * Every hand-off draws on it, so the executor never has more than {@code parallelism +
     * maxSpareThreads} threads; past it a blocking call keeps its processor (parallelism
     * degrades, threads do not grow) until a spare frees up. Short calls also keep it while many
     * are in flight and threads wait for a CPU (more would only wait too). Default 256
     * (ForkJoinPool's common-pool spare limit); 0 means no hand-off at all. Each worker thread
     * that has run a task holds about 64 KB of heap until it exits ({@link #keepAlive}): size the
     * heap for a budget in the thousands.
     *
     * @param n the spare budget, at least 0
     * @return this builder
     * @throws IllegalArgumentException if n &lt; 0
     */
    public Builder maxSpareThreads(int n) {
      if (n < 0) {
        throw new IllegalArgumentException("maxSpareThreads must be >= 0, was " + n);
      }
      this.maxSpareThreads = n;
      return this;
    }

    /**
     * Go's forcePreemptNS: how long one processor may go without scheduling; default 10 ms.
     *
     * @param d the time slice, positive; one of decades or more (such as {@code
     *     ChronoUnit.FOREVER.getDuration()}) means no slice
     * @return this builder
     * @throws NullPointerException if d is null
     * @throws IllegalArgumentException if d is zero or negative
     */
    public Builder timeSlice(Duration d) {
      Objects.requireNonNull(d, "timeSlice");
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("timeSlice must be > 0, was " + d);
      }
      this.timeSlice = d;
      return this;
    }

    /**
     * How long an idle worker thread waits before it exits (beyond what the Ps need); default 60
     * s.
     *
     * @param d the keep-alive time, positive; one too long to count in nanoseconds (such as
     *     {@code ChronoUnit.FOREVER.getDuration()}) means forever
     * @return this builder
     * @throws NullPointerException if d is null
     * @throws IllegalArgumentException if d is zero or negative
     */
    public Builder keepAlive(Duration d) {
      Objects.requireNonNull(d, "keepAlive");
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("keepAlive must be > 0, was " + d);
      }
      this.keepAlive = d;
      return this;
    }

    /**
     * The executor's name: in JMX, JFR, {@link #dump()}, its monitor thread's name and, with the
     * default thread factory, its threads' names ({@code name-m1}, ...). The default factory's
     * threads are daemons that inherit no inheritable thread-locals from whichever thread makes
     * them start, and carry the context class loader of the thread that calls {@link #build()}.
     * With a {@link #threadFactory}, that factory names the worker threads. Default: {@code
     * gmp-N}, a new N for each executor built without a name (with {@link #jmx}, one no
     * registered executor has).
     *
     * @param name the prefix, not blank
     * @return this builder
     * @throws NullPointerException if name is null
     * @throws IllegalArgumentException if name is blank
     */
    public Builder name(String name) {
      Objects.requireNonNull(name, "name");
      if (name.isBlank()) {
        throw new IllegalArgumentException("name must not be blank, was '" + name + "'");
      }
      this.name = name;
      return this;
    }

    /**
     * Where worker threads come from; they are named by the factory, not by {@link #name}.
     *
     * @param factory makes every worker thread
     * @return this builder
     * @throws NullPointerException if factory is null
     */
    public Builder threadFactory(ThreadFactory factory) {
      this.threadFactory = Objects.requireNonNull(factory, "threadFactory");
      return this;
    }

    /**
     * Receives exceptions thrown by tasks given to execute (default: the worker thread's
     * handler), and gmp's own trouble: no worker thread could be started, a listener threw,
     * work stalled (default: a warning on the {@code dev.gmp.GmpExecutor} {@link
     * System.Logger}). Notices of the monitor thread arrive on a short-lived thread of gmp's, so
     * a slow handler does not hold the monitor up.
     *
     * @param h the handler
     * @return this builder
     * @throws NullPointerException if h is null
     */
    public Builder uncaughtExceptionHandler(Thread.UncaughtExceptionHandler h) {
      this.handler = Objects.requireNonNull(h, "uncaughtExceptionHandler");
      return this;
    }

    /**
     * Whether build() registers a {@link GmpExecutorMXBean} on the platform MBean server, under
     * {@code dev.gmp:type=GmpExecutor,name=<name>} (the {@link #name} given, else the generated
     * {@code gmp-N}); it is unregistered when the executor terminates. Default false.
     *
     * @param register whether to register the bean
     * @return this builder
     */
    public Builder jmx(boolean register) {
      this.jmx = register;
      return this;
    }

    /**
     * Whether {@link GmpExecutor#schedulingLatency} is recorded from the first task. Default
     * false: recording starts at the first demand for it (a {@code schedulingLatency()} call, an
     * {@link GmpExecutor#onSchedulingLatency} listener such as Micrometer's binder, a JMX read
     * of a latency attribute, a JFR recording of {@code dev.gmp.ExecutorStats}), since the
     * sampler costs every local spawn about a tenth of its time.
     *
     * @param record whether to sample scheduling latency from the first task
     * @return this builder
     */
    public Builder recordSchedulingLatency(boolean record) {
      this.recordLatency = record;
      return this;
    }

    /**
     * Wraps every accepted task exactly once, in the thread that calls {@link
     * GmpExecutor#execute} (outside or a task; submit, invokeAll and invokeAny go through it),
     * before it is queued: where to capture a context (MDC, OpenTelemetry, a ScopedValue) and
     * restore it around the task. What it returns is queued, run and returned by {@link
     * GmpExecutor#shutdownNow}. If it throws, that execute throws it and nothing is queued;
     * null is a NullPointerException. Default: none, at no cost.
     *
     * <p>For {@code submit} and {@code invokeAll} it is given the task's future, and what it
     * returns must call that future's {@code run()} on its own thread (a context-restoring
     * wrapper does): wherever the future runs, in place inside a task that waits for it too, it
     * runs inside that wrapper, once. A wrapper that returns without running it fails the future
     * with an {@code IllegalStateException}.
     *
     * @param decorator wraps each task
     * @return this builder
     * @throws NullPointerException if decorator is null
     */
    public Builder taskDecorator(UnaryOperator<Runnable> decorator) {
      this.taskDecorator = Objects.requireNonNull(decorator, "taskDecorator");
      return this;
    }

    /**
     * A new executor with these settings. It starts no thread until its first task.
     *
     * @return the new executor
     * @throws IllegalArgumentException if maxThreads &lt; an explicit parallelism (the CPU
     *     count, when parallelism is not set, is capped at maxThreads), both name and
     *     threadFactory were set, or both parallelism and followAvailableProcessors(true)
     * @throws IllegalStateException with {@code jmx(true)}, if an MBean of that name is already
     *     registered (an executor of the same name that has not terminated); no executor is made
     */
    public GmpExecutor build() {
      GmpExecutor ex = new GmpExecutor(config());
      if (ex.sched.config.jmx()) {
        Jmx.register(ex.sched); // on failure it shuts the (threadless) scheduler down
      }
      return ex;
    }

    /** The validated settings (package-private: tests build schedulers from them). */
    Config config() {
      return Config.of(this);
    }
  }
}
