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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Tokio's spawn_many_remote_busy2: 2 x parallelism self-respawning chains (each task stalls
 * 10 us, then spawns its successor and ends) run for the whole trial while the benchmark thread
 * spawns 1,000 empty tasks from outside and waits for them. The chains live in runnext / the LIFO
 * slot, so this measures whether outside work is starved by them (gmp's %61 global check, Tokio's
 * LIFO cap). An operation whose outside tasks are not done after 1 s is counted as starved
 * ({@link Starvation}): the load is stopped so they can run, then restarted.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(3)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class TokioBusy2 {
  static final int NUM_SPAWN = 1_000;

  @Param({"gmp", "fjp", "fjpAsync", "tpe", "vthread"})
  public String executor;

  @Param({"1", "2"})
  public int parallelism;

  ExecutorService exec;
  volatile boolean busy;
  CountDownLatch busyStopped;

  @Setup(Level.Trial)
  public void setUp() {
    exec = Execs.create(executor, parallelism);
    startLoad();
  }

  private void startLoad() {
    busy = true;
    int n = 2 * parallelism;
    busyStopped = new CountDownLatch(n);
    for (int i = 0; i < n; i++) {
      exec.execute(this::iter);
    }
  }

  private void iter() {
    exec.execute(
        () -> {
          if (busy) {
            Util.stall(TokioBusy1.STALL_NS);
            iter();
          } else {
            busyStopped.countDown();
          }
        });
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    stopLoad();
    Execs.shutdown(exec);
  }

  private void stopLoad() {
    busy = false;
    Util.await(busyStopped, "stopping the busy2 load");
  }

  @Benchmark
  public void spawn_many_remote_busy2(Starvation s) {
    CountDownLatch done = new CountDownLatch(1);
    AtomicInteger rem = new AtomicInteger(NUM_SPAWN);
    Runnable leaf =
        () -> {
          if (rem.decrementAndGet() == 0) {
            done.countDown();
          }
        };
    ExecutorService ex = exec;
    for (int i = 0; i < NUM_SPAWN; i++) {
      ex.execute(leaf);
    }
    s.ops++;
    try {
      if (!done.await(Starvation.LIMIT_NS, TimeUnit.NANOSECONDS)) {
        // Starved: the load never lets outside work in. Stop it, let the tasks run, restart.
        s.starved++;
        stopLoad();
        Util.await(done, "spawn_many_remote_busy2 after stopping the load");
        startLoad();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
