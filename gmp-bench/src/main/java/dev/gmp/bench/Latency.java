package dev.gmp.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Submit-to-start latency and CPU cost of empty tasks submitted from outside (the benchmark
 * thread), recorded per task into an HdrHistogram: latency = System.nanoTime() at the task's
 * start minus System.nanoTime() just before execute().
 *
 * <ul>
 *   <li>{@code mode=steady}: one task every {@link #INTERVAL_NS} (50 us), 20 tasks per operation
 *       (the pacing spins: 50 us is below what a timed park can hit).
 *   <li>{@code mode=burst}: an idle gap of {@link #GAP_NS} (1 ms, workers go back to sleep), then
 *       a burst of {@link #BURST} tasks, one every 50 us: the first of each burst measures wake-up
 *       from idle, the rest a warm executor.
 * </ul>
 *
 * Secondary results, per iteration: p50/p90/p99/p999/max latency in microseconds, and CPU per
 * task in microseconds over whole operations, gaps included: {@code cpuUsPerTask} from
 * com.sun.management.OperatingSystemMXBean#getProcessCpuTime (the whole JVM; 10 ms ticks on Linux,
 * so only the iteration's sum means anything) and {@code threadCpuUsPerTask} from the Java
 * threads' own CPU clocks (ns). Both include the benchmark thread's submit and pacing cost (the
 * same for every executor, and it spins between steady submissions) and whatever the executor
 * burns spinning or waking while idle. The primary score (time per operation) is only pacing.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(3)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class Latency {
  static final long INTERVAL_NS = 50_000;
  static final int WINDOW = 20;
  static final int BURST = 10;
  static final long GAP_NS = 1_000_000;

  @Param({"gmp", "fjp", "fjpAsync", "tpe", "vthread"})
  public String executor;

  @Param({"1", "2"})
  public int parallelism;

  @Param({"steady", "burst"})
  public String mode;

  ExecutorService exec;
  boolean burst;
  final long[] submitted = new long[Math.max(WINDOW, BURST)];
  final long[] started = new long[Math.max(WINDOW, BURST)];

  @Setup(Level.Trial)
  public void setUp() {
    if (!mode.equals("steady") && !mode.equals("burst")) {
      throw new IllegalArgumentException("mode must be steady or burst, was " + mode);
    }
    burst = mode.equals("burst");
    exec = Execs.create(executor, parallelism);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    Execs.shutdown(exec);
  }

  /** Latency percentiles and CPU per task of one iteration (JMH secondary results). */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Stats {
    final Histogram hist = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
    long tasks;
    long cpuStart;
    CpuClock.ThreadSnapshot threads;

    @Setup(Level.Iteration)
    public void reset() {
      hist.reset();
      tasks = 0;
      cpuStart = CpuClock.process();
      threads = new CpuClock.ThreadSnapshot();
    }

    public double p50Us() {
      return hist.getValueAtPercentile(50) / 1000.0;
    }

    public double p90Us() {
      return hist.getValueAtPercentile(90) / 1000.0;
    }

    public double p99Us() {
      return hist.getValueAtPercentile(99) / 1000.0;
    }

    public double p999Us() {
      return hist.getValueAtPercentile(99.9) / 1000.0;
    }

    public double maxUs() {
      return hist.getMaxValue() / 1000.0;
    }

    /** Process CPU (getProcessCpuTime, 10 ms ticks) per task over the iteration. */
    public double cpuUsPerTask() {
      return tasks == 0 ? 0 : (CpuClock.process() - cpuStart) / 1000.0 / tasks;
    }

    /** CPU of all Java threads (ns clocks) per task over the iteration. */
    public double threadCpuUsPerTask() {
      return tasks == 0 ? 0 : threads.elapsed() / 1000.0 / tasks;
    }
  }

  private final class Probe implements Runnable {
    final int slot;
    final AtomicInteger rem;
    final CountDownLatch done;

    Probe(int slot, AtomicInteger rem, CountDownLatch done) {
      this.slot = slot;
      this.rem = rem;
      this.done = done;
    }

    @Override
    public void run() {
      started[slot] = System.nanoTime();
      if (rem.decrementAndGet() == 0) {
        done.countDown();
      }
    }
  }

  @Benchmark
  public void submitToStart(Stats stats) {
    int n = burst ? BURST : WINDOW;
    if (burst) {
      LockSupport.parkNanos(GAP_NS);
    }
    CountDownLatch done = new CountDownLatch(1);
    AtomicInteger rem = new AtomicInteger(n);
    long next = System.nanoTime();
    for (int i = 0; i < n; i++) {
      while (System.nanoTime() - next < 0) {
        Thread.onSpinWait();
      }
      Probe p = new Probe(i, rem, done);
      submitted[i] = System.nanoTime();
      exec.execute(p);
      next += INTERVAL_NS;
    }
    Util.await(done, "latency probes");
    for (int i = 0; i < n; i++) {
      stats.hist.recordValue(Math.max(0, started[i] - submitted[i]));
    }
    stats.tasks += n;
  }
}
