import java.util.*;
import java.util.concurrent.*;
public class NestedLoop {
  public static void main(String[] a) throws Exception {
    int p = Integer.parseInt(a[1]); long ms = Long.parseLong(a[2]);
    ExecutorService ex = a[0].equals("fjp") ? new ForkJoinPool(p) : dev.gmp.GmpExecutor.create(p);
    long end = System.nanoTime() + ms * 1_000_000L; List<Long> t = new ArrayList<>();
    while (System.nanoTime() < end) {
      long s = System.nanoTime();
      dev.gmp.bench.Workloads.nestedWaits(ex, 7, 50);
      t.add(System.nanoTime() - s);
    }
    List<Long> last = new ArrayList<>(t.subList(t.size() / 2, t.size())); Collections.sort(last);
    String st = ex instanceof dev.gmp.GmpExecutor g ? " threads=" + g.stats().peakThreads() + " steals=" + g.stats().steals() + " handoffs=" + g.stats().handoffs() : "";
    System.out.printf("%s p=%d ops=%d median=%d us p90=%d%s%n", a[0], p, t.size(), last.get(last.size() / 2) / 1000, last.get(last.size() * 9 / 10) / 1000, st);
    System.exit(0);
  }
}
