package dev.gmp.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.openjdk.jmh.infra.Blackhole;

/**
 * One operation of each workload, as a plain static method on any {@link ExecutorService}: the JMH
 * benchmarks ({@link TokioRt}, {@link ForkJoinTree}, {@link KotlinActors}) and the fresh-JVM runs
 * ({@link ShortRuns}) call the same bodies. Each method returns when the operation is complete (the
 * caller's thread waits on a latch, never a worker), or throws after {@link Util#OP_TIMEOUT_S}.
 * Tasks are continuations, nothing blocks a worker, except in {@link #nestedWaits}, which measures
 * exactly that (tasks waiting on their children's futures).
 */
public final class Workloads {
  private Workloads() {}

  /** One task (submitted from outside) spawns {@code n} tasks from inside the executor. */
  public static void spawnLocal(ExecutorService ex, int n) {
    fanOut(ex, n, 0, "spawnLocal");
  }

  /**
   * One task spawns {@code n} tasks, each stalling {@code stallNanos} (0: none), and the caller
   * waits for the last (spawnLocal, cpuTasks).
   */
  private static void fanOut(ExecutorService ex, int n, long stallNanos, String name) {
    CountDownLatch done = new CountDownLatch(1);
    AtomicInteger rem = new AtomicInteger(n);
    Runnable leaf =
        () -> {
          if (stallNanos > 0) {
            Util.stall(stallNanos);
          }
          if (rem.decrementAndGet() == 0) {
            done.countDown();
          }
        };
    ex.execute(
        () -> {
          for (int i = 0; i < n; i++) {
            ex.execute(leaf);
          }
        });
    Util.await(done, name);
  }

  /** The calling (outside) thread submits {@code n} tasks. */
  public static void spawnRemote(ExecutorService ex, int n) {
    CountDownLatch done = new CountDownLatch(1);
    AtomicInteger rem = new AtomicInteger(n);
    Runnable leaf =
        () -> {
          if (rem.decrementAndGet() == 0) {
            done.countDown();
          }
        };
    for (int i = 0; i < n; i++) {
      ex.execute(leaf);
    }
    Util.await(done, "spawnRemote");
  }

  /**
   * The calling (outside) thread submits {@code n} tasks and then waits on each one's future in
   * order: the shape of collecting results with {@code submit} (or {@code invokeAll}).
   */
  public static void submitGet(ExecutorService ex, int n) {
    AtomicInteger ran = new AtomicInteger();
    Runnable leaf = ran::incrementAndGet;
    List<Future<?>> futures = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      futures.add(ex.submit(leaf));
    }
    try {
      for (Future<?> f : futures) {
        f.get(Util.OP_TIMEOUT_S, TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      throw new IllegalStateException("submitGet did not complete: " + e, e);
    }
    if (ran.get() != n) {
      throw new IllegalStateException("submitGet ran " + ran.get() + " of " + n);
    }
  }

  /** {@code chains} chains of {@code length} spawns each, all started by one task. */
  public static void chains(ExecutorService ex, int chains, int length) {
    CountDownLatch done = new CountDownLatch(chains);
    if (chains == 1) {
      ex.execute(new TokioRt.Chain(ex, done, length));
    } else {
      ex.execute(
          () -> {
            for (int i = 0; i < chains; i++) {
              ex.execute(new TokioRt.Chain(ex, done, length));
            }
          });
    }
    Util.await(done, "chains");
  }

  /** A ping and a pong actor pass a ball until its count reaches {@code messages}. */
  public static void actorPair(ExecutorService ex, int messages) {
    CountDownLatch done = new CountDownLatch(1);
    KotlinActors.Pong pong = new KotlinActors.Pong(ex, messages);
    new KotlinActors.Ping(ex, pong, done).send(new KotlinActors.Letter(KotlinActors.START, null));
    Util.await(done, "actorPair");
  }

  /**
   * A binary spawn tree of {@code depth} levels (2^depth leaves, 2^depth - 1 spawned tasks). Each
   * inner node spawns its left child and runs its right child inline; a node's completion counter
   * (CountedCompleter-style, two pending children) continues the parent on whichever thread
   * finishes last. Leaves burn {@code leafTokens} Blackhole CPU tokens.
   */
  public static void forkTree(ExecutorService ex, int depth, long leafTokens) {
    CountDownLatch done = new CountDownLatch(1);
    Node root = new Node(null, done);
    ex.execute(() -> node(ex, depth, root, leafTokens));
    Util.await(done, "forkTree");
  }

  private static void node(ExecutorService ex, int level, Node completer, long leafTokens) {
    if (level == 0) {
      Blackhole.consumeCPU(leafTokens);
      completer.complete();
      return;
    }
    Node me = new Node(completer, null);
    ex.execute(() -> node(ex, level - 1, me, leafTokens));
    node(ex, level - 1, me, leafTokens);
  }

  /** Completion counter of one inner node: the second child to finish continues the parent. */
  private static final class Node {
    private static final AtomicIntegerFieldUpdater<Node> PENDING =
        AtomicIntegerFieldUpdater.newUpdater(Node.class, "pending");
    private final Node parent;
    private final CountDownLatch root;
    private volatile int pending;

    Node(Node parent, CountDownLatch root) {
      this.parent = parent;
      this.root = root;
      this.pending = root != null ? 1 : 2;
    }

    void complete() {
      Node n = this;
      while (n != null && PENDING.decrementAndGet(n) == 0) {
        if (n.root != null) {
          n.root.countDown();
          return;
        }
        n = n.parent;
      }
    }
  }

  /**
   * The timeout pattern, timers only: {@code tasks} tasks on the executor each schedule and at once
   * cancel {@code perTask} one-shot timers of 1 s (ShortRuns' {@code timers};
   * ScheduledTimers#scheduleCancel in JMH).
   * {@code ex} must be a {@link ScheduledExecutorService} (ForkJoinPool is one from JDK 25 on).
   */
  public static void scheduleCancel(ExecutorService ex, int tasks, int perTask) {
    if (!(ex instanceof ScheduledExecutorService ses)) {
      throw new IllegalArgumentException(
          ex.getClass().getName() + " does not schedule (ForkJoinPool does from JDK 25 on)");
    }
    CountDownLatch done = new CountDownLatch(tasks);
    Runnable noop = () -> {};
    for (int t = 0; t < tasks; t++) {
      ses.execute(
          () -> {
            for (int i = 0; i < perTask; i++) {
              ses.schedule(noop, 1, TimeUnit.SECONDS).cancel(false);
            }
            done.countDown();
          });
    }
    Util.await(done, "scheduleCancel");
  }

  /** One task spawns {@code n} tasks that each compute (busy-wait) for {@code micros}. */
  public static void cpuTasks(ExecutorService ex, int n, long micros) {
    fanOut(ex, n, micros * 1_000, "cpuTasks");
  }

  /**
   * A binary tree of {@code depth} levels: each inner task submits two children and waits on their
   * futures ({@code Future.get} inside a task, ordinary application code), each leaf computes
   * {@code leafMicros}. The caller waits for the root's future.
   */
  public static void nestedWaits(ExecutorService ex, int depth, long leafMicros) {
    try {
      ex.submit(() -> nestedNode(ex, depth, leafMicros * 1_000))
          .get(Util.OP_TIMEOUT_S, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("nestedWaits did not complete: " + e, e);
    }
  }

  private static int nestedNode(ExecutorService ex, int level, long leafNanos) throws Exception {
    if (level == 0) {
      Util.stall(leafNanos);
      return 1;
    }
    Future<Integer> left = ex.submit(() -> nestedNode(ex, level - 1, leafNanos));
    Future<Integer> right = ex.submit(() -> nestedNode(ex, level - 1, leafNanos));
    return left.get() + right.get();
  }

  /**
   * {@code chains} CompletableFuture chains, each {@code supplyAsync} then {@code stages} x {@code
   * thenApplyAsync}, all on {@code ex}, started from the calling (outside) thread.
   */
  public static void futureChains(ExecutorService ex, int chains, int stages) {
    CompletableFuture<?>[] all = new CompletableFuture<?>[chains];
    for (int i = 0; i < chains; i++) {
      int start = i;
      CompletableFuture<Integer> f = CompletableFuture.supplyAsync(() -> start, ex);
      for (int s = 0; s < stages; s++) {
        f = f.thenApplyAsync(x -> x + 1, ex);
      }
      all[i] = f;
    }
    try {
      CompletableFuture.allOf(all).get(Util.OP_TIMEOUT_S, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("futureChains did not complete: " + e, e);
    }
  }

  /**
   * The calling (outside) thread submits {@code n} tasks back to back to an executor it first
   * leaves idle for {@code idleMillis} (its workers park); each task records how long after its own
   * {@code execute} call it started. Returns {50th, 99th} percentile of those delays (ns).
   */
  public static long[] burst(ExecutorService ex, int n, long idleMillis) {
    Util.sleepNanos(idleMillis * 1_000_000);
    long[] delay = new long[n];
    CountDownLatch done = new CountDownLatch(1);
    AtomicInteger rem = new AtomicInteger(n);
    for (int i = 0; i < n; i++) {
      int k = i;
      long submitted = System.nanoTime();
      ex.execute(
          () -> {
            delay[k] = System.nanoTime() - submitted;
            if (rem.decrementAndGet() == 0) {
              done.countDown(); // the latch orders every delay[] write before the caller's reads
            }
          });
    }
    Util.await(done, "burst");
    Arrays.sort(delay);
    return new long[] {delay[(n - 1) / 2], delay[Math.min(n - 1, (int) Math.ceil(n * 0.99) - 1)]};
  }
}
