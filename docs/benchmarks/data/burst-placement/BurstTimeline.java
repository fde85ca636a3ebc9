import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;
/**
 * A warm burst's timeline: 3,000 bursts of 100 outside submissions after 5 ms idle; over the last
 * 2,500, how many ran every task on task 0's thread, and the medians over bursts of when task 0
 * started, when the submissions ended, when the 50th task started (us from the first submission)
 * and the burst's p50 delay. javac -cp CORE_JAR BurstTimeline.java; java -cp CORE_JAR:. BurstTimeline gmp|fjp P
 */
public class BurstTimeline {
  public static void main(String[] a) throws Exception {
    boolean gmp = a[0].equals("gmp"); int p = Integer.parseInt(a[1]);
    ExecutorService ex = gmp ? dev.gmp.GmpExecutor.create(p) : new ForkJoinPool(p);
    int n = 100; Map<String,Integer> pat = new TreeMap<>(); List<Long> t0s = new ArrayList<>(), meds = new ArrayList<>(), subEnd = new ArrayList<>(), p50s = new ArrayList<>();
    for (int round = 0; round < 3000; round++) {
      Thread.sleep(5);
      long[] start = new long[n]; long[] sub = new long[n]; Thread[] who = new Thread[n];
      CountDownLatch done = new CountDownLatch(1); AtomicInteger rem = new AtomicInteger(n);
      long b = System.nanoTime();
      for (int i = 0; i < n; i++) { int k = i; sub[k] = System.nanoTime();
        ex.execute(() -> { start[k] = System.nanoTime(); who[k] = Thread.currentThread(); if (rem.decrementAndGet() == 0) done.countDown(); }); }
      long e = System.nanoTime();
      done.await();
      if (round < 500) continue;
      long[] d = new long[n]; for (int i = 0; i < n; i++) d[i] = start[i] - sub[i];
      long[] ds = d.clone(); Arrays.sort(ds);
      int sameAs0 = 0; for (int i = 0; i < n; i++) if (who[i] == who[0]) sameAs0++;
      String key = "tasks on task0's thread: " + (sameAs0 == n ? "all" : sameAs0 >= 50 ? ">=50" : "<50");
      pat.merge(key, 1, Integer::sum);
      t0s.add((start[0] - b) / 1000); subEnd.add((e - b) / 1000); p50s.add(ds[49] / 1000);
      long[] st = start.clone(); Arrays.sort(st); meds.add((st[49] - b) / 1000);
    }
    Collections.sort(t0s); Collections.sort(meds); Collections.sort(subEnd); Collections.sort(p50s);
    int m = t0s.size() / 2;
    System.out.println((gmp ? "gmp" : "fjp") + " " + pat + " | medians over bursts, us from first submit: task0 start " + t0s.get(m) + ", submissions end " + subEnd.get(m) + ", 50th start " + meds.get(m) + ", p50 delay " + p50s.get(m));
    ex.shutdown();
  }
}
