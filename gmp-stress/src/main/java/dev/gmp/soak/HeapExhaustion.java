package dev.gmp.soak;

import dev.gmp.GmpExecutor;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The heap runs out again and again while tasks spawn tasks and an outside thread submits: does
 * the executor lose an accepted task, or fail to terminate? (docs/stress.md, item 10.) Each run
 * is a fresh JVM with a 64 MB heap: two tasks that each spawn 500 tasks and then themselves
 * again, an outside thread submitting, and a thread that fills the heap with 1 MB arrays, lets
 * go half a second after the first {@code OutOfMemoryError}, and starts over, for 8 s. Then the
 * load stops, the heap is freed, every accepted task must have run and the executor must still
 * run a task and terminate. Where the heap runs out is up to the collector, so a run that passes
 * proves little and a tally over many runs is the measure. ForkJoinPool and a fixed
 * ThreadPoolExecutor can run the same load for comparison.
 *
 * <pre>
 * java -cp gmp-stress/target/jcstress.jar dev.gmp.soak.HeapExhaustion [runs] [gmp|fjp|tpe]
 * </pre>
 *
 * Prints a line per run and a tally; exits 1 if any run lost a task or did not terminate.
 */
public final class HeapExhaustion {
  private static final long LOAD_NANOS = TimeUnit.SECONDS.toNanos(8);

  private HeapExhaustion() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("--child")) {
      child(args.length > 1 ? args[1] : "gmp");
      return;
    }
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    String kind = args.length > 1 ? args[1] : "gmp";
    if (!List.of("gmp", "fjp", "tpe").contains(kind)) {
      throw new IllegalArgumentException("executor must be gmp, fjp or tpe: " + kind);
    }
    int lost = 0;
    int hung = 0;
    int noResult = 0;
    for (int i = 1; i <= runs; i++) {
      String result = runChild(kind);
      if (!result.startsWith("accepted=")) {
        noResult++; // the probe's own thread failed (the JVM's), not the executor
      } else {
        lost += result.contains(" lost=0 ") ? 0 : 1;
        hung += result.contains(" terminated=true") ? 0 : 1;
      }
      System.out.println("run " + i + ": " + result);
    }
    System.out.printf("%s: %d runs, %d lost accepted tasks, %d did not terminate, %d gave no"
        + " result%n", kind, runs, lost, hung, noResult);
    System.exit(lost + hung == 0 ? 0 : 1);
  }

  /** One run in a fresh JVM; its result line, or why there is none. */
  private static String runChild(String kind) throws IOException, InterruptedException {
    String java = System.getProperty("java.home") + File.separator + "bin" + File.separator
        + "java";
    List<String> cmd = new ArrayList<>(List.of(java, "-Xmx64m", "-cp",
        System.getProperty("java.class.path"), HeapExhaustion.class.getName(), "--child", kind));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String result = null;
    StringBuilder all = new StringBuilder(); // printed with a failed run's result
    try (BufferedReader r = new BufferedReader(
        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        if (line.startsWith("result ")) {
          result = line.substring("result ".length());
        } else {
          all.append("\n  ").append(line);
        }
      }
    }
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      result = "the child JVM did not exit";
    }
    if (result == null) {
      result = "no result (exit status " + p.exitValue() + ")";
    }
    boolean failed = !result.contains(" lost=0 ") || !result.contains(" terminated=true");
    return failed ? result + all : result;
  }

  private static void child(String kind) throws Exception {
    ExecutorService ex = switch (kind) {
      case "gmp" -> GmpExecutor.create(2);
      case "fjp" -> new ForkJoinPool(2);
      default -> Executors.newFixedThreadPool(2);
    };
    AtomicLong accepted = new AtomicLong();
    AtomicLong ran = new AtomicLong();
    AtomicLong refused = new AtomicLong(); // execute threw: not accepted (it may run anyway)
    AtomicBoolean stop = new AtomicBoolean();
    // Made now: a lambda linked after the heap ran out can fail for good (the JDK's classes for
    // linking it may have failed to initialise), which is the JVM's trouble, not the executor's.
    Callable<Integer> answer = () -> 42;
    long end = System.nanoTime() + LOAD_NANOS;
    Runnable leaf = () -> {
      ran.incrementAndGet();
      try {
        long[] x = new long[64];
        x[0]++;
      } catch (OutOfMemoryError e) {
        // the task's own error: it ran
      }
    };
    Runnable spawner = new Runnable() {
      @Override
      public void run() {
        for (int i = 0; i < 500; i++) {
          try {
            ex.execute(leaf);
            accepted.incrementAndGet();
          } catch (RejectedExecutionException e) {
            break;
          } catch (Throwable e) {
            refused.incrementAndGet();
          }
        }
        if (!stop.get()) {
          try {
            ex.execute(this);
          } catch (Throwable e) {
            // this spawner stops
          }
        }
      }
    };
    for (int i = 0; i < 2; i++) {
      ex.execute(spawner);
    }
    List<byte[]> hog = new ArrayList<>();
    Thread filler = new Thread(() -> {
      while (System.nanoTime() < end) {
        try {
          hog.add(new byte[1 << 20]);
        } catch (OutOfMemoryError e) {
          try {
            Thread.sleep(500);
          } catch (InterruptedException ie) {
            return;
          }
          hog.clear();
        }
      }
      hog.clear();
    }, "heap-filler");
    filler.start();
    while (System.nanoTime() < end) {
      try {
        ex.execute(leaf);
        accepted.incrementAndGet();
      } catch (Throwable e) {
        refused.incrementAndGet();
      }
      if ((accepted.get() & 1023) == 0) {
        try {
          Thread.sleep(1);
        } catch (OutOfMemoryError e) {
          // the JDK's sleep can allocate too: this thread goes on
        }
      }
    }
    filler.join();
    stop.set(true);
    // Every accepted task runs, or this run reports what is missing after 20 s.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (ran.get() < accepted.get() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    String after;
    try {
      after = String.valueOf(ex.submit(answer).get(10, TimeUnit.SECONDS));
    } catch (Throwable e) {
      after = e.toString();
    }
    ex.shutdown();
    boolean terminated = ex.awaitTermination(20, TimeUnit.SECONDS);
    long lost = Math.max(0, accepted.get() - ran.get());
    // A StringBuilder, not +: a string concatenation linked now fails for good in a JVM where
    // the heap ran out while the JDK initialised the classes that linking needs.
    StringBuilder b = new StringBuilder("result accepted=").append(accepted.get())
        .append(" ran=").append(ran.get()).append(" lost=").append(lost)
        .append(" refused=").append(refused.get()).append(" after=").append(after)
        .append(" terminated=").append(terminated);
    System.out.println(b);
    if (!terminated && ex instanceof GmpExecutor g) {
      System.out.println(g.dump());
    }
    System.exit(0);
  }
}
