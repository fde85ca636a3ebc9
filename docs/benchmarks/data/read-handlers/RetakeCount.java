import dev.gmp.GmpExecutor;
import dev.gmp.bench.Workloads;

/** A fresh JVM's first 30 operations of a workload at p=2: how many Ps the detector retook. */
public class RetakeCount {
  public static void main(String[] a) throws Exception {
    String w = a[0];
    int p = Integer.parseInt(a[1]);
    GmpExecutor ex = GmpExecutor.create(p);
    long t0 = System.nanoTime();
    for (int i = 0; i < 30; i++) {
      switch (w) {
        case "spawnLocal" -> Workloads.spawnLocal(ex, 10_000);
        case "forkTree" -> Workloads.forkTree(ex, 16, 50);
        case "chains" -> Workloads.chains(ex, 100, 1_000);
        case "cpuTasks" -> Workloads.cpuTasks(ex, 2_000, 20);
        case "futures" -> Workloads.futureChains(ex, 2_000, 20);
        default -> throw new IllegalArgumentException(w);
      }
    }
    long ms = (System.nanoTime() - t0) / 1_000_000;
    String d = ex.dump();
    int i = d.indexOf(" blockretakes=");
    String br = i < 0 ? "?" : d.substring(i + 14, d.indexOf(' ', i + 14));
    System.out.println(w + " p=" + p + " ms=" + ms + " retakes=" + ex.stats().retakes() + " blockretakes=" + br + " threads=" + ex.stats().peakThreads());
    ex.shutdown();
  }
}
