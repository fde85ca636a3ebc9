package dev.gmp;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A work-stealing {@link java.util.concurrent.ExecutorService} built on Go's GMP scheduler:
 * {@code parallelism} processors (Ps) each with a 256-slot lock-free run queue and a
 * {@code runnext} slot, worker threads (Ms) that spin, steal and park as Go's do, a locked global
 * queue, and a sysmon thread that hands processors away from blocked workers.
 *
 * <p>{@link #execute} from one of this executor's own tasks is Go's {@code go} statement: the
 * new task takes the processor's runnext slot and runs next, on the same thread, inheriting the
 * time slice. From any other thread it goes to the global queue. See README.md and
 * docs/design.md.
 */
public final class GmpExecutor extends AbstractExecutorService {
  private static final AtomicInteger POOL_IDS = new AtomicInteger();

  final Sched sched;

  private GmpExecutor(Config config, boolean startSysmon) {
    this.sched = new Sched(this, config, startSysmon);
  }

  /** An executor with {@code Runtime.availableProcessors()} processors and default settings. */
  public static GmpExecutor create() {
    return builder().build();
  }

  /**
   * An executor with {@code parallelism} processors.
   *
   * @throws IllegalArgumentException if parallelism &lt; 1
   */
  public static GmpExecutor create(int parallelism) {
    return builder().parallelism(parallelism).build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The executor whose worker is running the calling thread, or null. */
  public static GmpExecutor current() {
    M m = M.current();
    return m == null ? null : m.sched.executor;
  }

  /**
   * Runs {@code work}, a call that may block (I/O, a lock, {@code Future.get}), telling the
   * scheduler so: Go's entersyscall/exitsyscall. On a gmp worker, if other tasks are already
   * waiting the processor is handed to another thread at once (Go's entersyscallblock);
   * otherwise it stays attached while the call is short, and is handed over if the call outlasts
   * a sysmon tick while work arrives. Either way parallelism is kept. On return the task
   * continues once it has a processor again. Outside a gmp worker this just calls {@code work}.
   *
   * @return what {@code work} returns
   * @throws Exception whatever {@code work} throws, unchanged
   */
  public static <T> T blocking(Callable<T> work) throws Exception {
    return Syscall.blocking(work);
  }

  /** Go's GOMAXPROCS: how many tasks may run at once. */
  public int parallelism() {
    return sched.gomaxprocs;
  }

  /**
   * Changes the number of processors while tasks run. Shrinking retires the highest-numbered
   * processors: their queued tasks move to the global queue and a task running on one finishes
   * on its thread before that thread looks for another processor. Nothing is lost or run twice.
   *
   * @throws IllegalArgumentException if n &lt; 1 or n &gt; maxThreads
   */
  public void setParallelism(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("parallelism must be >= 1, was " + n);
    }
    if (n > sched.config.maxThreads()) {
      throw new IllegalArgumentException(
          "parallelism must be <= maxThreads (" + sched.config.maxThreads() + "), was " + n);
    }
    sched.setParallelism(n);
  }

  /** A snapshot of the scheduler's counters. */
  public GmpStats stats() {
    return sched.stats();
  }

  @Override
  public void execute(Runnable task) {
    if (task == null) {
      throw new NullPointerException("task");
    }
    Sched s = sched;
    M m = s.currentM();
    if (m != null) {
      P pp = m.p;
      G cur = m.curg();
      // Local only while this M really runs a task on a live P; inside blocking() or after a
      // retake the P may belong to someone else, so go through the global queue.
      if (pp != null && cur != null && cur.status() == G.Grunning && pp.status() == P.Prunning) {
        s.submitLocal(m, pp, task);
        return;
      }
    }
    s.submitExternal(task);
  }

  @Override
  public void shutdown() {
    sched.shutdown();
  }

  @Override
  public List<Runnable> shutdownNow() {
    return sched.shutdownNow();
  }

  @Override
  public boolean isShutdown() {
    return sched.runState >= Sched.SHUTDOWN;
  }

  @Override
  public boolean isTerminated() {
    return sched.runState == Sched.TERMINATED;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    if (!sched.terminated.await(timeout, unit)) {
      return false;
    }
    // Terminated: every M has left its loop. Wait (within the timeout) for the threads to die
    // too, so that "terminated" also means "no thread left behind".
    Thread self = Thread.currentThread();
    for (Thread t : sched.threads) {
      if (t != self) {
        long left = deadline - System.nanoTime();
        if (left > 0) {
          TimeUnit.NANOSECONDS.timedJoin(t, left);
        }
      }
    }
    Thread sm = sched.sysmon.thread();
    long left = deadline - System.nanoTime();
    if (sm != self && left > 0) {
      TimeUnit.NANOSECONDS.timedJoin(sm, left);
    }
    return true;
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
    boolean terminated = isTerminated();
    if (!terminated) {
      shutdown();
      boolean interrupted = false;
      while (!terminated) {
        try {
          terminated = awaitTermination(1L, TimeUnit.DAYS);
        } catch (InterruptedException e) {
          if (!interrupted) {
            shutdownNow();
            interrupted = true;
          }
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public String toString() {
    String state =
        switch (sched.runState) {
          case Sched.RUNNING -> "running";
          case Sched.SHUTDOWN -> "shutting down";
          case Sched.STOP -> "stopping";
          case Sched.TIDYING -> "terminating";
          default -> "terminated";
        };
    return "GmpExecutor[" + sched.config.name() + ", " + state + ", parallelism=" + sched.gomaxprocs
        + "]";
  }

  /** Settings for a {@link GmpExecutor}; every setter validates and names a bad value. */
  public static final class Builder {
    private int parallelism = Runtime.getRuntime().availableProcessors();
    private int maxThreads = 10_000;
    private int maxSpareThreads = 256;
    private Duration timeSlice = Duration.ofMillis(10);
    private Duration keepAlive = Duration.ofSeconds(60);
    private String name;
    private ThreadFactory threadFactory;
    private Thread.UncaughtExceptionHandler handler;

    private Builder() {}

    /** Processors (GOMAXPROCS); default availableProcessors(). */
    public Builder parallelism(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("parallelism must be >= 1, was " + n);
      }
      this.parallelism = n;
      return this;
    }

    /** Upper bound on worker threads, blocked ones included; default 10,000 (Go's limit). */
    public Builder maxThreads(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("maxThreads must be >= 1, was " + n);
      }
      this.maxThreads = n;
      return this;
    }

    /**
     * Upper bound on threads that sysmon lets run a task without a processor after taking the
     * processor from a task that blocked without {@link #blocking} or ran past its time slice;
     * default 256 (ForkJoinPool's common-pool spare limit). 0 disables such retakes.
     */
    public Builder maxSpareThreads(int n) {
      if (n < 0) {
        throw new IllegalArgumentException("maxSpareThreads must be >= 0, was " + n);
      }
      this.maxSpareThreads = n;
      return this;
    }

    /** Go's forcePreemptNS: how long one processor may go without scheduling; default 10 ms. */
    public Builder timeSlice(Duration d) {
      Objects.requireNonNull(d, "timeSlice");
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("timeSlice must be > 0, was " + d);
      }
      this.timeSlice = d;
      return this;
    }

    /** How long an idle worker thread waits before it exits (beyond what the Ps need). */
    public Builder keepAlive(Duration d) {
      Objects.requireNonNull(d, "keepAlive");
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("keepAlive must be > 0, was " + d);
      }
      this.keepAlive = d;
      return this;
    }

    /** Thread name prefix for the default thread factory (threads are daemons). */
    public Builder name(String name) {
      Objects.requireNonNull(name, "name");
      if (name.isBlank()) {
        throw new IllegalArgumentException("name must not be blank, was '" + name + "'");
      }
      this.name = name;
      return this;
    }

    /** Where worker threads come from; exclusive with {@link #name}. */
    public Builder threadFactory(ThreadFactory factory) {
      this.threadFactory = Objects.requireNonNull(factory, "threadFactory");
      return this;
    }

    /** Receives exceptions thrown by tasks given to execute; default: the thread's handler. */
    public Builder uncaughtExceptionHandler(Thread.UncaughtExceptionHandler h) {
      this.handler = Objects.requireNonNull(h, "uncaughtExceptionHandler");
      return this;
    }

    /** Test seam: no sysmon thread, to prove a path works without sysmon's help. */
    boolean sysmon = true;

    public GmpExecutor build() {
      if (maxThreads < parallelism) {
        throw new IllegalArgumentException(
            "maxThreads (" + maxThreads + ") must be >= parallelism (" + parallelism + ")");
      }
      if (name != null && threadFactory != null) {
        throw new IllegalArgumentException(
            "name(\"" + name + "\") and threadFactory(...) are exclusive: name only applies to"
                + " the default thread factory");
      }
      String n = name != null ? name : "gmp-" + POOL_IDS.incrementAndGet();
      ThreadFactory tf = threadFactory != null ? threadFactory : defaultFactory(n);
      return new GmpExecutor(
          new Config(
              parallelism,
              maxThreads,
              maxSpareThreads,
              timeSlice.toNanos(),
              keepAlive.toNanos(),
              n,
              tf,
              handler),
          sysmon);
    }

    private static ThreadFactory defaultFactory(String prefix) {
      AtomicInteger ids = new AtomicInteger();
      return r -> {
        Thread t = new Thread(r, prefix + "-m" + ids.incrementAndGet());
        t.setDaemon(true);
        return t;
      };
    }
  }
}
