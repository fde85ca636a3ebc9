import dev.gmp.*;
import dev.gmp.bench.Workloads;
import java.util.concurrent.*;
public class FtProbe {
  public static void main(String[] a) throws Exception {
    int p = Integer.parseInt(a[0]);
    GmpExecutor ex = GmpExecutor.create(p);
    int[] maxG = {0}, maxL = {0}; long[] samples = {0}, nonzero = {0};
    Thread s = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        GmpStats st = ex.stats();
        maxG[0] = Math.max(maxG[0], st.globalQueueLength());
        maxL[0] = Math.max(maxL[0], st.localQueueLength());
        samples[0]++; if (st.globalQueueLength() > 0) nonzero[0]++;
        try { Thread.sleep(0, 200_000); } catch (InterruptedException e) { return; }
      }
    });
    s.setDaemon(true); s.start();
    for (int i = 0; i < 60; i++) Workloads.forkTree(ex, 16, 20);
    s.interrupt(); s.join();
    GmpStats st = ex.stats();
    System.out.printf("p=%d maxGlobal=%d maxLocal=%d samplesWithGlobal=%d/%d steals=%d parks=%d completed=%d%n", p, maxG[0], maxL[0], nonzero[0], samples[0], st.steals(), st.parks(), st.completedTasks());
    ex.shutdown();
  }
}
