import dev.gmp.*;
import java.util.*;
import java.util.concurrent.*;
public class CfTree {
  static void stall(long nanos) { long e = System.nanoTime() + nanos; while (System.nanoTime() - e < 0) Thread.onSpinWait(); }
  static int node(ExecutorService ex, int level) {
    if (level == 0) { stall(50_000); return 1; }
    CompletableFuture<Integer> l = CompletableFuture.supplyAsync(() -> node(ex, level - 1), ex);
    CompletableFuture<Integer> r = CompletableFuture.supplyAsync(() -> node(ex, level - 1), ex);
    return l.join() + r.join();
  }
  public static void main(String[] a) throws Exception {
    String kind = a[0]; int p = Integer.parseInt(a[1]);
    GmpExecutor g = null; ExecutorService ex;
    switch (kind) {
      case "gmp" -> ex = g = GmpExecutor.create(p);
      case "gmpvt" -> { g = GmpExecutor.create(p); ex = g.newVirtualThreadPerTaskExecutor(); }
      case "fjp" -> ex = new ForkJoinPool(p);
      default -> { System.setProperty("jdk.virtualThreadScheduler.parallelism", a[1]); ex = Executors.newVirtualThreadPerTaskExecutor(); }
    }
    int trees = 30; long[] t = new long[trees];
    for (int i = 0; i < trees; i++) {
      long t0 = System.nanoTime();
      ExecutorService fex = ex;
      int leaves = CompletableFuture.supplyAsync(() -> node(fex, 7), ex).join();
      if (leaves != 128) throw new AssertionError(leaves);
      t[i] = System.nanoTime() - t0;
    }
    long sum = 0; for (long x : t) sum += x;
    long[] last = Arrays.copyOfRange(t, 20, 30); Arrays.sort(last);
    System.out.printf("%s p=%d sum1-30 %.1f ms, median21-30 %.2f ms, threads %s%n", kind, p, sum / 1e6, (last[4] + last[5]) / 2e6,
        g != null ? g.stats().threadsCreated() : "-");
  }
}
