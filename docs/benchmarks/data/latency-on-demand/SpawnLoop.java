import java.util.concurrent.*;
public class SpawnLoop {
  public static void main(String[] a) throws Exception {
    String kind = a[0]; int p = Integer.parseInt(a[1]); long secs = Long.parseLong(a[2]);
    ExecutorService ex = kind.equals("gmp") ? dev.gmp.GmpExecutor.create(p) : new ForkJoinPool(p);
    long end = System.nanoTime() + 1_500_000_000L;
    while (System.nanoTime() < end) dev.gmp.bench.Workloads.spawnLocal(ex, 10000);
    long t0 = System.nanoTime(); int n = 0;
    long[] ts = new long[100000];
    end = t0 + secs * 1_000_000_000L;
    while (System.nanoTime() < end) { long s = System.nanoTime(); dev.gmp.bench.Workloads.spawnLocal(ex, 10000); ts[n++] = System.nanoTime() - s; }
    java.util.Arrays.sort(ts, 0, n);
    System.out.printf("%s p=%d ops %d p10 %.2f p50 %.2f p90 %.2f ms%n", kind, p, n, ts[n/10]/1e6, ts[n/2]/1e6, ts[n*9/10]/1e6);
    if (ex instanceof dev.gmp.GmpExecutor g) System.out.println(g.stats());
    ex.shutdown();
  }
}
