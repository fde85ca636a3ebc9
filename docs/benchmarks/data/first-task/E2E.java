import java.util.concurrent.*;
public class E2E {
  public static void main(String[] a) throws Exception {
    long t0 = System.nanoTime();
    ExecutorService ex = a[0].equals("gmp") ? dev.gmp.GmpExecutor.create(2) : new ForkJoinPool(2);
    long t1 = System.nanoTime();
    CountDownLatch l = new CountDownLatch(1);
    ex.execute(l::countDown);
    l.await();
    long t2 = System.nanoTime();
    CountDownLatch l2 = new CountDownLatch(1000);
    for (int i = 0; i < 1000; i++) ex.execute(l2::countDown);
    l2.await();
    long t3 = System.nanoTime();
    ex.shutdown(); ex.awaitTermination(1, TimeUnit.SECONDS);
    long t4 = System.nanoTime();
    System.out.printf("%s create %.2f first %.2f 1000 %.2f shutdown %.2f total %.2f ms%n", a[0], (t1-t0)/1e6, (t2-t1)/1e6, (t3-t2)/1e6, (t4-t3)/1e6, (t4-t0)/1e6);
  }
}
