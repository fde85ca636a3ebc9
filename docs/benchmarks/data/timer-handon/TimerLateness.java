import dev.gmp.GmpExecutor;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A timer's lateness while tasks that sleep 1 s unmarked hold the processors, on an idle
 * executor; 5 rounds, each after 1.5 s idle. {@code pair}: a 50 ms timer whose task sleeps and a
 * 100 ms timer (the second's lateness). {@code then-task}: a 100 ms timer, then, 20 ms later, one
 * sleeping task per processor from outside. usage: TimerLateness pair|then-task gmp|fjp|stpe P
 */
public class TimerLateness {
  static void sleep1s() {
    try {
      Thread.sleep(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  public static void main(String[] a) throws Exception {
    boolean pair = a[0].equals("pair");
    int p = Integer.parseInt(a[2]);
    ScheduledExecutorService ex = switch (a[1]) {
      case "gmp" -> GmpExecutor.create(p);
      case "fjp" -> new ForkJoinPool(p);
      default -> Executors.newScheduledThreadPool(p);
    };
    ex.submit(() -> 1).get();
    long[] late = new long[5];
    for (int r = 0; r < late.length; r++) {
      Thread.sleep(1500);
      long t0 = System.nanoTime();
      if (pair) {
        ex.schedule(TimerLateness::sleep1s, 50, TimeUnit.MILLISECONDS);
      }
      ScheduledFuture<Long> timer = ex.schedule(System::nanoTime, 100, TimeUnit.MILLISECONDS);
      if (!pair) {
        Thread.sleep(20);
        for (int i = 0; i < p; i++) {
          ex.execute(TimerLateness::sleep1s);
        }
      }
      late[r] = (timer.get() - t0) / 1_000_000 - 100;
    }
    System.out.println(a[0] + " " + a[1] + " p=" + p + ": timer late, ms: " + Arrays.toString(late));
    ex.shutdownNow();
  }
}
