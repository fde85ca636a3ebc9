import dev.gmp.GmpExecutor;
import dev.gmp.bench.Workloads;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;

/**
 * One fresh JVM: OPS operations of a workload on gmp or ForkJoinPool, then the second half's
 * mean, p10, p50, p90 and max and the sum of the first 30 (ms); with "series", every operation's
 * time first. Usage: Dist gmp|fjp spawnLocal|forkTree|spawnRemote P OPS [series]
 */
public class Dist {
  public static void main(String[] a) throws Exception {
    String k = a[0], w = a[1];
    int p = Integer.parseInt(a[2]);
    int ops = Integer.parseInt(a[3]);
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
    if (a.length > 4 && a[4].equals("series")) {
      StringBuilder sb = new StringBuilder();
      for (long x : t) {
        sb.append(Math.round(x / 1e5) / 10.0).append(' ');
      }
      System.out.println(sb);
    }
    long[] h = Arrays.copyOfRange(t, ops / 2, ops);
    double mean = Arrays.stream(h).average().getAsDouble();
    Arrays.sort(h);
    int n = h.length;
    System.out.printf(
        "%s %s p=%d 2nd half: mean %.2f p10 %.2f p50 %.2f p90 %.2f max %.2f ms; first 30 sum %.1f%n",
        k, w, p, mean / 1e6, h[n / 10] / 1e6, h[n / 2] / 1e6, h[n * 9 / 10] / 1e6, h[n - 1] / 1e6,
        Arrays.stream(t, 0, Math.min(30, ops)).sum() / 1e6);
    ex.shutdown();
  }
}
