package dev.gmp.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Fork-join without blocking joins: a binary spawn tree of {@code depth} levels (2^depth leaves,
 * 2^depth - 1 spawned tasks). Each inner node spawns its left child and runs its right child
 * inline; a node's completion counter (CountedCompleter-style, two pending children) continues
 * the parent on whichever thread finishes last; the root's completion releases the benchmark
 * thread. Leaves burn {@link #LEAF_TOKENS} of Blackhole CPU tokens.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(3)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ForkJoinTree extends ExecutorBenchmark {
  static final long LEAF_TOKENS = 20;

  @Param({"14"})
  public int depth;

  @Benchmark
  public void forkJoinTree() {
    CountDownLatch done = new CountDownLatch(1);
    Node root = new Node(null, done);
    exec.execute(() -> node(depth, root));
    Util.await(done, "forkJoinTree");
  }

  private void node(int level, Node completer) {
    if (level == 0) {
      Blackhole.consumeCPU(LEAF_TOKENS);
      completer.complete();
      return;
    }
    Node me = new Node(completer, null);
    exec.execute(() -> node(level - 1, me));
    node(level - 1, me);
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
}
