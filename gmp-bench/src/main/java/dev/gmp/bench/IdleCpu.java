package dev.gmp.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * CPU used by an idle executor: wake every worker with a burst of 1,000 tasks, let it settle for
 * 200 ms, then measure the CPU time of every Java thread (their own ns clocks, see {@link
 * CpuClock}) over one second in which the benchmark thread sleeps. {@code executor=none} is the
 * baseline (JMH's own threads alone). Secondary result: {@code idleCpuPctOfCore} (100 = one core
 * busy the whole second); the process CPU clock ticks in 10 ms steps, too coarse for the 0.1%
 * target, so it is not used here. One operation takes ~1.2 s.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(3)
@Warmup(iterations = 1, time = 1)
@Measurement(iterations = 3, time = 1)
public class IdleCpu {
  static final long WINDOW_NS = 1_000_000_000L;

  @Param({"gmp", "fjp", "fjpAsync", "tpe", "vthread", "none"})
  public String executor;

  @Param({"1", "2"})
  public int parallelism;

  ExecutorService exec;

  @Setup(Level.Trial)
  public void setUp() {
    exec = Execs.createOrNone(executor, parallelism);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    Execs.shutdown(exec);
  }

  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Cpu {
    long cpuNs;
    long wallNs;

    @Setup(Level.Iteration)
    public void reset() {
      cpuNs = 0;
      wallNs = 0;
    }

    public double idleCpuPctOfCore() {
      return wallNs == 0 ? 0 : 100.0 * cpuNs / wallNs;
    }
  }

  @Benchmark
  public void idle(Cpu cpu) {
    if (exec != null) {
      int n = 1_000;
      CountDownLatch done = new CountDownLatch(1);
      AtomicInteger rem = new AtomicInteger(n);
      for (int i = 0; i < n; i++) {
        exec.execute(
            () -> {
              if (rem.decrementAndGet() == 0) {
                done.countDown();
              }
            });
      }
      Util.await(done, "idle warm-up burst");
    }
    Util.sleepNanos(200_000_000L);
    CpuClock.ThreadSnapshot c0 = new CpuClock.ThreadSnapshot();
    long t0 = System.nanoTime();
    Util.sleepNanos(WINDOW_NS);
    cpu.cpuNs += c0.elapsed();
    cpu.wallNs += System.nanoTime() - t0;
  }
}
