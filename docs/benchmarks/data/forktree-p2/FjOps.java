import dev.gmp.bench.*;
import java.lang.management.*;
import java.util.*;
import java.util.concurrent.*;
public class FjOps {
  public static void main(String[] a) throws Exception {
    String e = a[0]; int p = Integer.parseInt(a[1]); int ops = Integer.parseInt(a[2]); String prefix = e.equals("fjp") ? "ForkJoinPool" : "gmp-";
    ExecutorService ex = Execs.create(e, p);
    ThreadMXBean tb = ManagementFactory.getThreadMXBean();
    long end = System.nanoTime() + 3_000_000_000L;
    while (System.nanoTime() < end) Workloads.forkTree(ex, 16, 20);
    List<Thread> ws = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) if (t.getName().startsWith(prefix) && !t.getName().contains("sysmon")) ws.add(t);
    int lopsided = 0; double[] util = new double[ops]; double[] times = new double[ops]; double lopT = 0;
    for (int i = 0; i < ops; i++) {
      long[] c0 = new long[ws.size()]; for (int k = 0; k < c0.length; k++) c0[k] = tb.getThreadCpuTime(ws.get(k).threadId());
      long t0 = System.nanoTime(); Workloads.forkTree(ex, 16, 20); long t = System.nanoTime() - t0; times[i] = t / 1e6;
      long[] d = new long[ws.size()]; for (int k = 0; k < d.length; k++) d[k] = tb.getThreadCpuTime(ws.get(k).threadId()) - c0[k];
      long sum = 0; for (long x : d) sum += x; util[i] = sum / (double) t; Arrays.sort(d); long top = d[d.length - 1], second = d.length > 1 ? d[d.length - 2] : 0;
      if (second < top / 5) { lopsided++; lopT += t / 1e6; }
    }
    Arrays.sort(times);
    System.out.printf("%s p=%d: %d threads, median %.2f ms, p90 %.2f; ops with one worker doing >83%% of the CPU: %d of %d (mean %.2f ms)%n", e, p, ws.size(), times[ops/2], times[ops*9/10], lopsided, ops, lopsided == 0 ? 0 : lopT / lopsided);
    int low = 0; for (int i = 0; i < ops; i++) { if (util[i] < 1.5) { low++; } }
    double[] u = util.clone(); Arrays.sort(u);
    System.out.printf("   utilization (worker CPU / wall): p10 %.2f median %.2f p90 %.2f; ops under 1.5: %d%n", u[ops/10], u[ops/2], u[ops*9/10], low);
    Execs.shutdown(ex);
  }
}
