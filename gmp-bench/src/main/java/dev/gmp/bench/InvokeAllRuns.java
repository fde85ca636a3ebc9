package dev.gmp.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * {@code invokeAll} of 1,000 callables, from an outside thread or from one of the executor's own
 * tasks, in one fresh JVM: prints the sum of operations 1-30 and the median of 20 operations after
 * one more second of running, in nanoseconds, on one line. Usage:
 *
 * <pre>
 * java -cp gmp-bench/target/benchmarks.jar dev.gmp.bench.InvokeAllRuns \
 *     EXECUTOR PARALLELISM out|in LEAF_ITERATIONS
 * </pre>
 *
 * A leaf XORs {@code LEAF_ITERATIONS} numbers (0: it returns at once; 2,000: 2-4 us here).
 * docs/benchmarks/data/invokeall/run.sh interleaves JVMs of two gmp-core builds and ForkJoinPool.
 */
public final class InvokeAllRuns {
  private InvokeAllRuns() {}

  public static void main(String[] args) throws Exception {
    ExecutorService ex = Execs.create(args[0], Integer.parseInt(args[1]));
    boolean inTask = args[2].equals("in");
    int work = Integer.parseInt(args[3]);
    List<Callable<Long>> calls = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      long k = i;
      calls.add(
          () -> {
            long x = k;
            for (int j = 0; j < work; j++) {
              x += j ^ k;
            }
            return x;
          });
    }
    Callable<Object> op =
        () -> {
          for (Future<Long> f : ex.invokeAll(calls)) {
            f.get();
          }
          return null;
        };
    Callable<Object> run = inTask ? () -> ex.submit(op).get() : op;
    try {
      long first30 = 0;
      for (int i = 0; i < 30; i++) {
        long t0 = System.nanoTime();
        run.call();
        first30 += System.nanoTime() - t0;
      }
      long end = System.nanoTime() + 1_000_000_000L;
      while (System.nanoTime() - end < 0) {
        run.call();
      }
      long[] t = new long[20];
      for (int i = 0; i < t.length; i++) {
        long t0 = System.nanoTime();
        run.call();
        t[i] = System.nanoTime() - t0;
      }
      Arrays.sort(t);
      System.out.println(first30 + " " + t[t.length / 2]);
    } finally {
      Execs.shutdown(ex);
    }
  }
}
