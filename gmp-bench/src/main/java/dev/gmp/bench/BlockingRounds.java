package dev.gmp.bench;

import dev.gmp.GmpExecutor;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Not a benchmark: BlockingCalls' workload in rounds on one executor in one JVM, to explain its
 * results. Each round submits {@code tasks} tasks from outside, each making one marked blocking
 * call of {@code callMicros} (gmp: {@code GmpExecutor.blocking}; fjp: a {@code ManagedBlocker}),
 * at parallelism 2, and waits for them. Prints the median round (and quartiles) after the first
 * 5, the calls in flight on average (the calls' summed durations over the round's wall time:
 * throughput is that over the call's length) and the threads the executor made. Usage:
 *
 * <pre>
 * java -cp gmp-bench/target/benchmarks.jar dev.gmp.bench.BlockingRounds gmp|fjp TASKS CALL_US [ROUNDS=25]
 * </pre>
 */
public final class BlockingRounds {
  private BlockingRounds() {}

  private static final int WARM = 5;

  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: BlockingRounds gmp|fjp TASKS CALL_US [ROUNDS=25]");
      System.exit(2);
    }
    String ex = args[0];
    int tasks = Integer.parseInt(args[1]);
    long us = Long.parseLong(args[2]);
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 25;
    if (rounds <= WARM) {
      throw new IllegalArgumentException("ROUNDS must be more than " + WARM + ", was " + rounds);
    }
    AtomicLong made = new AtomicLong();
    ExecutorService exec =
        switch (ex) {
          case "gmp" ->
              GmpExecutor.builder()
                  .parallelism(2)
                  .threadFactory(
                      r -> {
                        made.incrementAndGet();
                        Thread t = new Thread(r);
                        t.setDaemon(true);
                        return t;
                      })
                  .build();
          case "fjp" ->
              new ForkJoinPool(
                  2,
                  pool -> {
                    made.incrementAndGet();
                    return new ForkJoinWorkerThread(pool) {};
                  },
                  null, false, 0, 2 + 256, 1, pool -> true, 60, TimeUnit.SECONDS);
          default -> throw new IllegalArgumentException("executor must be gmp or fjp, was " + ex);
        };
    double[] walls = new double[rounds - WARM];
    double[] inFlight = new double[rounds - WARM];
    long madeBefore = 0;
    for (int r = 0; r < rounds; r++) {
      if (r == WARM) {
        madeBefore = made.get();
      }
      CountDownLatch done = new CountDownLatch(tasks);
      LongAdder callNanos = new LongAdder();
      Runnable task =
          () -> {
            long t0 = System.nanoTime();
            try {
              Execs.blockingCall(ex, true, () -> {
                BlockingCalls.park(us);
                return null;
              });
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
            callNanos.add(System.nanoTime() - t0);
            done.countDown();
          };
      long w0 = System.nanoTime();
      for (int i = 0; i < tasks; i++) {
        exec.execute(task);
      }
      Util.await(done, "BlockingRounds");
      long wall = System.nanoTime() - w0;
      if (r >= WARM) {
        walls[r - WARM] = wall / 1e6;
        inFlight[r - WARM] = callNanos.sum() / (double) wall;
      }
    }
    Arrays.sort(walls);
    Arrays.sort(inFlight);
    int n = walls.length;
    System.out.printf(
        Locale.ROOT,
        "%s %d x %d us: median %.2f ms [q1 %.2f, q3 %.2f] over %d rounds, calls in flight %.1f,"
            + " threads made %d (%d after the first %d rounds)%n",
        ex, tasks, us, walls[n / 2], walls[n / 4], walls[3 * n / 4], n, inFlight[n / 2],
        made.get(), made.get() - madeBefore, WARM);
    Execs.shutdown(exec);
  }
}
