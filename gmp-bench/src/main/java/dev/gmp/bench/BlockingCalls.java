package dev.gmp.bench;

import dev.gmp.GmpExecutor;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Marked blocking calls at scale (the spare-budget issue): {@code tasks} tasks submitted from
 * outside, each making one blocking call of {@code callMicros} (a timed park loop), at
 * parallelism 2. gmp marks it with {@code GmpExecutor.blocking}, ForkJoinPool with a {@code
 * ManagedBlocker} (both compensate up to 256 spare threads); the cached pool and virtual threads
 * need no marking. One operation is the whole batch (single shot); the secondary metric {@code
 * threadsMade} is how many platform threads the executor created during the measured
 * operations (virtual threads: 0, their carriers are the JDK's).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 2)
@Measurement(iterations = 3)
public class BlockingCalls {
  @Param({"gmp", "fjp", "cached", "vthread"})
  public String executor;

  @Param({"10", "200", "5000"})
  public long callMicros;

  @Param({"1000", "10000", "100000"})
  public int tasks;

  @Param({"2"})
  public int parallelism;

  ExecutorService exec;
  final AtomicLong made = new AtomicLong();

  /** Threads created during the measured operations (JMH sums it over iterations). */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Threads {
    public long threadsMade;
  }

  @Setup(Level.Trial)
  public void setUp() {
    ThreadFactory counting = r -> {
      made.incrementAndGet();
      Thread t = new Thread(r);
      t.setDaemon(true);
      return t;
    };
    exec =
        switch (executor) {
          case "gmp" ->
              GmpExecutor.builder().parallelism(parallelism).threadFactory(counting).build();
          case "fjp" ->
              new ForkJoinPool(
                  parallelism,
                  pool -> {
                    made.incrementAndGet();
                    return new ForkJoinWorkerThread(pool) {};
                  },
                  null,
                  false,
                  0,
                  parallelism + 256, // the common pool's spare limit, as gmp's default budget
                  1,
                  pool -> true, // past it, run on with fewer threads (no rejection), as gmp does
                  60,
                  TimeUnit.SECONDS);
          case "cached" -> Executors.newCachedThreadPool(counting);
          case "vthread" -> Executors.newVirtualThreadPerTaskExecutor();
          default ->
              throw new IllegalArgumentException(
                  "executor must be gmp, fjp, cached or vthread, was " + executor);
        };
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    Execs.shutdown(exec);
  }

  static void park(long micros) {
    long end = System.nanoTime() + micros * 1000;
    for (long left = micros * 1000; left > 0; left = end - System.nanoTime()) {
      LockSupport.parkNanos(left);
    }
  }

  @Benchmark
  public void blockingCalls(Threads threads) throws Exception {
    long before = made.get();
    CountDownLatch done = new CountDownLatch(1);
    AtomicInteger rem = new AtomicInteger(tasks);
    long us = callMicros;
    String ex = executor;
    boolean marked = ex.equals("gmp") || ex.equals("fjp");
    Runnable task =
        () -> {
          try {
            if (marked) {
              Execs.blockingCall(ex, true, () -> {
                park(us);
                return null;
              });
            } else {
              park(us);
            }
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          if (rem.decrementAndGet() == 0) {
            done.countDown();
          }
        };
    for (int i = 0; i < tasks; i++) {
      exec.execute(task);
    }
    Util.await(done, "blockingCalls");
    threads.threadsMade += made.get() - before;
  }
}
