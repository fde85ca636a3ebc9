import dev.gmp.GmpExecutor;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Parallelism 1: a task waits in get() on a 30 ms timer it scheduled; the time from queueing a
 * second task to its start, 40 rounds, the first 10 dropped. usage: SchedWait gmp|fjp
 */
public class SchedWait {
  public static void main(String[] a) throws Exception {
    ExecutorService ex = a[0].equals("fjp") ? new ForkJoinPool(1) : GmpExecutor.create(1);
    ScheduledExecutorService ses = (ScheduledExecutorService) ex;
    long[] lat = new long[40];
    for (int i = 0; i < lat.length; i++) {
      CountDownLatch in = new CountDownLatch(1);
      Future<?> w = ex.submit(() -> {
        ScheduledFuture<Integer> t = ses.schedule(() -> 1, 30, TimeUnit.MILLISECONDS);
        in.countDown();
        return t.get();
      });
      in.await();
      Thread.sleep(1); // the waiter is in get() by now, or about to be
      long t0 = System.nanoTime();
      CountDownLatch ran = new CountDownLatch(1);
      ex.execute(ran::countDown);
      ran.await();
      lat[i] = System.nanoTime() - t0;
      w.get();
    }
    long[] s = Arrays.copyOfRange(lat, 10, lat.length);
    Arrays.sort(s);
    System.out.printf("%s: queued task's start, us: median %.1f p90 %.1f max %.1f%n", a[0],
        s[s.length / 2] / 1e3, s[s.length * 9 / 10] / 1e3, s[s.length - 1] / 1e3);
    ex.shutdown();
  }
}
