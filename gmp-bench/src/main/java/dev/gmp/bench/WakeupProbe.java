package dev.gmp.bench;

import dev.gmp.GmpExecutor;
import dev.gmp.GmpStats;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

/**
 * Not a benchmark: the outside-submission paths of one executor in one JVM, with what the
 * scheduler did per task, to explain Latency's burst mode and spawnRemote. Usage:
 *
 * <pre>
 * java -cp gmp-bench/target/benchmarks.jar dev.gmp.bench.WakeupProbe MODE [executor] [parallelism] [seconds]
 * </pre>
 *
 * MODE {@code burst}: Latency's burst (1 ms idle, then 10 tasks 50 us apart, paced by spinning),
 * printing submit-to-start p50/p99 over the measured half, CPU per task of the executor's threads
 * (every Java thread but the submitter, so the pacing spin is left out) and the submitter's own.
 * MODE {@code remote}: 100,000 tasks from the calling thread, time per operation. Both print gmp's
 * parks, unparks and sysmon rounds per task. The first half of {@code seconds} is warm-up.
 */
public final class WakeupProbe {
  private WakeupProbe() {}

  static final long INTERVAL_NS = 50_000;
  static final int BURST = 10;
  static final long GAP_NS = 1_000_000;
  static final int REMOTE = 100_000;

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    String executor = args.length > 1 ? args[1] : "gmp";
    int p = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    double seconds = args.length > 3 ? Double.parseDouble(args[3]) : 4;
    ExecutorService ex = Execs.create(executor, p);
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    try {
      long warmEnd = System.nanoTime() + (long) (seconds * 0.5e9);
      while (System.nanoTime() < warmEnd) {
        op(mode, ex, null);
      }
      GmpStats s0 = ex instanceof GmpExecutor g ? g.stats() : null;
      CpuClock.ThreadSnapshot cpu0 = new CpuClock.ThreadSnapshot();
      long self0 = mx.getCurrentThreadCpuTime();
      java.util.Map<Long, Long> threads0 = new java.util.HashMap<>();
      for (long id : mx.getAllThreadIds()) {
        threads0.put(id, mx.getThreadCpuTime(id));
      }
      long[] lat = new long[1 << 20];
      int[] nlat = new int[1];
      long tasks = 0;
      long ops = 0;
      long t0 = System.nanoTime();
      long end = t0 + (long) (seconds * 0.5e9);
      while (System.nanoTime() < end) {
        tasks += op(mode, ex, mode.equals("burst") ? new long[][] {lat} : null, nlat);
        ops++;
      }
      long wall = System.nanoTime() - t0;
      long self = mx.getCurrentThreadCpuTime() - self0;
      long all = cpu0.elapsed();
      StringBuilder sb = new StringBuilder();
      sb.append(String.format(Locale.ROOT, "%s %s p=%d tasks=%d", mode, executor, p, tasks));
      if (mode.equals("burst")) {
        long[] l = Arrays.copyOf(lat, nlat[0]);
        Arrays.sort(l);
        sb.append(
            String.format(
                Locale.ROOT,
                " p50us=%.1f p90us=%.1f p99us=%.1f",
                l[l.length / 2] / 1e3,
                l[(int) (l.length * 0.9)] / 1e3,
                l[(int) (l.length * 0.99)] / 1e3));
      } else {
        sb.append(String.format(Locale.ROOT, " msPerOp=%.2f", wall / 1e6 / ops));
      }
      sb.append(
          String.format(
              Locale.ROOT,
              " workerCpuUs=%.2f submitterCpuUs=%.2f",
              (all - self) / 1e3 / tasks,
              self / 1e3 / tasks));
      if (s0 != null) {
        GmpStats s1 = ((GmpExecutor) ex).stats();
        sb.append(
            String.format(
                Locale.ROOT,
                " parks=%.3f unparks=%.3f sysmon=%.3f threads=%d",
                (s1.parks() - s0.parks()) / (double) tasks,
                (s1.unparks() - s0.unparks()) / (double) tasks,
                (s1.sysmonWakeups() - s0.sysmonWakeups()) / (double) tasks,
                s1.threads()));
      }
      if (System.getProperty("probe.threads") != null) {
        for (long id : mx.getAllThreadIds()) {
          java.lang.management.ThreadInfo ti = mx.getThreadInfo(id);
          long c = mx.getThreadCpuTime(id) - threads0.getOrDefault(id, 0L);
          if (ti != null && c > 1_000_000) {
            sb.append(String.format(Locale.ROOT, "%n  %s %.2f us/task", ti.getThreadName(), c / 1e3 / tasks));
          }
        }
      }
      System.out.println(sb);
    } finally {
      Execs.shutdown(ex);
    }
  }

  /**
   * One burst: {@link #GAP_NS} idle, then {@link #BURST} tasks {@link #INTERVAL_NS} apart from the
   * calling thread (paced by spinning). Task k stamps {@code started[k]} and then runs {@code
   * inTask}; the caller stamps {@code submitted[k]} before each execute and runs {@code
   * afterSubmit} after it. Returns when every task has run.
   */
  static void burst(
      ExecutorService ex,
      long[] submitted,
      long[] started,
      IntConsumer inTask,
      IntConsumer afterSubmit) {
    LockSupport.parkNanos(GAP_NS);
    CountDownLatch done = new CountDownLatch(1);
    AtomicInteger rem = new AtomicInteger(BURST);
    long next = System.nanoTime();
    for (int i = 0; i < BURST; i++) {
      while (System.nanoTime() - next < 0) {
        Thread.onSpinWait();
      }
      int k = i;
      submitted[i] = System.nanoTime();
      ex.execute(
          () -> {
            started[k] = System.nanoTime();
            inTask.accept(k);
            if (rem.decrementAndGet() == 0) {
              done.countDown();
            }
          });
      afterSubmit.accept(i);
      next += INTERVAL_NS;
    }
    Util.await(done, "burst");
  }

  private static int op(String mode, ExecutorService ex, long[][] lat, int... nlat) {
    if (mode.equals("remote")) {
      Workloads.spawnRemote(ex, REMOTE);
      return REMOTE;
    }
    long[] submitted = new long[BURST];
    long[] started = new long[BURST];
    burst(ex, submitted, started, k -> {}, k -> {});
    if (lat != null) {
      long[] l = lat[0];
      for (int i = 0; i < BURST && nlat[0] < l.length; i++) {
        l[nlat[0]++] = started[i] - submitted[i];
      }
    }
    return BURST;
  }
}
