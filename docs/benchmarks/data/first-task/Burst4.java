import java.util.concurrent.*;
import java.util.concurrent.atomic.*;
public class Burst4 {
  public static void main(String[] a) throws Exception {
    ExecutorService ex = dev.gmp.GmpExecutor.create(Integer.parseInt(a[0]));
    dev.gmp.bench.Util.sleepNanos(5_000_000);
    Runnable warm = () -> {}; // bootstrap the lambda machinery outside the timing
    long[] st = new long[1];
    CountDownLatch done = new CountDownLatch(1);
    Runnable r = () -> { st[0] = System.nanoTime(); done.countDown(); };
    long t0 = System.nanoTime();
    ex.execute(r);
    long t1 = System.nanoTime();
    done.await();
    System.out.println("execute " + (t1 - t0) / 1000 + " task " + (st[0] - t0) / 1000 + " | " + dev.gmp.Probe.dump(t0));
    ex.shutdown();
  }
}
