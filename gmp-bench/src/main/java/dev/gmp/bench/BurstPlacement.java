package dev.gmp.bench;

import java.lang.invoke.MethodHandle;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;

/**
 * Not a benchmark: where the tasks of {@link WakeupProbe}'s burst ran, to explain its p99. The
 * same burst (1 ms idle, then 10 tasks 50 us apart from one spinning thread); each task records
 * its start time and the CPU it ran on, the submitter records its own CPU after each submission.
 * Prints submit-to-start p50/p90/p99 for tasks 0, 1, 2 and 9 of each burst, split by whether the
 * task ran on the submitter's CPU (the woken thread preempted the spinning submitter) or on
 * another (the woken thread waited for an idle CPU to wake, or for the kernel to move it there).
 * Usage:
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp gmp-bench/target/benchmarks.jar \
 *     dev.gmp.bench.BurstPlacement [executor] [parallelism] [seconds]
 * </pre>
 *
 * Linux with JDK 22 or later only: the CPU number comes from glibc's {@code sched_getcpu} through
 * the foreign-function API, looked up reflectively because this module compiles for Java 21 (where
 * that API is a preview). The first half of {@code seconds} is warm-up.
 */
public final class BurstPlacement {
  private BurstPlacement() {}

  private static final MethodHandle GETCPU = getcpu();

  public static void main(String[] args) throws Exception {
    String executor = args.length > 0 ? args[0] : "gmp";
    int p = args.length > 1 ? Integer.parseInt(args[1]) : 2;
    double seconds = args.length > 2 ? Double.parseDouble(args[2]) : 4;
    int burst = WakeupProbe.BURST;
    List<long[]> rows = new ArrayList<>(); // {index, latency ns, same CPU 0/1}
    ExecutorService ex = Execs.create(executor, p);
    try {
      long warmEnd = System.nanoTime() + (long) (seconds * 0.5e9);
      long end = warmEnd + (long) (seconds * 0.5e9);
      while (System.nanoTime() < end) {
        boolean measured = System.nanoTime() > warmEnd;
        long[] submitted = new long[burst];
        long[] started = new long[burst];
        int[] taskCpu = new int[burst];
        int[] submitterCpu = new int[burst];
        WakeupProbe.burst(
            ex, submitted, started, k -> taskCpu[k] = cpu(), k -> submitterCpu[k] = cpu());
        for (int i = 0; measured && i < burst; i++) {
          rows.add(new long[] {i, started[i] - submitted[i], taskCpu[i] == submitterCpu[i] ? 1 : 0});
        }
      }
    } finally {
      Execs.shutdown(ex);
    }
    long[] all = rows.stream().mapToLong(r -> r[1]).sorted().toArray();
    System.out.printf(
        Locale.ROOT, "%s p=%d tasks=%d p50us=%.1f p90us=%.1f p99us=%.1f%n", executor, p,
        all.length, pct(all, 0.5), pct(all, 0.9), pct(all, 0.99));
    for (int k : new int[] {0, 1, 2, burst - 1}) {
      for (int same = 1; same >= 0; same--) {
        List<Long> v = new ArrayList<>();
        for (long[] r : rows) {
          if (r[0] == k && r[2] == same) {
            v.add(r[1]);
          }
        }
        if (v.isEmpty()) {
          continue;
        }
        Collections.sort(v);
        long[] a = v.stream().mapToLong(Long::longValue).toArray();
        System.out.printf(
            Locale.ROOT, "  task %d on %s CPU: %4.0f%% of bursts, p50us=%.1f p90us=%.1f p99us=%.1f%n",
            k, same == 1 ? "the submitter's" : "another", 100.0 * a.length * burst / rows.size(),
            pct(a, 0.5), pct(a, 0.9), pct(a, 0.99));
      }
    }
  }

  private static double pct(long[] sorted, double q) {
    return sorted[Math.min(sorted.length - 1, (int) (sorted.length * q))] / 1e3;
  }

  private static int cpu() {
    try {
      return (int) GETCPU.invokeExact();
    } catch (Throwable e) {
      throw new IllegalStateException("sched_getcpu failed", e);
    }
  }

  /** {@code sched_getcpu} as a ()int handle, built with the FFM API by reflection (see above). */
  private static MethodHandle getcpu() {
    try {
      Class<?> linkerClass = Class.forName("java.lang.foreign.Linker");
      Class<?> descClass = Class.forName("java.lang.foreign.FunctionDescriptor");
      Class<?> layoutClass = Class.forName("java.lang.foreign.MemoryLayout");
      Class<?> segmentClass = Class.forName("java.lang.foreign.MemorySegment");
      Class<?> optionClass = Class.forName("java.lang.foreign.Linker$Option");
      Object linker = linkerClass.getMethod("nativeLinker").invoke(null);
      Object lookup = linkerClass.getMethod("defaultLookup").invoke(linker);
      Class<?> lookupClass = Class.forName("java.lang.foreign.SymbolLookup");
      Object found = lookupClass.getMethod("find", String.class).invoke(lookup, "sched_getcpu");
      Object symbol = ((java.util.Optional<?>) found).orElseThrow();
      Object jint = Class.forName("java.lang.foreign.ValueLayout").getField("JAVA_INT").get(null);
      Object noArgs = Array.newInstance(layoutClass, 0);
      Method of = descClass.getMethod("of", layoutClass, noArgs.getClass());
      Object desc = of.invoke(null, jint, noArgs);
      Method downcall =
          linkerClass.getMethod(
              "downcallHandle", segmentClass, descClass, Array.newInstance(optionClass, 0).getClass());
      return (MethodHandle) downcall.invoke(linker, symbol, desc, Array.newInstance(optionClass, 0));
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IllegalStateException(
          "BurstPlacement needs Linux and JDK 22+ (sched_getcpu through java.lang.foreign): " + e, e);
    }
  }
}
