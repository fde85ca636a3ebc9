import dev.gmp.GmpExecutor;
import java.util.*;
import java.util.concurrent.*;
public class SubmitGetLoop {
  public static void main(String[] a) throws Exception {
    int p = Integer.parseInt(a[1]); long ms = Long.parseLong(a[2]);
    ExecutorService ex = a[0].equals("fjp") ? new ForkJoinPool(p) : GmpExecutor.create(p);
    long end = System.nanoTime() + ms * 1_000_000L; List<Double> r = new ArrayList<>();
    while (System.nanoTime() < end) {
      long t0 = System.nanoTime();
      int n = 20000;
      ex.submit(() -> { for (int i = 0; i < n; i++) { Future<Integer> f = ex.submit(() -> 1); f.get(); } return null; }).get();
      r.add((System.nanoTime() - t0) / (double) n);
    }
    List<Double> last = new ArrayList<>(r.subList(r.size() / 2, r.size())); Collections.sort(last);
    System.out.printf("%s p=%d rounds=%d submit+get median %.0f ns%n", a[0], p, r.size(), last.get(last.size() / 2));
    System.exit(0);
  }
}
