import dev.gmp.*;
import dev.gmp.bench.Workloads;
import java.util.*;
import java.util.concurrent.*;
public class Dist {
  public static void main(String[] a) throws Exception {
    String k = a[0], w = a[1]; int p = Integer.parseInt(a[2]); int ops = Integer.parseInt(a[3]);
    ExecutorService ex = k.equals("gmp") ? GmpExecutor.create(p) : new ForkJoinPool(p);
    long[] t = new long[ops];
    for (int i = 0; i < ops; i++) {
      long t0 = System.nanoTime();
      switch (w) {
        case "spawnLocal" -> Workloads.spawnLocal(ex, 10_000);
        case "forkTree" -> Workloads.forkTree(ex, 16, 20);
        case "spawnRemote" -> Workloads.spawnRemote(ex, 10_000);
        default -> throw new IllegalArgumentException(w);
      }
      t[i] = System.nanoTime() - t0;
    }
    long[] h = Arrays.copyOfRange(t, ops / 2, ops); double mean = Arrays.stream(h).average().getAsDouble();
    Arrays.sort(h); int n = h.length;
    System.out.printf("%s %s p=%d 2nd half: mean %.2f p10 %.2f p50 %.2f p90 %.2f max %.2f ms; first 30 sum %.1f%n", k, w, p, mean / 1e6, h[n / 10] / 1e6, h[n / 2] / 1e6, h[n * 9 / 10] / 1e6, h[n - 1] / 1e6,
      Arrays.stream(t, 0, Math.min(30, ops)).sum() / 1e6);
    ex.shutdown();
  }
}
