import dev.gmp.GmpExecutor;
import java.util.*;
import java.util.concurrent.*;
public class TimedLoop {
  public static void main(String[] a) throws Exception {
    int p = Integer.parseInt(a[1]);
    ExecutorService ex = a[0].equals("fjp") ? new ForkJoinPool(p) : GmpExecutor.create(p);
    for (int round = 0; round < 5; round++) {
      long t0 = System.nanoTime();
      int n = 2000;
      ex.submit(() -> { for (int i = 0; i < n; i++) { Future<Integer> f = ex.submit(() -> 1); f.get(5, TimeUnit.SECONDS); } return null; }).get();
      long t1 = System.nanoTime();
      ex.submit(() -> { for (int i = 0; i < n; i++) { Future<Integer> f = ex.submit(() -> 1); f.get(); } return null; }).get();
      long t2 = System.nanoTime();
      System.out.printf("%s p=%d timed get %.1f us/op, untimed %.2f us/op%n", a[0], p, (t1 - t0) / 1e3 / n, (t2 - t1) / 1e3 / n);
    }
    if (ex instanceof GmpExecutor g) System.out.println(g.stats());
    System.exit(0);
  }
}
