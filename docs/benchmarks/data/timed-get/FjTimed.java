import java.util.*;
import java.util.concurrent.*;
public class FjTimed {
  public static void main(String[] a) throws Exception {
    ForkJoinPool p = new ForkJoinPool(1);
    System.out.println("timed get: " + p.submit(() -> { Future<String> f = p.submit(() -> Thread.currentThread().getName()); return Thread.currentThread().getName() + " / child on " + f.get(1, TimeUnit.SECONDS); }).get());
    System.out.println("timed invokeAll: " + p.submit(() -> { List<String> r = new ArrayList<>(); for (Future<String> f : p.invokeAll(List.<Callable<String>>of(() -> Thread.currentThread().getName(), () -> Thread.currentThread().getName()), 1, TimeUnit.SECONDS)) r.add(f.get()); return Thread.currentThread().getName() + " / " + r; }).get());
    System.out.println("untimed get: " + p.submit(() -> { Future<String> f = p.submit(() -> Thread.currentThread().getName()); return Thread.currentThread().getName() + " / child on " + f.get(); }).get());
    System.out.println("pool size after: " + p.getPoolSize());
    // a long child with a short timed get: does it overshoot?
    long t0 = System.nanoTime();
    String r = p.submit(() -> { Future<String> f = p.submit(() -> { Thread.sleep(300); return "slow"; }); try { return f.get(50, TimeUnit.MILLISECONDS); } catch (TimeoutException e) { return "timeout"; } }).get();
    System.out.printf("slow child, 50 ms timed get: %s after %d ms%n", r, (System.nanoTime() - t0) / 1_000_000);
  }
}
