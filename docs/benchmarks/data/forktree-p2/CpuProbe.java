import dev.gmp.bench.*;
import java.lang.management.*;
import java.util.concurrent.*;
public class CpuProbe {
  static long cpu() { return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime(); }
  static long threadCpu(String part) { ThreadMXBean tb = ManagementFactory.getThreadMXBean(); long s = 0;
    for (ThreadInfo ti : tb.getThreadInfo(tb.getAllThreadIds())) if (ti != null && ti.getThreadName().toLowerCase().contains(part)) s += tb.getThreadCpuTime(ti.getThreadId()); return s; }
  static final String W = System.getProperty("w", "cpuTasks");
  static void op(ExecutorService ex) { switch (W) { case "forkTree" -> Workloads.forkTree(ex, 16, 20); case "spawnLocal" -> Workloads.spawnLocal(ex, 100_000); default -> Workloads.cpuTasks(ex, 2000, 20); } }
  public static void main(String[] a) throws Exception {
    String exec = a[0]; int p = Integer.parseInt(a[1]); int ops = Integer.parseInt(a[2]);
    ExecutorService ex = Execs.create(exec, p);
    long end = System.nanoTime() + 3_000_000_000L;
    while (System.nanoTime() < end) op(ex);
    long[] t = new long[ops];
    long c0 = cpu(), s0 = threadCpu("sysmon");
    for (int i = 0; i < ops; i++) { long t0 = System.nanoTime(); op(ex); t[i] = System.nanoTime() - t0; }
    long c1 = cpu(), s1 = threadCpu("sysmon");
    java.util.Arrays.sort(t);
    System.out.printf("%s p=%d: mean %.3f median %.3f ms (p10 %.3f p90 %.3f) cpu/op %.3f ms sysmon cpu/op %.3f ms%n", exec, p, java.util.Arrays.stream(t).average().getAsDouble()/1e6, t[ops/2]/1e6, t[ops/10]/1e6, t[ops*9/10]/1e6, (c1-c0)/1e6/ops, (s1-s0)/1e6/ops);
    if (Boolean.getBoolean("threads")) { ThreadMXBean tb = ManagementFactory.getThreadMXBean(); for (ThreadInfo ti : tb.getThreadInfo(tb.getAllThreadIds())) if (ti != null) System.out.println("  " + ti.getThreadName()); }
    Execs.shutdown(ex);
  }
}
