package dev.gmp.bench;

import dev.gmp.GmpExecutor;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

/**
 * How long a queued task waits behind a task that blocks, at parallelism 1: gmp with and without
 * {@link GmpExecutor#blocking}, next to ForkJoinPool with and without ManagedBlocker. Each trial:
 * a task blocks for {@code blockMillis}; once it is blocked a second task is submitted from
 * outside; we record submit-to-start of the second. Prints median and p10/p90 over the trials.
 *
 * <p>Run: {@code java -cp gmp-bench/target/benchmarks.jar dev.gmp.bench.BlockedWait [trials]
 * [blockMillis]}
 */
public final class BlockedWait {
  private BlockedWait() {}

  interface Blocker {
    void block(long millis) throws Exception;
  }

  public static void main(String[] args) throws Exception {
    int trials = args.length > 0 ? Integer.parseInt(args[0]) : 30;
    long blockMillis = args.length > 1 ? Long.parseLong(args[1]) : 100;
    System.out.printf(
        "queued task's wait behind a task blocked for %d ms, parallelism 1, %d trials (us)%n",
        blockMillis, trials);
    System.out.printf("%-34s %10s %10s %10s%n", "executor / blocking style", "p10", "median", "p90");
    run("gmp, GmpExecutor.blocking", () -> GmpExecutor.create(1), trials, blockMillis,
        ms -> GmpExecutor.blocking(() -> {
          Thread.sleep(ms);
          return null;
        }));
    run("gmp, plain Thread.sleep", () -> GmpExecutor.create(1), trials, blockMillis,
        Thread::sleep);
    run("ForkJoinPool, ManagedBlocker", () -> new ForkJoinPool(1), trials, blockMillis,
        ms -> ForkJoinPool.managedBlock(new SleepBlocker(ms)));
    run("ForkJoinPool, plain Thread.sleep", () -> new ForkJoinPool(1), trials, blockMillis,
        Thread::sleep);
  }

  interface Factory {
    ExecutorService create();
  }

  private static void run(String label, Factory f, int trials, long blockMillis, Blocker b)
      throws Exception {
    long[] waits = new long[trials];
    ExecutorService ex = f.create();
    try {
      for (int i = 0; i < trials; i++) {
        CountDownLatch blocking = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(2);
        ex.execute(() -> {
          blocking.countDown();
          try {
            b.block(blockMillis);
          } catch (Exception e) {
            throw new RuntimeException(e);
          }
          done.countDown();
        });
        blocking.await();
        long[] started = new long[1];
        long t0 = System.nanoTime();
        ex.execute(() -> {
          started[0] = System.nanoTime();
          done.countDown();
        });
        done.await();
        waits[i] = (started[0] - t0) / 1_000;
      }
    } finally {
      ex.shutdown();
      ex.awaitTermination(10, TimeUnit.SECONDS);
    }
    Arrays.sort(waits);
    System.out.printf(
        "%-34s %10d %10d %10d%n",
        label, waits[trials / 10], waits[trials / 2], waits[trials * 9 / 10]);
  }

  private static final class SleepBlocker implements ForkJoinPool.ManagedBlocker {
    private final long millis;
    private boolean done;

    SleepBlocker(long millis) {
      this.millis = millis;
    }

    @Override
    public boolean block() throws InterruptedException {
      Thread.sleep(millis);
      done = true;
      return true;
    }

    @Override
    public boolean isReleasable() {
      return done;
    }
  }
}
