package dev.gmp.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
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
 * Go's BenchmarkPingPongHog, run at parallelism 1 (GOMAXPROCS=1): a CPU hog competes with a
 * ping-pong pair on the only processor. Go preempts the hog every 10 ms; Java cannot preempt a
 * running task, so the hog here is cooperative: it spins {@link #HOG_SLICE_NS} (100 us), then
 * re-submits itself (Gosched), until the ping-pong ends. The pair passes the ball 1,000 times,
 * each side submitting the other (Go's channel hand-off readies the partner into runnext).
 * Both are spawned by one root task (Go spawns them from the benchmark goroutine), hog first.
 * The secondary result {@code hogSlicesPerOp} counts hog slices per operation: the hog's share.
 * An executor that never lets the pair run while the hog re-submits itself (ForkJoinPool does
 * not look at outside work while its own deque has tasks) would hang: the hog gives up after
 * {@link Starvation#LIMIT_NS}, and {@code starvedShare} counts the operations where it had to.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(3)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class GoPingPongHog {
  static final int ROUNDS = 1_000;
  static final long HOG_SLICE_NS = 100_000;

  @Param({"gmp", "fjp", "fjpAsync", "tpe", "vthread"})
  public String executor;

  /** Go runs it at GOMAXPROCS=1; other values can be given with -p. */
  @Param({"1"})
  public int parallelism;

  ExecutorService exec;
  volatile boolean stop;
  long slices;

  @Setup(Level.Trial)
  public void setUp() {
    exec = Execs.create(executor, parallelism);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    Execs.shutdown(exec);
  }

  /** Hog slices per operation, averaged over the iteration. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class HogShare {
    long ops;
    long hogSlices;
    long starved;

    @Setup(Level.Iteration)
    public void reset() {
      ops = 0;
      hogSlices = 0;
      starved = 0;
    }

    public double hogSlicesPerOp() {
      return ops == 0 ? 0 : (double) hogSlices / ops;
    }

    public double starvedShare() {
      return ops == 0 ? 0 : (double) starved / ops;
    }
  }

  @Benchmark
  public void PingPongHog(HogShare share) {
    CountDownLatch done = new CountDownLatch(2);
    stop = false;
    long[] hogCount = new long[2];
    long deadline = System.nanoTime() + Starvation.LIMIT_NS;
    ExecutorService ex = exec;
    Runnable hog =
        new Runnable() {
          @Override
          public void run() {
            if (stop) {
              done.countDown();
              return;
            }
            if (System.nanoTime() - deadline > 0) {
              hogCount[1] = 1; // the pair never got in: give up so the run can end
              done.countDown();
              return;
            }
            hogCount[0]++;
            Util.stall(HOG_SLICE_NS);
            ex.execute(this);
          }
        };
    Ball ball = new Ball(ex, done, 2 * ROUNDS);
    ex.execute(
        () -> {
          ex.execute(hog);
          ex.execute(ball);
        });
    Util.await(done, "PingPongHog");
    share.ops++;
    share.hogSlices += hogCount[0];
    share.starved += hogCount[1];
  }

  private final class Ball implements Runnable {
    private final ExecutorService ex;
    private final CountDownLatch done;
    private int left;

    Ball(ExecutorService ex, CountDownLatch done, int left) {
      this.ex = ex;
      this.done = done;
      this.left = left;
    }

    @Override
    public void run() {
      if (--left == 0) {
        stop = true;
        done.countDown();
      } else {
        ex.execute(this); // the partner's turn: a channel hand-off readies it
      }
    }
  }
}
