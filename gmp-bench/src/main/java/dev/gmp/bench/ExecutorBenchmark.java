package dev.gmp.bench;

import java.util.concurrent.ExecutorService;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The state every side-by-side benchmark shares: which executor ({@link Execs}), at what
 * parallelism, created once per trial and shut down after it. JMH inherits the parameters and
 * the set-up/tear-down methods. Benchmarks whose executor needs more around it (background load,
 * outside threads, a different parameter set) declare their own.
 */
@State(Scope.Benchmark)
public abstract class ExecutorBenchmark {
  @Param({"gmp", "fjp", "fjpAsync", "tpe", "vthread"})
  public String executor;

  @Param({"1", "2"})
  public int parallelism;

  ExecutorService exec;

  @Setup(Level.Trial)
  public void setUp() {
    exec = Execs.create(executor, parallelism);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    Execs.shutdown(exec);
  }
}
