import java.util.concurrent.*;
public class Churn {
  public static void main(String[] a) throws Exception {
    int n = Integer.parseInt(a[0]); boolean run = a.length > 1;
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      dev.gmp.GmpExecutor ex = dev.gmp.GmpExecutor.create(2);
      if (run) { ex.execute(() -> {}); }
      ex.shutdownNow();
      if (run) ex.awaitTermination(10, TimeUnit.SECONDS);
    }
    System.out.printf("%d executors in %.0f ms, heap used %d MB%n", n, (System.nanoTime()-t0)/1e6, (Runtime.getRuntime().totalMemory()-Runtime.getRuntime().freeMemory())>>20);
  }
}
