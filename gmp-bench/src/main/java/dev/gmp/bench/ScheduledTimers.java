package dev.gmp.bench;

import dev.gmp.GmpExecutor;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Timers on gmp (per-P heaps, no timer thread), ForkJoinPool (JDK 25: its DelayScheduler thread)
 * and ScheduledThreadPoolExecutor (one locked DelayedWorkQueue), same workloads, same run:
 *
 * <ul>
 *   <li>{@code scheduleCancel}: 4 tasks on the executor each schedule and cancel 50,000 timers
 *       (1 s delay): the "timeout per call, cancelled when the call ends" pattern. ns per timer.
 *   <li>{@code lateness}: a chain of 1 ms timers, each set by the task the previous one ran;
 *       secondary results p50/p99 of (start - deadline) in microseconds.
 *   <li>{@code timeoutPerRequest}: 20,000 tiny tasks spawned by one task; with {@code timeout=true}
 *       each schedules a 10 s timeout first and cancels it at its end. Compare the two rows of one
 *       executor for the cost the timeouts add to the task path.
 *   <li>{@code pendingMemory}: 1,000,000 pending 1 h timers set from one task; secondary result
 *       {@code bytesPerTimer} (heap used after GC, before vs after, divided by the count).
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(3)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ScheduledTimers {
  static final int CANCEL_TASKS = 4;
  static final int CANCEL_PER_TASK = 50_000;
  static final int CHAIN = 20;
  static final int REQUESTS = 20_000;
  static final int PENDING = 1_000_000;

  @Param({"gmp", "fjp", "stpe"})
  public String executor;

  @Param({"2"})
  public int parallelism;

  ScheduledExecutorService exec;

  @Setup(Level.Trial)
  public void setUp() {
    exec = switch (executor) {
      case "gmp" -> GmpExecutor.create(parallelism);
      case "fjp" -> fjp(parallelism);
      case "stpe" -> new ScheduledThreadPoolExecutor(parallelism);
      default -> throw new IllegalArgumentException(
          "unknown executor '" + executor + "': use gmp, fjp or stpe");
    };
  }

  /** ForkJoinPool is a ScheduledExecutorService since JDK 25; gmp-bench compiles for 21. */
  private static ScheduledExecutorService fjp(int p) {
    Object pool = new ForkJoinPool(p);
    if (!(pool instanceof ScheduledExecutorService ses)) {
      throw new IllegalStateException("ForkJoinPool schedules only on JDK 25+, this is "
          + Runtime.version());
    }
    return ses;
  }

  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    exec.shutdownNow();
    exec.awaitTermination(10, TimeUnit.SECONDS);
  }

  static final Runnable NOOP = () -> {};

  @Benchmark
  @OperationsPerInvocation(CANCEL_TASKS * CANCEL_PER_TASK)
  public void scheduleCancel() {
    Workloads.scheduleCancel(exec, CANCEL_TASKS, CANCEL_PER_TASK);
  }

  /** Lateness percentiles of one iteration (JMH secondary results). */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Late {
    final Histogram hist = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);

    @Setup(Level.Iteration)
    public void reset() {
      hist.reset();
    }

    public double p50Us() {
      return hist.getValueAtPercentile(50) / 1000.0;
    }

    public double p99Us() {
      return hist.getValueAtPercentile(99) / 1000.0;
    }

    public double maxUs() {
      return hist.getMaxValue() / 1000.0;
    }
  }

  private final class Link implements Runnable {
    final long deadline;
    final int left;
    final long[] late;
    final CountDownLatch done;

    Link(long deadline, int left, long[] late, CountDownLatch done) {
      this.deadline = deadline;
      this.left = left;
      this.late = late;
      this.done = done;
    }

    @Override
    public void run() {
      long now = System.nanoTime();
      late[CHAIN - left] = now - deadline;
      if (left == 1) {
        done.countDown();
        return;
      }
      schedule(now, left - 1, late, done);
    }
  }

  private void schedule(long now, int left, long[] late, CountDownLatch done) {
    long delay = TimeUnit.MILLISECONDS.toNanos(1);
    exec.schedule(new Link(now + delay, left, late, done), delay, TimeUnit.NANOSECONDS);
  }

  @Benchmark
  @OperationsPerInvocation(CHAIN)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public void lateness(Late stats) {
    long[] late = new long[CHAIN];
    CountDownLatch done = new CountDownLatch(1);
    exec.execute(() -> schedule(System.nanoTime(), CHAIN, late, done)); // set from a running task
    Util.await(done, "timer chain");
    for (long l : late) {
      stats.hist.recordValue(Math.max(0, l));
    }
  }

  /** Whether each request sets a timeout (only timeoutPerRequest runs with both values). */
  @State(Scope.Thread)
  public static class Requests {
    @Param({"false", "true"})
    public boolean timeout;
  }

  @Benchmark
  @OperationsPerInvocation(REQUESTS)
  public void timeoutPerRequest(Requests r) {
    CountDownLatch done = new CountDownLatch(1);
    AtomicInteger left = new AtomicInteger(REQUESTS);
    boolean withTimeout = r.timeout;
    exec.execute(() -> {
      for (int i = 0; i < REQUESTS; i++) {
        exec.execute(() -> {
          ScheduledFuture<?> t = withTimeout ? exec.schedule(NOOP, 10, TimeUnit.SECONDS) : null;
          Blackhole.consumeCPU(64);
          if (t != null) {
            t.cancel(false);
          }
          if (left.decrementAndGet() == 0) {
            done.countDown();
          }
        });
      }
    });
    Util.await(done, "requests");
  }

  /** Memory per pending timer (JMH secondary result). */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Memory {
    double bytes;

    public double bytesPerTimer() {
      return bytes;
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  @Warmup(iterations = 1)
  @Measurement(iterations = 3)
  public void pendingMemory(Memory m) throws Exception {
    long before = usedAfterGc();
    List<ScheduledFuture<?>> held = exec.submit(() -> {
      List<ScheduledFuture<?>> fs = new ArrayList<>(PENDING);
      for (int i = 0; i < PENDING; i++) {
        fs.add(exec.schedule(NOOP, 1, TimeUnit.HOURS));
      }
      return fs;
    }).get();
    long listBytes = 16L + 4L * PENDING; // the ArrayList of futures held here (compressed oops)
    m.bytes = (usedAfterGc() - before - listBytes) / (double) PENDING;
    for (ScheduledFuture<?> f : held) {
      f.cancel(false);
    }
    held.clear();
    if (exec instanceof ScheduledThreadPoolExecutor stpe) {
      stpe.purge(); // STPE keeps cancelled tasks queued until their delay otherwise
    }
  }

  private static long usedAfterGc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
