import java.util.concurrent.*;
import java.util.concurrent.atomic.*;
public class Burst3 { static class Mark0 {} static class Mark1 {} static class Mark2 {}
  public static void main(String[] a) throws Exception {
    String kind = a[0]; int p = Integer.parseInt(a[1]);
    ExecutorService ex = kind.equals("gmp") ? dev.gmp.GmpExecutor.create(p) : new ForkJoinPool(p);
    for (int op = 0; op < 3; op++) {
    dev.gmp.bench.Util.sleepNanos(5_000_000);
    int n = 100;
    long[] sub = new long[n], start = new long[n];
    String[] thr = new String[n];
    CountDownLatch done = new CountDownLatch(1);
    AtomicInteger rem = new AtomicInteger(n);
    if (op == 0) new Mark0(); long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      int k = i;
      sub[k] = System.nanoTime() - t0;
      ex.execute(() -> { start[k] = System.nanoTime() - t0; thr[k] = Thread.currentThread().getName(); if (rem.decrementAndGet() == 0) done.countDown(); });
    }
    long subEnd = System.nanoTime() - t0; if (op == 0) new Mark1(); done.await(); if (op == 0) new Mark2();
    done.await();
    StringBuilder sb = new StringBuilder(kind + " op" + op + " submit loop " + subEnd / 1000 + " us\n");
    for (int i = 0; i < n; i += (i < 12 ? 1 : 10)) sb.append(String.format("  #%d sub %d start %d (%s)%n", i, sub[i] / 1000, start[i] / 1000, thr[i]));
    System.out.print(sb);
    }
    ex.shutdown();
  }
}
