package dev.gmp.bench;

import dev.gmp.GmpExecutor;
import java.lang.management.ManagementFactory;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.ObjectName;

/**
 * The one factory that turns the {@code executor} JMH parameter into an executor. Every benchmark
 * goes through {@link ExecutorService#execute} only, so each implementation gets the same calls:
 *
 * <ul>
 *   <li>{@code gmp}: {@link GmpExecutor#create(int)}. execute() from one of its tasks goes to the
 *       processor's runnext slot, from outside to the global queue.
 *   <li>{@code fjp}: {@code new ForkJoinPool(p)}, LIFO local deques (the default).
 *   <li>{@code fjpAsync}: {@code new ForkJoinPool(p, ..., asyncMode=true)}, FIFO local queues (what
 *       event-style frameworks use, and what {@code Executors.newWorkStealingPool} builds).
 *   <li>{@code tpe}: {@code new ThreadPoolExecutor(p, p, ..., new LinkedBlockingQueue())} (=
 *       {@code Executors.newFixedThreadPool(p)}).
 *   <li>{@code vthread}: {@code Executors.newVirtualThreadPerTaskExecutor()}, one virtual thread per
 *       task on the JDK's default scheduler (a FIFO ForkJoinPool) whose parallelism is set to
 *       {@code p} through {@code jdk.virtualThreadScheduler.parallelism} before the first virtual
 *       thread exists (JMH runs every parameter combination in a fresh JVM, so this holds).
 *   <li>{@code cached}: {@code Executors.newCachedThreadPool()}, a thread per concurrent task
 *       (not in {@link #ALL}: only the blocking benchmarks run it).
 *   <li>{@code none}: no executor at all (only for the idle-CPU baseline).
 * </ul>
 */
public final class Execs {
  private Execs() {}

  /** The executors every workload runs on by default (override with JMH's -p executor=...). */
  public static final String ALL = "gmp,fjp,fjpAsync,tpe,vthread";

  public static ExecutorService create(String name, int parallelism) {
    if (parallelism < 1) {
      throw new IllegalArgumentException("parallelism must be >= 1, was " + parallelism);
    }
    return switch (name) {
      case "gmp" -> GmpExecutor.create(parallelism);
      case "fjp" -> new ForkJoinPool(parallelism);
      case "fjpAsync" ->
          new ForkJoinPool(
              parallelism, ForkJoinPool.defaultForkJoinWorkerThreadFactory, null, true);
      case "tpe" -> fixedPool(parallelism);
      case "vthread" -> virtualThreads(parallelism);
      case "cached" -> Executors.newCachedThreadPool(daemons("cached"));
      default ->
          throw new IllegalArgumentException(
              "unknown executor '" + name + "': use one of " + ALL
                  + (name.equals("none") ? " (none is only for IdleCpu)" : ""));
    };
  }

  /**
   * {@link #create} with every platform thread the executor makes counted in {@code threads}
   * (virtual threads: not counted, their carriers are the JDK's; see {@link
   * #virtualSchedulerPoolSize}).
   */
  static ExecutorService create(String name, int parallelism, LiveThreads threads) {
    return switch (name) {
      case "gmp" ->
          GmpExecutor.builder().parallelism(parallelism).threadFactory(threads.factory("gmp"))
              .build();
      case "fjp" -> new ForkJoinPool(parallelism, threads.forkJoinFactory(), null, false);
      case "fjpAsync" -> new ForkJoinPool(parallelism, threads.forkJoinFactory(), null, true);
      case "tpe" ->
          new ThreadPoolExecutor(parallelism, parallelism, 0L, TimeUnit.MILLISECONDS,
              new LinkedBlockingQueue<>(), threads.factory("tpe"));
      case "cached" -> Executors.newCachedThreadPool(threads.factory("cached"));
      default -> create(name, parallelism);
    };
  }

  /**
   * The JDK virtual-thread scheduler's current pool size (its carrier threads), or -1 where the
   * JDK has no VirtualThreadScheduler bean (JDK 24+ has one).
   */
  public static int virtualSchedulerPoolSize() {
    try {
      Object v =
          ManagementFactory.getPlatformMBeanServer()
              .getAttribute(new ObjectName("jdk.management:type=VirtualThreadScheduler"), "PoolSize");
      return v instanceof Integer i ? i : -1;
    } catch (Exception | LinkageError e) {
      return -1;
    }
  }

  private static java.util.concurrent.ThreadFactory daemons(String prefix) {
    AtomicInteger ids = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + ids.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** {@link #create}, or null for {@code none} (the idle-CPU baseline without any executor). */
  public static ExecutorService createOrNone(String name, int parallelism) {
    return name.equals("none") ? null : create(name, parallelism);
  }

  private static ExecutorService fixedPool(int p) {
    AtomicInteger ids = new AtomicInteger();
    return new ThreadPoolExecutor(
        p,
        p,
        0L,
        TimeUnit.MILLISECONDS,
        new LinkedBlockingQueue<>(),
        r -> {
          Thread t = new Thread(r, "tpe-" + ids.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
  }

  private static ExecutorService virtualThreads(int p) {
    String prop = "jdk.virtualThreadScheduler.parallelism";
    String want = Integer.toString(p);
    String had = System.getProperty(prop);
    if (had != null && !had.equals(want)) {
      throw new IllegalStateException(
          prop + " is already " + had + " in this JVM; cannot run vthread at parallelism " + p);
    }
    System.setProperty(prop, want);
    ExecutorService es = Executors.newVirtualThreadPerTaskExecutor();
    Integer actual = virtualSchedulerParallelism();
    if (actual != null && actual != p) {
      throw new IllegalStateException(
          "the virtual-thread scheduler was created before the benchmark could set its"
              + " parallelism: it has "
              + actual
              + ", wanted "
              + p);
    }
    return es;
  }

  /** JDK 24+: jdk.management:type=VirtualThreadScheduler. Null where there is no such bean. */
  private static Integer virtualSchedulerParallelism() {
    try {
      // Starting one virtual thread makes sure the scheduler exists before we ask it.
      Thread.ofVirtual().start(() -> {}).join();
      Object v =
          ManagementFactory.getPlatformMBeanServer()
              .getAttribute(
                  new ObjectName("jdk.management:type=VirtualThreadScheduler"), "Parallelism");
      return v instanceof Integer i ? i : null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (Exception | LinkageError e) {
      return null;
    }
  }

  /** Shuts an executor down and waits for it; fails loudly if it does not terminate. */
  public static void shutdown(ExecutorService es) {
    if (es == null) {
      return;
    }
    es.shutdown();
    try {
      if (!es.awaitTermination(30, TimeUnit.SECONDS)) {
        es.shutdownNow();
        throw new IllegalStateException(es + " did not terminate within 30 s of shutdown()");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while shutting down " + es, e);
    }
  }

  /**
   * Runs a blocking call the way each executor wants to be told about it when {@code managed}:
   * {@link GmpExecutor#blocking} on gmp, {@link ForkJoinPool#managedBlock} on ForkJoinPool (both
   * modes); the others have no such API (a virtual thread unmounts by itself), so the call runs
   * plainly. With {@code managed == false} every executor runs it plainly.
   */
  public static void blockingCall(String executor, boolean managed, Callable<?> call)
      throws Exception {
    if (!managed) {
      call.call();
      return;
    }
    switch (executor) {
      case "gmp" -> GmpExecutor.blocking(call);
      case "fjp", "fjpAsync" -> {
        ManagedCall mc = new ManagedCall(call);
        ForkJoinPool.managedBlock(mc);
        if (mc.failure != null) {
          throw mc.failure;
        }
      }
      default -> call.call();
    }
  }

  private static final class ManagedCall implements ForkJoinPool.ManagedBlocker {
    private final Callable<?> call;
    private boolean done;
    Exception failure;

    ManagedCall(Callable<?> call) {
      this.call = call;
    }

    @Override
    public boolean block() {
      try {
        call.call();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failure = e;
      } catch (Exception e) {
        failure = e;
      }
      done = true;
      return true;
    }

    @Override
    public boolean isReleasable() {
      return done;
    }
  }
}
