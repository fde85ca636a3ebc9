package dev.gmp.bench;

import dev.gmp.GmpExecutor;
import dev.gmp.GmpStats;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/** ping_pong (TokioRt's) on gmp at p=2: per-op time and scheduler events per op after warm-up. */
public final class PpProbe {
  static void op(ExecutorService ex) throws Exception {
    CountDownLatch done = new CountDownLatch(1);
    AtomicInteger rem = new AtomicInteger(1000);
    Runnable pinger =
        () -> {
          Oneshot ch1 = new Oneshot();
          Oneshot ch2 = new Oneshot();
          ex.execute(() -> ch1.await(() -> ch2.send(ex)));
          ch1.send(ex);
          ch2.await(() -> { if (rem.decrementAndGet() == 0) done.countDown(); });
        };
    ex.execute(() -> { for (int i = 0; i < 1000; i++) ex.execute(pinger); });
    done.await();
  }

  public static void main(String[] a) throws Exception {
    int ops = Integer.parseInt(a[0]);
    try (GmpExecutor ex = GmpExecutor.create(2)) {
      long end = System.nanoTime() + 4_000_000_000L;
      while (System.nanoTime() < end) op(ex);
      GmpStats s0 = ex.stats();
      long[] t = new long[ops];
      for (int i = 0; i < ops; i++) { long t0 = System.nanoTime(); op(ex); t[i] = System.nanoTime() - t0; }
      GmpStats s1 = ex.stats();
      Arrays.sort(t);
      System.out.printf("median %.1f us p90 %.1f | per op: steals %.1f parks %.1f unparks %.1f tasks %.0f%n",
          t[ops / 2] / 1e3, t[ops * 9 / 10] / 1e3, (s1.steals() - s0.steals()) / (double) ops,
          (s1.parks() - s0.parks()) / (double) ops, (s1.unparks() - s0.unparks()) / (double) ops,
          (s1.completedTasks() - s0.completedTasks()) / (double) ops);
    }
  }
}
