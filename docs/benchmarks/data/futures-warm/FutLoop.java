import java.util.*;
import java.util.concurrent.*;
public class FutLoop {
  public static void main(String[] a) throws Exception {
    String kind = a[0]; int p = Integer.parseInt(a[1]); long ms = Long.parseLong(a[2]);
    ExecutorService ex = kind.equals("gmp") ? dev.gmp.GmpExecutor.create(p) : new ForkJoinPool(p);
    long end = System.nanoTime() + ms * 1_000_000L; List<Long> t = new ArrayList<>();
    while (System.nanoTime() < end) {
      long s = System.nanoTime();
      dev.gmp.bench.Workloads.futureChains(ex, 2000, 20);
      t.add(System.nanoTime() - s);
    }
    List<Long> last = new ArrayList<>(t.subList(t.size() / 2, t.size())); Collections.sort(last);
    System.out.printf("%s p=%d ops=%d median(2nd half)=%d us p90=%d us%n", kind, p, t.size(), last.get(last.size() / 2) / 1000, last.get(last.size() * 9 / 10) / 1000);
    System.exit(0);
  }
}
