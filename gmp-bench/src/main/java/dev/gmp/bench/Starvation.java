package dev.gmp.bench;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Secondary result of the busy benchmarks: the share of operations in which the outside tasks
 * were still not done after {@link #LIMIT_NS} (1 s) of background load, so the load had to be
 * stopped to let them run (1.0 = every operation starved; its time then includes that 1 s).
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.EVENTS)
public class Starvation {
  static final long LIMIT_NS = 1_000_000_000L;

  long ops;
  long starved;

  @Setup(Level.Iteration)
  public void reset() {
    ops = 0;
    starved = 0;
  }

  public double starvedShare() {
    return ops == 0 ? 0 : (double) starved / ops;
  }
}
