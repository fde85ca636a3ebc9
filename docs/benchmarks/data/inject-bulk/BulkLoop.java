import java.util.*;
import java.util.concurrent.*;
public class BulkLoop {
  public static void main(String[] a) throws Exception {
    String w = a[0]; int p = Integer.parseInt(a[1]); long ms = Long.parseLong(a[2]);
    dev.gmp.GmpExecutor ex = dev.gmp.GmpExecutor.create(p);
    long end = System.nanoTime() + ms * 1_000_000L; List<Long> t = new ArrayList<>();
    long cpu0 = 0; dev.gmp.GmpStats s0 = null; int half = -1;
    java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    while (System.nanoTime() < end) {
      if (s0 == null && System.nanoTime() > end - ms * 500_000L) { s0 = ex.stats(); cpu0 = ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime(); half = t.size(); }
      long s = System.nanoTime();
      if (w.equals("submitGet")) dev.gmp.bench.Workloads.submitGet(ex, 20_000); else dev.gmp.bench.Workloads.spawnRemote(ex, 20_000);
      t.add(System.nanoTime() - s);
    }
    dev.gmp.GmpStats s1 = ex.stats(); long cpu1 = ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
    int n = t.size() - half;
    List<Long> last = new ArrayList<>(t.subList(half, t.size())); Collections.sort(last);
    System.out.printf("%s p=%d ops=%d median=%d us p90=%d us cpu/op=%d us parks/op=%.1f unparks/op=%.1f steals/op=%.1f%n", w, p, n, last.get(n / 2) / 1000, last.get(n * 9 / 10) / 1000, (cpu1 - cpu0) / n / 1000, (s1.parks() - s0.parks()) / (double) n, (s1.unparks() - s0.unparks()) / (double) n, (s1.steals() - s0.steals()) / (double) n);
    System.exit(0);
  }
}
