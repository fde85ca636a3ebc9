package dev.gmp.bench;

import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
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
 * Tokio's remote_spawn/threads/N: N outside threads (kept alive for the trial, released together
 * by a barrier) spawn 12,800 empty tasks in total: contention on the executor's entry point
 * (gmp's locked global queue, ForkJoinPool's hashed submission queues, ThreadPoolExecutor's
 * LinkedBlockingQueue).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(3)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class TokioRemoteSpawn {
  static final int TOTAL = 12_800;

  @Param({"gmp", "fjp", "fjpAsync", "tpe", "vthread"})
  public String executor;

  @Param({"1", "2"})
  public int parallelism;

  @Param({"1", "2", "4", "8"})
  public int submitters;

  ExecutorService exec;
  CyclicBarrier start;
  Thread[] threads;
  volatile boolean running;
  volatile CountDownLatch done;
  final AtomicInteger rem = new AtomicInteger();
  final Runnable leaf =
      () -> {
        if (rem.decrementAndGet() == 0) {
          done.countDown();
        }
      };

  @Setup(Level.Trial)
  public void setUp() {
    exec = Execs.create(executor, parallelism);
    start = new CyclicBarrier(submitters + 1);
    running = true;
    threads = new Thread[submitters];
    int share = TOTAL / submitters;
    for (int i = 0; i < submitters; i++) {
      threads[i] =
          new Thread(
              () -> {
                try {
                  while (true) {
                    start.await();
                    if (!running) {
                      return;
                    }
                    for (int k = 0; k < share; k++) {
                      exec.execute(leaf);
                    }
                  }
                } catch (InterruptedException | BrokenBarrierException e) {
                  // tear-down
                }
              },
              "remote-submitter-" + i);
      threads[i].setDaemon(true);
      threads[i].start();
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    running = false;
    start.await(10, TimeUnit.SECONDS);
    for (Thread t : threads) {
      t.join(10_000);
    }
    Execs.shutdown(exec);
  }

  @Benchmark
  public void remote_spawn() throws Exception {
    CountDownLatch d = new CountDownLatch(1);
    done = d;
    rem.set((TOTAL / submitters) * submitters);
    try {
      start.await(Util.OP_TIMEOUT_S, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException("remote submitters did not start", e);
    }
    Util.await(d, "remote_spawn");
  }
}
