import dev.gmp.GmpExecutor;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A 100 ms timer on an idle executor, then, 20 ms later, one task per processor from outside,
 * each sleeping 1 s unmarked. Prints the timer's lateness, 5 rounds, each after 1.5 s idle.
 * usage: TimerThenTask gmp|fjp|stpe PARALLELISM
 */
public class TimerThenTask {
  public static void main(String[] a) throws Exception {
    int p = Integer.parseInt(a[1]);
    ScheduledExecutorService ex = switch (a[0]) {
      case "gmp" -> GmpExecutor.create(p);
      case "fjp" -> new ForkJoinPool(p);
      default -> Executors.newScheduledThreadPool(p);
    };
    ex.submit(() -> 1).get();
    long[] late = new long[5];
    for (int r = 0; r < late.length; r++) {
      Thread.sleep(1500);
      long t0 = System.nanoTime();
      ScheduledFuture<Long> timer = ex.schedule(System::nanoTime, 100, TimeUnit.MILLISECONDS);
      Thread.sleep(20);
      for (int i = 0; i < p; i++) {
        ex.execute(() -> {
          try {
            Thread.sleep(1000);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
      }
      late[r] = (timer.get() - t0) / 1_000_000 - 100;
    }
    System.out.println(a[0] + " p=" + p + ": timer late, ms: " + Arrays.toString(late));
    ex.shutdownNow();
  }
}
