package dev.gmp.bench;

import dev.gmp.GmpExecutor;
import dev.gmp.GmpStats;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;

/**
 * Not a benchmark: runs a workload of the suite outside JMH and prints what the scheduler did per
 * operation (gmp's {@link GmpStats} deltas: steals, parks, unparks, sysmon rounds; ForkJoinPool's
 * steal count), to explain a result. Usage:
 *
 * <pre>
 * java -cp gmp-bench/target/benchmarks.jar dev.gmp.bench.Diagnose WORKLOAD [executor] [parallelism] [seconds]
 * </pre>
 *
 * WORKLOAD is one of chained_spawn, spawn_many_local, spawn_many_remote_idle, ping_pong,
 * yield_many, singlePingPong, forkJoinTree, CreateGoroutines, CreateGoroutinesParallel. Ablation
 * switches work as usual (-Dgmp.runnext=false).
 */
public final class Diagnose {
  private Diagnose() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: Diagnose WORKLOAD [executor=gmp] [parallelism=2] [seconds=3]");
      System.exit(2);
    }
    String workload = args[0];
    String executor = args.length > 1 ? args[1] : "gmp";
    int p = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    double seconds = args.length > 3 ? Double.parseDouble(args[3]) : 3;

    TokioRt rt = new TokioRt();
    rt.executor = executor;
    rt.parallelism = p;
    KotlinActors ka = new KotlinActors();
    ForkJoinTree fj = new ForkJoinTree();
    fj.depth = 14;
    GoProc go = new GoProc();
    go.parallelism = p;
    Map<String, Runnable> ops = new LinkedHashMap<>();
    ops.put("chained_spawn", rt::chained_spawn);
    ops.put("spawn_many_local", rt::spawn_many_local);
    ops.put("spawn_many_remote_idle", rt::spawn_many_remote_idle);
    ops.put("ping_pong", rt::ping_pong);
    ops.put("yield_many", rt::yield_many);
    ops.put("singlePingPong", ka::singlePingPong);
    ops.put("forkJoinTree", fj::forkJoinTree);
    ops.put("CreateGoroutines", go::CreateGoroutines);
    ops.put("CreateGoroutinesParallel", go::CreateGoroutinesParallel);
    Runnable op = ops.get(workload);
    if (op == null) {
      System.err.println("unknown workload " + workload + "; one of " + ops.keySet());
      System.exit(2);
    }
    ExecutorService ex = Execs.create(executor, p);
    rt.exec = ex;
    ka.exec = ex;
    fj.exec = ex;
    go.exec = ex;
    try {
      // warm-up: as long as the measurement
      long end = System.nanoTime() + (long) (seconds * 1e9);
      while (System.nanoTime() < end) {
        op.run();
      }
      GmpStats s0 = ex instanceof GmpExecutor g ? g.stats() : null;
      long fs0 = ex instanceof ForkJoinPool f ? f.getStealCount() : 0;
      long n = 0;
      long t0 = System.nanoTime();
      end = t0 + (long) (seconds * 1e9);
      while (System.nanoTime() < end) {
        op.run();
        n++;
      }
      long t1 = System.nanoTime();
      System.out.printf(
          Locale.ROOT,
          "%s on %s, parallelism %d: %d ops, %.1f us/op%n",
          workload,
          executor,
          p,
          n,
          (t1 - t0) / 1e3 / n);
      if (s0 != null) {
        GmpStats s1 = ((GmpExecutor) ex).stats();
        System.out.printf(
            Locale.ROOT,
            "per op: tasks %.0f, steals %.1f, parks %.1f, unparks %.1f, handoffs %.2f,"
                + " retakes %.2f, preemptions %.2f, sysmon rounds %.2f; threads %d%n",
            (s1.completedTasks() - s0.completedTasks()) / (double) n,
            (s1.steals() - s0.steals()) / (double) n,
            (s1.parks() - s0.parks()) / (double) n,
            (s1.unparks() - s0.unparks()) / (double) n,
            (s1.handoffs() - s0.handoffs()) / (double) n,
            (s1.retakes() - s0.retakes()) / (double) n,
            (s1.preemptionRequests() - s0.preemptionRequests()) / (double) n,
            (s1.sysmonWakeups() - s0.sysmonWakeups()) / (double) n,
            s1.threads());
      }
      if (ex instanceof ForkJoinPool f) {
        System.out.printf(
            Locale.ROOT, "per op: steals %.1f%n", (f.getStealCount() - fs0) / (double) n);
      }
    } finally {
      Execs.shutdown(ex);
    }
  }
}
