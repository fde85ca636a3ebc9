package dev.gmp.bench;

import dev.gmp.GmpExecutor;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Tasks that never end: {@code consumers} loops that take an item from a queue (a marked blocking
 * call: {@link GmpExecutor#blocking} on gmp, a ManagedBlocker on ForkJoinPool) and compute on it
 * for {@code computeMicros} of CPU time. Items come in bursts of one per consumer, {@code gapMillis} apart.
 * Prints, per executor, how many loops computed at once as each item started (mean and max: at
 * most parallelism under Go's rule), and each item's time from its put to the end of its compute
 * (mean and p99). Parallelism bounds how many compute, and so how soon each burst's first items
 * are done: loops that all compute at once share the CPUs and all finish late.
 *
 * <p>Run: {@code java -cp gmp-bench/target/benchmarks.jar dev.gmp.bench.LoopBound [parallelism]
 * [consumers] [computeMicros] [bursts] [gapMillis] [rounds]}
 */
public final class LoopBound {
  private LoopBound() {}

  public static void main(String[] args) throws Exception {
    int parallelism = args.length > 0 ? Integer.parseInt(args[0]) : 2;
    int consumers = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    long computeMicros = args.length > 2 ? Long.parseLong(args[2]) : 2_000;
    int bursts = args.length > 3 ? Integer.parseInt(args[3]) : 30;
    long gapMillis = args.length > 4 ? Long.parseLong(args[4]) : 60;
    int rounds = args.length > 5 ? Integer.parseInt(args[5]) : 3;
    System.out.printf(
        "%d consumer loops, parallelism %d, %d us of compute per item, %d bursts %d ms apart%n",
        consumers, parallelism, computeMicros, bursts, gapMillis);
    System.out.printf("%-6s %5s %12s %12s %14s %14s%n",
        "exec", "round", "mean at once", "max at once", "mean item ms", "p99 item ms");
    for (int r = 0; r < rounds; r++) { // interleaved, each on a fresh executor
      for (String exec : new String[] {"gmp", "fjp"}) {
        ExecutorService ex = exec.equals("gmp")
            ? GmpExecutor.builder().parallelism(parallelism).build()
            : new ForkJoinPool(parallelism);
        try {
          run(exec, r, ex, consumers, computeMicros, bursts, gapMillis);
        } finally {
          ex.shutdownNow();
          ex.awaitTermination(10, TimeUnit.SECONDS);
        }
      }
    }
  }

  private static void run(String label, int round, ExecutorService ex, int consumers,
      long computeMicros, int bursts, long gapMillis) throws Exception {
    BlockingQueue<Long> q = new LinkedBlockingQueue<>();
    AtomicInteger computing = new AtomicInteger();
    int items = consumers * bursts;
    long[] atOnce = new long[items];
    long[] latency = new long[items];
    AtomicInteger done = new AtomicInteger();
    boolean gmp = ex instanceof GmpExecutor;
    long nanos = TimeUnit.MICROSECONDS.toNanos(computeMicros);
    for (int c = 0; c < consumers; c++) {
      ex.execute(() -> {
        try {
          while (true) {
            long put = gmp ? GmpExecutor.blocking(q::take) : fjpTake(q);
            int now = computing.incrementAndGet();
            compute(nanos);
            computing.decrementAndGet();
            int i = done.getAndIncrement();
            if (i < items) {
              atOnce[i] = now;
              latency[i] = System.nanoTime() - put;
            }
          }
        } catch (InterruptedException e) {
          // shutdownNow: the loop ends
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
    }
    for (int b = 0; b < bursts; b++) {
      long t = System.nanoTime();
      for (int c = 0; c < consumers; c++) {
        q.add(t);
      }
      Thread.sleep(gapMillis);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (done.get() < items && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    int n = Math.min(done.get(), items);
    long[] l = Arrays.copyOf(latency, n);
    Arrays.sort(l);
    double meanAtOnce = Arrays.stream(atOnce, 0, n).average().orElse(0);
    long maxAtOnce = Arrays.stream(atOnce, 0, n).max().orElse(0);
    double meanMs = Arrays.stream(l).average().orElse(0) / 1e6;
    double p99Ms = n == 0 ? 0 : l[Math.min(n - 1, (int) (n * 0.99))] / 1e6;
    System.out.printf("%-6s %5d %12.2f %12d %14.2f %14.2f%s%n", label, round, meanAtOnce,
        maxAtOnce, meanMs, p99Ms, n < items ? "  (only " + n + " of " + items + " done)" : "");
    if (ex instanceof GmpExecutor g && Boolean.getBoolean("loopbound.stats")) {
      System.out.println("  " + g.stats());
    }
  }

  /**
   * Computes for {@code nanos} of this thread's CPU time, not wall time: loops that share a CPU
   * take longer, as real work does (a stall would end on time however many shared the CPU).
   */
  private static void compute(long nanos) {
    long end = CPU.getCurrentThreadCpuTime() + nanos;
    long x = nanos;
    do {
      for (int i = 0; i < 1_000; i++) {
        x = x * 6364136223846793005L + 1442695040888963407L;
      }
    } while (CPU.getCurrentThreadCpuTime() - end < 0);
    sink = x;
  }

  private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

  static volatile long sink;

  private static long fjpTake(BlockingQueue<Long> q) throws InterruptedException {
    long[] box = new long[1];
    boolean[] got = new boolean[1];
    ForkJoinPool.managedBlock(new ForkJoinPool.ManagedBlocker() {
      @Override
      public boolean block() throws InterruptedException {
        if (!got[0]) {
          box[0] = q.take();
          got[0] = true;
        }
        return true;
      }

      @Override
      public boolean isReleasable() {
        if (!got[0]) {
          Long v = q.poll();
          if (v != null) {
            box[0] = v;
            got[0] = true;
          }
        }
        return got[0];
      }
    });
    return box[0];
  }
}
