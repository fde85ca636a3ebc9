import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bursts that wait milliseconds: ROUNDS times, 5 ms idle, then 100 outside submissions; counts
 * the bursts (after the first 100) whose median submit-to-start delay passed 1 ms, and prints
 * each: every fifth task as index:submitted-us/delay-us plus the thread that ran it. With "dump"
 * (gmp only), a burst not done 700 us after its first submission also prints GmpExecutor.dump().
 *   javac -cp CORE_JAR BurstStalls.java; java -cp CORE_JAR:. BurstStalls gmp|fjp P ROUNDS [dump]
 */
public class BurstStalls {
  public static void main(String[] a) throws Exception {
    boolean gmp = a[0].equals("gmp");
    int p = Integer.parseInt(a[1]);
    int rounds = Integer.parseInt(a[2]);
    boolean dump = a.length > 3 && a[3].equals("dump");
    ExecutorService ex = gmp ? dev.gmp.GmpExecutor.create(p) : new ForkJoinPool(p);
    int n = 100;
    int slow = 0;
    for (int round = 0; round < rounds; round++) {
      Thread.sleep(5);
      long[] delay = new long[n];
      long[] sub = new long[n];
      String[] who = new String[n];
      CountDownLatch done = new CountDownLatch(1);
      AtomicInteger rem = new AtomicInteger(n);
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        int k = i;
        long s = System.nanoTime();
        sub[k] = s - t0;
        ex.execute(() -> {
          delay[k] = System.nanoTime() - s;
          who[k] = Thread.currentThread().getName();
          if (rem.decrementAndGet() == 0) {
            done.countDown();
          }
        });
      }
      String state = null;
      if (dump && gmp && !done.await(700, TimeUnit.MICROSECONDS)) {
        state = ((dev.gmp.GmpExecutor) ex).dump();
      }
      done.await();
      long[] d = delay.clone();
      Arrays.sort(d);
      if (round >= 100 && d[49] > 1_000_000) {
        slow++;
        StringBuilder sb = new StringBuilder("slow: p50 " + d[49] / 1000 + " us |");
        for (int i = 0; i < n; i += 5) {
          sb.append(' ').append(i).append(':').append(sub[i] / 1000).append('/')
              .append(delay[i] / 1000).append(' ').append(who[i].replaceAll(".*-", ""));
        }
        System.out.println(sb);
        if (state != null) {
          System.out.println(state);
        }
      }
    }
    System.out.println((gmp ? "gmp" : "fjp") + " p=" + p + ": bursts with p50 > 1 ms: " + slow
        + " of " + (rounds - 100));
    ex.shutdown();
  }
}
