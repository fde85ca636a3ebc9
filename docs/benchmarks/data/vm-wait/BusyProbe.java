import java.util.concurrent.*;
import dev.gmp.GmpExecutor;
import dev.gmp.bench.Workloads;
public class BusyProbe {
  public static void main(String[] a) throws Exception {
    int p = Integer.parseInt(a[0]);
    GmpExecutor ex = GmpExecutor.builder().parallelism(p).build();
    long t0 = System.nanoTime();
    for (int i = 0; i < 60; i++) { Workloads.spawnLocal(ex, 10_000); Workloads.forkTree(ex, 12, 20); Workloads.cpuTasks(ex, 200, 20); }
    System.err.println("ms " + (System.nanoTime() - t0) / 1_000_000 + " " + ex.stats());
    ex.shutdown();
  }
}
