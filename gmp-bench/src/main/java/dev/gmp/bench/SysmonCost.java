package dev.gmp.bench;

import dev.gmp.GmpExecutor;
import dev.gmp.GmpStats;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What sysmon costs: its thread's CPU time and rounds per second while the executor is busy with
 * short tasks, busy with tasks in {@code blocking}, and idle; plus the CPU of the whole idle
 * executor (all its threads) over one second.
 *
 * <p>Run: {@code java -cp gmp-bench/target/benchmarks.jar dev.gmp.bench.SysmonCost [seconds]}
 */
public final class SysmonCost {
  private SysmonCost() {}

  public static void main(String[] args) throws Exception {
    long seconds = args.length > 0 ? Long.parseLong(args[0]) : 2;
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    try (GmpExecutor ex = GmpExecutor.builder().parallelism(2).name("cost").build()) {
      Thread sysmon = find("cost-sysmon");
      System.out.printf("%-28s %14s %14s%n", "phase", "sysmon CPU %", "rounds/s");

      AtomicBoolean stop = new AtomicBoolean();
      // Busy: two self-respawning chains of short tasks.
      for (int i = 0; i < 2; i++) {
        ex.execute(new Runnable() {
          @Override
          public void run() {
            if (!stop.get()) {
              ex.execute(this);
            }
          }
        });
      }
      measure("busy, short tasks", ex, mx, sysmon, seconds);
      stop.set(true);
      quiesce(ex);

      // Busy with blocking calls: tasks that sleep 1 ms inside blocking().
      AtomicBoolean stop2 = new AtomicBoolean();
      for (int i = 0; i < 4; i++) {
        ex.execute(new Runnable() {
          @Override
          public void run() {
            try {
              GmpExecutor.blocking(() -> {
                Thread.sleep(1);
                return null;
              });
            } catch (Exception e) {
              return;
            }
            if (!stop2.get()) {
              ex.execute(this);
            }
          }
        });
      }
      measure("busy, 1 ms blocking calls", ex, mx, sysmon, seconds);
      stop2.set(true);
      quiesce(ex);

      System.out.println(ex.stats());
      measure("idle", ex, mx, sysmon, seconds);
      System.out.println(ex.stats());
      long before = processCpu(mx);
      long t0 = System.nanoTime();
      Thread.sleep(TimeUnit.SECONDS.toMillis(1));
      long cpu = processCpu(mx) - before;
      System.out.printf(
          "idle executor, all its threads: %.4f%% of one core over %.1f s%n",
          100.0 * cpu / (System.nanoTime() - t0), (System.nanoTime() - t0) / 1e9);
    }
  }

  private static void quiesce(GmpExecutor ex) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      GmpStats s = ex.stats();
      if (s.idleProcessors() == s.parallelism() && s.runnableTasks() == 0) {
        break;
      }
      Thread.sleep(10);
    }
    CountDownLatch l = new CountDownLatch(1);
    ex.execute(l::countDown);
    l.await();
    Thread.sleep(50);
  }

  private static void measure(
      String phase, GmpExecutor ex, ThreadMXBean mx, Thread sysmon, long seconds)
      throws InterruptedException {
    long c0 = mx.getThreadCpuTime(sysmon.threadId());
    long w0 = ex.stats().sysmonWakeups();
    long t0 = System.nanoTime();
    Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
    long dt = System.nanoTime() - t0;
    long c = mx.getThreadCpuTime(sysmon.threadId()) - c0;
    long w = ex.stats().sysmonWakeups() - w0;
    System.out.printf("%-28s %14.3f %14.0f%n", phase, 100.0 * c / dt, w / (dt / 1e9));
  }

  /** CPU time of every thread of this executor (workers and sysmon). */
  private static long processCpu(ThreadMXBean mx) {
    long sum = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("cost-")) {
        long c = mx.getThreadCpuTime(t.threadId());
        if (c > 0) {
          sum += c;
        }
      }
    }
    return sum;
  }

  private static Thread find(String name) {
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().equals(name)) {
        return t;
      }
    }
    throw new IllegalStateException("no thread named " + name);
  }
}
