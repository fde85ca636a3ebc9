package dev.gmp.bench;

import java.util.concurrent.TimeUnit;
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

/**
 * Fork-join without blocking joins: a binary spawn tree of {@code depth} levels (2^depth leaves,
 * 2^depth - 1 spawned tasks). Each inner node spawns its left child and runs its right child
 * inline; a node's completion counter (CountedCompleter-style, two pending children) continues
 * the parent on whichever thread finishes last; the root's completion releases the benchmark
 * thread. Leaves burn {@link #LEAF_TOKENS} of Blackhole CPU tokens. The body is {@link
 * Workloads#forkTree}.
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
    Workloads.forkTree(exec, depth, LEAF_TOKENS);
  }
}
