import dev.gmp.GmpExecutor;
import java.util.*;
import java.util.concurrent.*;
/** fib(n) as tasks: each node submits fib(n-1), computes fib(n-2) itself, then waits on the child (fork/compute/join). */
public class FibLoop {
  static ExecutorService ex;
  static int fib(int n) throws Exception {
    if (n < 2) return n;
    Future<Integer> f = ex.submit(() -> fib(n - 1));
    int b = fib(n - 2);
    return f.get() + b;
  }
  public static void main(String[] a) throws Exception {
    int p = Integer.parseInt(a[1]); long ms = Long.parseLong(a[2]); int n = Integer.parseInt(a[3]);
    ex = a[0].equals("fjp") ? new ForkJoinPool(p) : GmpExecutor.create(p);
    long end = System.nanoTime() + ms * 1_000_000L; List<Long> t = new ArrayList<>();
    while (System.nanoTime() < end) {
      long s = System.nanoTime();
      int r = ex.submit(() -> fib(n)).get();
      t.add(System.nanoTime() - s);
      if (r < 0) throw new AssertionError();
    }
    List<Long> last = new ArrayList<>(t.subList(t.size() / 2, t.size())); Collections.sort(last);
    List<Long> first = t.subList(0, Math.min(30, t.size())); long sum = 0; for (long x : first) sum += x;
    System.out.printf("%s p=%d fib(%d) ops=%d first30 sum=%.1f ms, warm median=%.0f us%n", a[0], p, n, t.size(), sum / 1e6, last.get(last.size() / 2) / 1e3);
    System.exit(0);
  }
}
