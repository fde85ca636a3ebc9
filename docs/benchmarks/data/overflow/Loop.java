import java.util.*;
import java.util.concurrent.*;
import dev.gmp.bench.Workloads;
public class Loop {
  public static void main(String[] a) throws Exception {
    String kind = a[0]; int p = Integer.parseInt(a[1]); long ms = Long.parseLong(a[2]); String w = a[3];
    ExecutorService ex = kind.equals("gmp") ? dev.gmp.GmpExecutor.create(p) : new ForkJoinPool(p);
    Runnable op = switch (w) {
      case "spawnLocal" -> () -> Workloads.spawnLocal(ex, 10_000);
      case "spawnLocal100k" -> () -> Workloads.spawnLocal(ex, 100_000);
      case "chains" -> () -> Workloads.chains(ex, 100, 1_000);
      case "futures" -> () -> Workloads.futureChains(ex, 2000, 20);
      case "spawnRemote" -> () -> Workloads.spawnRemote(ex, 10_000);
      case "actorPair" -> () -> Workloads.actorPair(ex, 20_000);
      default -> throw new IllegalArgumentException(w);
    };
    long end = System.nanoTime() + ms * 1_000_000L; List<Long> t = new ArrayList<>();
    while (System.nanoTime() < end) {
      long s = System.nanoTime();
      op.run();
      t.add(System.nanoTime() - s);
    }
    List<Long> last = new ArrayList<>(t.subList(t.size() / 2, t.size())); Collections.sort(last);
    String line = String.format("%s %s p=%d ops=%d median2=%d p90=%d", w, kind, p, t.size(), last.get(last.size() / 2) / 1000, last.get(last.size() * 9 / 10) / 1000);
    System.err.println(line); if (ex instanceof dev.gmp.GmpExecutor g) System.err.println(g.stats());
    System.exit(0);
  }
}
