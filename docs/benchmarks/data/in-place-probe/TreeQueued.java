import dev.gmp.GmpExecutor;
import java.util.concurrent.*;
public class TreeQueued {
  static int tree(GmpExecutor ex, int d) throws Exception {
    if (d == 0) return 1;
    Future<Integer> a = ex.submit(() -> tree(ex, d - 1));
    Future<Integer> b = ex.submit(() -> tree(ex, d - 1));
    return b.get() + a.get();
  }
  public static void main(String[] x) throws Exception {
    GmpExecutor ex = GmpExecutor.create(1);
    for (int d : new int[] {5, 9, 12, 15}) {
      int q = ex.submit(() -> { tree(ex, d); return ex.stats().runnableTasks(); }).get();
      System.out.println("depth " + d + " queued " + q + " global " + ex.stats().globalQueueLength());
    }
    System.exit(0);
  }
}
