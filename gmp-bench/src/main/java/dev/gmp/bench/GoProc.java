package dev.gmp.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Ports of Go's runtime/proc_test.go benchmarks. Go reports ns per goroutine (b.N goroutines);
 * here one operation is a fixed batch of N = 10,000 tasks, so divide by N for a per-task figure.
 * The executors are compared on the same operation. Matmult is in {@link GoMatmult}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(3)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class GoProc extends ExecutorBenchmark {
  static final int N = 10_000;

  // ------------------------------------------------------------- CreateGoroutines*

  /** One chain: f(n) spawns f(n-1) (Go's benchmarkCreateGoroutines with procs = 1). */
  @Benchmark
  public void CreateGoroutines() {
    createGoroutines(1);
  }

  /** parallelism chains of N / parallelism each, started together. */
  @Benchmark
  public void CreateGoroutinesParallel() {
    createGoroutines(parallelism);
  }

  private void createGoroutines(int procs) {
    CountDownLatch done = new CountDownLatch(procs);
    for (int i = 0; i < procs; i++) {
      exec.execute(new TokioRt.Chain(exec, done, N / procs));
    }
    Util.await(done, "CreateGoroutines");
  }

  /**
   * Go's CreateGoroutinesSingle: all workers are first warmed up (each spins until all have
   * started, then 1 ms more: Go's warmupScheduler, run before each operation and not timed),
   * then one task spawns N tasks: the others must steal them.
   */
  @Benchmark
  public void CreateGoroutinesSingle(Warm warm) {
    Workloads.spawnLocal(exec, N); // one task spawns N: the same body as the short-run workload
  }

  /** Go's warmupScheduler(GOMAXPROCS), before every CreateGoroutinesSingle operation. */
  @State(Scope.Thread)
  public static class Warm {
    @Setup(Level.Invocation)
    public void warm(GoProc bench) {
      int n = bench.parallelism;
      CountDownLatch done = new CountDownLatch(n);
      AtomicInteger count = new AtomicInteger();
      for (int i = 0; i < n; i++) {
        bench.exec.execute(
            () -> {
              count.incrementAndGet();
              long give = System.nanoTime() + 100_000_000L; // never spin forever
              while (count.get() < n && System.nanoTime() - give < 0) {
                Thread.onSpinWait();
              }
              Util.stall(1_000_000);
              done.countDown();
            });
      }
      Util.await(done, "warmupScheduler");
    }
  }
}
