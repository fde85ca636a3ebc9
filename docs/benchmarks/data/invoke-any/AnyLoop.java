import dev.gmp.GmpExecutor;
import java.util.*;
import java.util.concurrent.*;
/** invokeAny from a task: fast tasks (per-call cost) and a hedged pair (1 ms vs 20 ms sleeps). */
public class AnyLoop {
  public static void main(String[] a) throws Exception {
    int p = Integer.parseInt(a[1]); String mode = a[2];
    ExecutorService ex = a[0].equals("fjp") ? new ForkJoinPool(p) : GmpExecutor.create(p);
    List<Callable<Integer>> tasks = mode.equals("fast")
        ? List.of(() -> 1, () -> 2, () -> 3)
        : List.of(() -> { Thread.sleep(1); return 1; }, () -> { Thread.sleep(20); return 2; });
    int calls = mode.equals("fast") ? 20000 : 40;
    List<Double> r = new ArrayList<>();
    int[] got = new int[4];
    for (int round = 0; round < (mode.equals("fast") ? 10 : 3); round++) {
      long t0 = System.nanoTime();
      ex.submit(() -> { for (int i = 0; i < calls; i++) got[ex.invokeAny(tasks)]++; return null; }).get();
      r.add((System.nanoTime() - t0) / 1e3 / calls);
    }
    Collections.sort(r);
    String st = ex instanceof GmpExecutor g ? " threads=" + g.stats().peakThreads() : "";
    System.out.printf("%s p=%d %s median %.2f us/call (min %.2f max %.2f) answers=%s%s%n", a[0], p, mode, r.get(r.size() / 2), r.get(0), r.get(r.size() - 1), Arrays.toString(got), st);
    System.exit(0);
  }
}
