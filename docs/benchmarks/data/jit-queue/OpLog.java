import java.util.concurrent.*;
public class OpLog {
  public static void main(String[] a) throws Exception {
    String kind = a[0]; int p = Integer.parseInt(a[1]); int ops = Integer.parseInt(a[2]);
    ExecutorService ex = kind.equals("gmp") ? dev.gmp.GmpExecutor.create(p) : new ForkJoinPool(p);
    for (int i = 1; i <= ops; i++) {
      long s = System.nanoTime();
      dev.gmp.bench.Workloads.spawnLocal(ex, 10000);
      long d = System.nanoTime() - s;
      System.out.println("OP " + i + " " + (d / 1000) + " us");
    }
    System.exit(0);
  }
}
