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
import org.openjdk.jmh.infra.Blackhole;

/**
 * A blocking mix: {@link #TASKS} tasks submitted from outside; every {@link #BLOCK_EVERY}th makes
 * a 1 ms blocking call (Thread.sleep), the rest burn {@link #CPU_TOKENS} Blackhole tokens (about
 * 20 us here). {@code blocking=plain} just blocks; {@code blocking=managed} tells the executor:
 * {@code GmpExecutor.blocking(...)} on gmp, {@code ForkJoinPool.managedBlock} on both
 * ForkJoinPools; ThreadPoolExecutor and virtual threads have no such call (a virtual thread
 * unmounts on sleep by itself), so both modes are the same for them.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(3)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class BlockingMix {
  static final int TASKS = 400;
  static final int BLOCK_EVERY = 10;
  static final long BLOCK_MS = 1;
  static final long CPU_TOKENS = 5_000;

  @Param({"gmp", "fjp", "fjpAsync", "tpe", "vthread"})
  public String executor;

  @Param({"1", "2"})
  public int parallelism;

  @Param({"plain", "managed"})
  public String blocking;

  ExecutorService exec;
  boolean managed;

  @Setup(Level.Trial)
  public void setUp() {
    if (!blocking.equals("plain") && !blocking.equals("managed")) {
      throw new IllegalArgumentException("blocking must be plain or managed, was " + blocking);
    }
    managed = blocking.equals("managed");
    exec = Execs.create(executor, parallelism);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    Execs.shutdown(exec);
  }

  @Benchmark
  public void blockingMix() {
    CountDownLatch done = new CountDownLatch(1);
    AtomicInteger rem = new AtomicInteger(TASKS);
    String ex = executor;
    boolean m = managed;
    Runnable blocker =
        () -> {
          try {
            Execs.blockingCall(
                ex,
                m,
                () -> {
                  Thread.sleep(BLOCK_MS);
                  return null;
                });
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          if (rem.decrementAndGet() == 0) {
            done.countDown();
          }
        };
    Runnable cpu =
        () -> {
          Blackhole.consumeCPU(CPU_TOKENS);
          if (rem.decrementAndGet() == 0) {
            done.countDown();
          }
        };
    for (int i = 0; i < TASKS; i++) {
      exec.execute(i % BLOCK_EVERY == 0 ? blocker : cpu);
    }
    Util.await(done, "blockingMix");
  }
}
