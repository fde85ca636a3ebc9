package dev.gmp.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Small helpers shared by the workloads: bounded waits and busy stalls. */
public final class Util {
  private Util() {}

  /**
   * How long the benchmark thread waits for one operation before it declares the executor stuck.
   * A stuck run throws, and with JMH's {@code -foe true} the run fails instead of hanging.
   */
  public static final long OP_TIMEOUT_S = 60;

  /** Waits for {@code done} (the operation's completion signal), failing after the timeout. */
  public static void await(CountDownLatch done, String what) {
    try {
      if (!done.await(OP_TIMEOUT_S, TimeUnit.SECONDS)) {
        throw new IllegalStateException(
            what + " did not complete within " + OP_TIMEOUT_S + " s (" + done.getCount()
                + " signals missing): the executor lost or starved tasks");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for " + what, e);
    }
  }

  /** Busy-waits for {@code nanos} (Tokio's stall(): a task that holds its worker, no yield). */
  public static void stall(long nanos) {
    long end = System.nanoTime() + nanos;
    while (System.nanoTime() - end < 0) {
      Thread.onSpinWait();
    }
  }

  /** Sleeps for {@code nanos}, turning an interrupt into an exception (benchmarks never expect it). */
  public static void sleepNanos(long nanos) {
    try {
      Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
