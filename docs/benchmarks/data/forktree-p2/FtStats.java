import dev.gmp.*;
import dev.gmp.bench.*;
import java.util.concurrent.*;
public class FtStats { static final int D = Integer.getInteger("depth", 16);
  static long cpu() { return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime(); }
  public static void main(String[] a) throws Exception {
    int p = Integer.parseInt(a[0]); int ops = Integer.getInteger("ops", 300);
    ExecutorService ex = Execs.create(a.length > 1 ? a[1] : "gmp", p);
    long end = System.nanoTime() + 3_000_000_000L;
    while (System.nanoTime() < end) Workloads.forkTree(ex, D, 20);
    if (ex instanceof GmpExecutor g) {
      GmpStats s0 = g.stats();
      long c0 = cpu(); long t0 = System.nanoTime();
      for (int i = 0; i < ops; i++) Workloads.forkTree(ex, D, 20);
      long t = System.nanoTime() - t0; double cpuPerOp = (cpu() - c0) / 1e6 / ops;
      GmpStats s1 = g.stats();
      System.out.printf("p=%d per op: %.3f ms cpu %.3f ms tasks %.0f steals %.1f parks %.1f unparks %.1f handoffs %.1f retakes %.2f preempt %.2f sysmonWake %.2f%n", p, t/1e6/ops, cpuPerOp,
        (s1.completedTasks()-s0.completedTasks())/(double)ops, (s1.steals()-s0.steals())/(double)ops, (s1.parks()-s0.parks())/(double)ops, (s1.unparks()-s0.unparks())/(double)ops,
        (s1.handoffs()-s0.handoffs())/(double)ops, (s1.retakes()-s0.retakes())/(double)ops, (s1.preemptionRequests()-s0.preemptionRequests())/(double)ops, (s1.sysmonWakeups()-s0.sysmonWakeups())/(double)ops);
    } else {
      ForkJoinPool f = (ForkJoinPool) ex;
      long st0 = f.getStealCount(); long c0 = cpu(); long t0 = System.nanoTime();
      for (int i = 0; i < ops; i++) Workloads.forkTree(ex, D, 20);
      long t = System.nanoTime() - t0; double cpuPerOp = (cpu() - c0) / 1e6 / ops;
      System.out.printf("fjp p=%d per op: %.3f ms cpu %.3f ms steals %.1f%n", p, t/1e6/ops, cpuPerOp, (f.getStealCount()-st0)/(double)ops);
    }
    Execs.shutdown(ex);
  }
}
