package dev.gmp.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Ports of Tokio's benches/rt_multi_threaded.rs (4 workers there; {@code parallelism} here),
 * same constants: NUM_SPAWN 10,000, 1,000 ping-pongs, 200 tasks x 1,000 yields, a chain of 1,000
 * spawns. One operation is one whole workload; the benchmark thread (Tokio's block_on caller)
 * waits on a latch that the last task counts down. Tasks are plain {@link Runnable}s written as
 * continuations: nothing ever blocks a worker.
 *
 * <p>"Yield" is {@code execute(this)} from inside the task: the only yield an ExecutorService
 * offers. On gmp that is a local submission (runnext), on ForkJoinPool a push on the worker's
 * deque, on ThreadPoolExecutor the shared queue's tail, on vthread a new virtual thread.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(3)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class TokioRt extends ExecutorBenchmark {
  static final int NUM_SPAWN = 10_000;
  static final int NUM_PINGS = 1_000;
  static final int YIELD_TASKS = 200;
  static final int NUM_YIELD = 1_000;
  static final int CHAIN = 1_000;

  /** One task (submitted from outside) spawns NUM_SPAWN tasks from inside the executor. */
  @Benchmark
  public void spawn_many_local() {
    Workloads.spawnLocal(exec, NUM_SPAWN);
  }

  /** The benchmark thread spawns NUM_SPAWN tasks from outside into an idle executor. */
  @Benchmark
  public void spawn_many_remote_idle() {
    Workloads.spawnRemote(exec, NUM_SPAWN);
  }

  /**
   * NUM_PINGS tasks each spawn a partner and exchange two oneshot messages with it: the partner
   * waits for tx1 and answers on tx2; the task sends tx1 and waits for tx2.
   */
  @Benchmark
  public void ping_pong() {
    CountDownLatch done = new CountDownLatch(1);
    AtomicInteger rem = new AtomicInteger(NUM_PINGS);
    ExecutorService ex = exec;
    Runnable pinger =
        () -> {
          Oneshot ch1 = new Oneshot();
          Oneshot ch2 = new Oneshot();
          ex.execute(() -> ch1.await(() -> ch2.send(ex)));
          ch1.send(ex);
          ch2.await(
              () -> {
                if (rem.decrementAndGet() == 0) {
                  done.countDown();
                }
              });
        };
    ex.execute(
        () -> {
          for (int i = 0; i < NUM_PINGS; i++) {
            ex.execute(pinger);
          }
        });
    Util.await(done, "ping_pong");
  }

  /** YIELD_TASKS tasks spawned from outside, each yielding NUM_YIELD times. */
  @Benchmark
  public void yield_many() {
    CountDownLatch done = new CountDownLatch(YIELD_TASKS);
    ExecutorService ex = exec;
    for (int i = 0; i < YIELD_TASKS; i++) {
      ex.execute(new Yielder(ex, done));
    }
    Util.await(done, "yield_many");
  }

  private static final class Yielder implements Runnable {
    private final ExecutorService ex;
    private final CountDownLatch done;
    private int left = NUM_YIELD;

    Yielder(ExecutorService ex, CountDownLatch done) {
      this.ex = ex;
      this.done = done;
    }

    @Override
    public void run() {
      if (left-- > 0) {
        ex.execute(this); // yield_now
      } else {
        done.countDown();
      }
    }
  }

  /** A chain of CHAIN tasks, each spawning the next (root submitted from outside). */
  @Benchmark
  public void chained_spawn() {
    Workloads.chains(exec, 1, CHAIN);
  }

  static final class Chain implements Runnable {
    private final ExecutorService ex;
    private final CountDownLatch done;
    private final int n;

    Chain(ExecutorService ex, CountDownLatch done, int n) {
      this.ex = ex;
      this.done = done;
      this.n = n;
    }

    @Override
    public void run() {
      if (n == 0) {
        done.countDown();
      } else {
        ex.execute(new Chain(ex, done, n - 1));
      }
    }
  }
}
