package dev.gmp.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;

/**
 * One fresh JVM's view of an executor: builds it, runs one workload operation after operation and
 * prints each operation's time. {@link ThreeViews} launches it many times, gmp and ForkJoinPool
 * interleaved, and turns the output into ratios.
 *
 * <pre>
 *   ShortRuns run WORKLOAD EXECUTOR PARALLELISM [OPS [WARM_MS STEADY_OPS]]
 *       operations 1..OPS (phase "short"), then more operations, untimed, until WARM_MS have
 *       passed since the first, then STEADY_OPS timed ones (phase "steady"; 0: none).
 *       Prints CSV: phase,op,metric,ns (one line per operation and metric).
 *   ShortRuns jit EXECUTOR PARALLELISM
 *       the cold job of the JIT view: build the executor, 100 x (10k local spawns, a 1,000-hop
 *       chain, a 2^12 fork tree), shut down (run it with -XX:+CITime).
 *   ShortRuns burn THREADS
 *       a CPU burner: THREADS busy-looping threads until stdin closes (the busy-machine view).
 *   ShortRuns list
 *       the workloads and their metrics.
 * </pre>
 */
public final class ShortRuns {
  private ShortRuns() {}

  /** One operation; returns its metrics in ns ({@code null}: the harness times the call). */
  interface Op {
    long[] run(ExecutorService ex);
  }

  record Workload(String name, String what, List<String> metrics, Op op) {}

  private static Workload timed(
      String name, String what, java.util.function.Consumer<ExecutorService> body) {
    return new Workload(
        name,
        what,
        List.of("time"),
        ex -> {
          body.accept(ex);
          return null;
        });
  }

  /**
   * The workloads, each sized so that one warm operation takes about 1-20 ms on 2 shared CPUs at
   * parallelism 2 (the outside spawns are half of issue 27's 100k, the actor pair's messages a
   * quarter of its 200k: at those sizes one operation took 16-33 and 80-100 ms here).
   */
  static final Map<String, Workload> WORKLOADS = new LinkedHashMap<>();

  static {
    for (Workload w :
        List.of(
            timed("spawnLocal", "10k spawns from one task", ex -> Workloads.spawnLocal(ex, 10_000)),
            timed(
                "spawnRemote",
                "50k tasks from one outside thread",
                ex -> Workloads.spawnRemote(ex, 50_000)),
            timed(
                "submitGet",
                "20k submits from one outside thread, then a get on each future",
                ex -> Workloads.submitGet(ex, 20_000)),
            timed("chains", "100 chains of 1,000 spawns", ex -> Workloads.chains(ex, 100, 1_000)),
            timed(
                "actorPair", "an actor pair, 50k messages", ex -> Workloads.actorPair(ex, 50_000)),
            timed(
                "forkTree",
                "fork tree, 2^16 leaves, counters (no joins)",
                ex -> Workloads.forkTree(ex, 16, ForkJoinTree.LEAF_TOKENS)),
            timed(
                "cpuTasks",
                "2,000 tasks of 20 us from one task",
                ex -> Workloads.cpuTasks(ex, 2_000, 20)),
            timed(
                "futures",
                "2,000 CompletableFuture chains x 20 thenApplyAsync",
                ex -> Workloads.futureChains(ex, 2_000, 20)),
            timed(
                "nestedWaits",
                "tree of depth 7, tasks wait on children's futures, 50 us leaves",
                ex -> Workloads.nestedWaits(ex, 7, 50)),
            timed(
                "timers",
                "4 tasks x 10,000 schedule + cancel of a 1 s timer",
                ex -> Workloads.scheduleCancel(ex, 4, 10_000)),
            new Workload(
                "burst",
                "100 outside submissions to an idle executor: submit-to-start",
                List.of("p50", "p99"),
                ex -> Workloads.burst(ex, 100, 5)))) {
      WORKLOADS.put(w.name(), w);
    }
  }

  public static void main(String[] args) throws Exception {
    String cmd = args.length > 0 ? args[0] : "help";
    switch (cmd) {
      case "run" -> run(args);
      case "jit" -> jit(args[1], Integer.parseInt(args[2]));
      case "burn" -> burn(Integer.parseInt(args[1]));
      case "list" ->
          WORKLOADS
              .values()
              .forEach(
                  w ->
                      System.out.println(
                          w.name() + "\t" + String.join(",", w.metrics()) + "\t" + w.what()));
      default -> {
        System.err.println(
            "usage: ShortRuns run WORKLOAD EXECUTOR P [OPS [WARM_MS STEADY_OPS]]"
                + " | jit EXECUTOR P | burn THREADS | list");
        System.exit(2);
      }
    }
  }

  private static void run(String[] args) {
    Workload w = WORKLOADS.get(args[1]);
    if (w == null) {
      throw new IllegalArgumentException("unknown workload " + args[1] + ": " + WORKLOADS.keySet());
    }
    String executor = args[2];
    int p = Integer.parseInt(args[3]);
    int ops = args.length > 4 ? Integer.parseInt(args[4]) : 30;
    long warmMs = args.length > 5 ? Long.parseLong(args[5]) : 0;
    int steadyOps = args.length > 6 ? Integer.parseInt(args[6]) : 0;
    // Which gmp-core this JVM runs (ThreeViews checks it when it points at another build).
    System.out.println(
        "# core " + dev.gmp.GmpExecutor.class.getProtectionDomain().getCodeSource().getLocation());
    StringBuilder out = new StringBuilder("phase,op,metric,ns\n");
    ExecutorService ex = Execs.create(executor, p);
    long start = System.nanoTime();
    try {
      for (int i = 1; i <= ops; i++) {
        record(out, "short", i, w, ex);
      }
      if (steadyOps > 0) {
        long warmEnd = start + warmMs * 1_000_000;
        while (System.nanoTime() - warmEnd < 0) {
          w.op().run(ex);
        }
        for (int i = 1; i <= steadyOps; i++) {
          record(out, "steady", i, w, ex);
        }
      }
    } finally {
      Execs.shutdown(ex);
    }
    System.out.print(out);
  }

  private static void record(
      StringBuilder out, String phase, int i, Workload w, ExecutorService ex) {
    long t0 = System.nanoTime();
    long[] m = w.op().run(ex);
    long t = System.nanoTime() - t0;
    if (m == null) {
      m = new long[] {t};
    }
    for (int k = 0; k < m.length; k++) {
      out.append(phase)
          .append(',')
          .append(i)
          .append(',')
          .append(w.metrics().get(k))
          .append(',')
          .append(m[k])
          .append('\n');
    }
  }

  /** The JIT view's cold job: what a short-lived program does once. */
  private static void jit(String executor, int p) {
    ExecutorService ex = Execs.create(executor, p);
    try {
      for (int i = 0; i < 100; i++) {
        Workloads.spawnLocal(ex, 10_000);
        Workloads.chains(ex, 1, 1_000);
        Workloads.forkTree(ex, 12, ForkJoinTree.LEAF_TOKENS);
      }
    } finally {
      Execs.shutdown(ex);
    }
  }

  /** Busy-loops on {@code threads} threads until stdin reaches its end (the parent is gone). */
  private static void burn(int threads) throws Exception {
    List<Thread> all = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      Thread t =
          new Thread(
              () -> {
                long x = 0;
                while (true) {
                  x = x * 6364136223846793005L + 1442695040888963407L;
                  if (x == 42) {
                    System.out.print(""); // keeps the loop from being removed
                  }
                }
              },
              "burn-" + i);
      t.setDaemon(true);
      t.start();
      all.add(t);
    }
    while (System.in.read() >= 0) {
      // wait for EOF
    }
    System.exit(0);
  }
}
