import java.util.concurrent.*;
public class First {
  public static void main(String[] a) throws Exception {
    boolean g = a[0].equals("gmp"); int p = Integer.parseInt(a[1]);
    Runnable warm = () -> {}; warm.run();
    long c0 = System.nanoTime();
    ExecutorService ex = g ? dev.gmp.GmpExecutor.create(p) : new ForkJoinPool(p);
    long c1 = System.nanoTime();
    dev.gmp.bench.Util.sleepNanos(5_000_000);
    long[] st = new long[1];
    CountDownLatch done = new CountDownLatch(1);
    Runnable r = () -> { st[0] = System.nanoTime(); done.countDown(); };
    long t0 = System.nanoTime();
    ex.execute(r);
    long t1 = System.nanoTime();
    done.await();
    long[] b = dev.gmp.bench.Workloads.burst(ex, 100, 5);
    long[] b2 = dev.gmp.bench.Workloads.burst(ex, 100, 5);
    System.out.printf("%s create %d execute %d first-task %d | burst1 %d/%d burst2 %d/%d us%n", a[0], (c1 - c0) / 1000, (t1 - t0) / 1000, (st[0] - t0) / 1000, b[0]/1000, b[1]/1000, b2[0]/1000, b2[1]/1000);
    ex.shutdown();
  }
}
