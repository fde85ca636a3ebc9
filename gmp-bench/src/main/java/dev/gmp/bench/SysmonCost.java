package dev.gmp.bench;

import dev.gmp.GmpExecutor;
import dev.gmp.GmpStats;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What sysmon costs: its thread's CPU time, rounds and retakes per second while the executor is
 * busy with short tasks, with CPU-bound tasks while more wait (the unmarked-blocking detector
 * looks at both Ms every round), with 1 ms sleeps inside {@code blocking}, with 1 ms sleeps not
 * marked (the detector's retakes), with 1 ms pipe reads not marked (the detector's /proc reads),
 * and idle; the CPU of the whole idle executor (all its threads)
 * over one second; and what each probe of the detector costs (the same calls, timed here).
 * Compare {@code -Dgmp.blockDetect=false} for the detector's share.
 *
 * <p>Run: {@code java -cp gmp-bench/target/benchmarks.jar dev.gmp.bench.SysmonCost [seconds]}
 */
public final class SysmonCost {
  private SysmonCost() {}

  public static void main(String[] args) throws Exception {
    long seconds = args.length > 0 ? Long.parseLong(args[0]) : 2;
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    try (GmpExecutor ex = GmpExecutor.builder().parallelism(2).name("cost").build()) {
      CountDownLatch first = new CountDownLatch(1);
      ex.execute(first::countDown); // sysmon starts with the executor's first thread
      first.await();
      Thread sysmon = find("cost-sysmon");
      System.out.printf("%-28s %14s %14s %14s %14s %14s%n", "phase", "sysmon CPU %",
          "rounds/s", "retakes/s", "of them fast", "us CPU/round");

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

      // CPU-bound: four 200 us spin chains on two Ps, so work always waits behind a running task.
      AtomicBoolean stop1 = new AtomicBoolean();
      for (int i = 0; i < 4; i++) {
        ex.execute(new Runnable() {
          @Override
          public void run() {
            Util.stall(200_000);
            if (!stop1.get()) {
              ex.execute(this);
            }
          }
        });
      }
      measure("busy, CPU tasks, work waits", ex, mx, sysmon, seconds);
      stop1.set(true);
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

      // The same sleeps, not marked: only the detector (or a whole time slice) frees the P.
      AtomicBoolean stop3 = new AtomicBoolean();
      for (int i = 0; i < 4; i++) {
        ex.execute(new Runnable() {
          @Override
          public void run() {
            Util.sleepNanos(1_000_000);
            if (!stop3.get()) {
              ex.execute(this);
            }
          }
        });
      }
      measure("busy, 1 ms unmarked sleeps", ex, mx, sysmon, seconds);
      stop3.set(true);
      quiesce(ex);

      // Unmarked reads: each task waits 1 ms for a backend's byte on a pipe (BackendCall:
      // RUNNABLE to Java, asleep in read(2) to the kernel, so the detector asks /proc).
      AtomicBoolean stop4 = new AtomicBoolean();
      for (int i = 0; i < 4; i++) {
        ex.execute(new Runnable() {
          @Override
          public void run() {
            BackendCall.call();
            if (!stop4.get()) {
              ex.execute(this);
            }
          }
        });
      }
      measure("busy, 1 ms unmarked reads", ex, mx, sysmon, seconds);
      stop4.set(true);
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
    probes(mx);
  }

  /**
   * The detector's probes of another thread, timed the way it makes them: its CPU clock
   * (ThreadMXBean.getThreadCpuTime), its Java state (Thread.getState), and its kernel state
   * (open and read /proc/self/task/TID/stat), against a thread asleep in Thread.sleep.
   */
  private static void probes(ThreadMXBean mx) throws Exception {
    String[] tid = new String[1];
    CountDownLatch named = new CountDownLatch(1);
    Thread sleeper = new Thread(() -> {
      try {
        tid[0] = java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/thread-self"))
            .getFileName().toString();
      } catch (Exception | LinkageError e) {
        tid[0] = null; // no /proc: that probe is skipped
      }
      named.countDown();
      try {
        Thread.sleep(Long.MAX_VALUE);
      } catch (InterruptedException e) {
        // done
      }
    });
    sleeper.setDaemon(true);
    sleeper.start();
    named.await();
    long id = sleeper.threadId();
    long sink = 0;
    for (int round = 0; round < 3; round++) { // the last round, warmed up, is the one printed
      int n = 100_000;
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        sink += mx.getThreadCpuTime(id);
      }
      long t1 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        sink += sleeper.getState().ordinal();
      }
      long t2 = System.nanoTime();
      double proc = Double.NaN;
      if (tid[0] != null) {
        java.nio.file.Path stat = java.nio.file.Path.of("/proc/self/task", tid[0], "stat");
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1024);
        int m = 10_000;
        long t3 = System.nanoTime();
        for (int i = 0; i < m; i++) {
          b.clear();
          try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(stat)) {
            sink += ch.read(b);
          }
        }
        proc = (System.nanoTime() - t3) / (double) m;
      }
      if (round == 2) {
        System.out.printf(
            "detector probes: CPU clock %.0f ns, Thread.getState %.1f ns, /proc stat %.0f ns%s%n",
            (t1 - t0) / (double) n, (t2 - t1) / (double) n, proc, sink == 42 ? " " : "");
      }
    }
    sleeper.interrupt();
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
    GmpStats s0 = ex.stats();
    long f0 = blockRetakes(ex);
    long t0 = System.nanoTime();
    Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
    long dt = System.nanoTime() - t0;
    long c = mx.getThreadCpuTime(sysmon.threadId()) - c0;
    GmpStats s1 = ex.stats();
    long w = s1.sysmonWakeups() - s0.sysmonWakeups();
    long r = s1.retakes() - s0.retakes();
    long f = blockRetakes(ex) - f0;
    System.out.printf("%-28s %14.3f %14.0f %14.0f %14.0f %14.1f%n", phase, 100.0 * c / dt,
        w / (dt / 1e9), r / (dt / 1e9), f / (dt / 1e9), w == 0 ? 0 : c / 1000.0 / w);
  }

  /** The detector's retakes so far, from the dump's totals line (no public counter for it). */
  private static long blockRetakes(GmpExecutor ex) {
    String d = ex.dump();
    int i = d.indexOf(" blockretakes=");
    if (i < 0) {
      return 0;
    }
    int from = i + " blockretakes=".length();
    int to = from;
    while (to < d.length() && Character.isDigit(d.charAt(to))) {
      to++;
    }
    return Long.parseLong(d.substring(from, to));
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
