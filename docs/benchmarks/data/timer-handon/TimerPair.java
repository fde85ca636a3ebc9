import dev.gmp.GmpExecutor;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Two timers on an idle executor: the first (50 ms) runs a task that sleeps 1 s unmarked, the
 * second (100 ms) records when it ran. Prints the second's lateness, 5 rounds, each after 1.5 s
 * idle. usage: TimerPair gmp|fjp|stpe PARALLELISM
 */
public class TimerPair {
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
      ex.schedule(() -> {
        try {
          Thread.sleep(1000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, 50, TimeUnit.MILLISECONDS);
      ScheduledFuture<Long> b = ex.schedule(System::nanoTime, 100, TimeUnit.MILLISECONDS);
      late[r] = (b.get() - t0) / 1_000_000 - 100;
    }
    System.out.println(a[0] + " p=" + p + ": second timer late, ms: " + Arrays.toString(late));
    ex.shutdownNow();
  }
}
