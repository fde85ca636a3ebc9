package dev.gmp;

/**
 * Scheduling latency: how long tasks waited from becoming runnable (submitted, spawned, a delay
 * elapsed, a virtual thread unparked) to starting on a worker, since recording began (Go's
 * {@code /sched/latencies}): at the first demand for it ({@link GmpExecutor#schedulingLatency})
 * or, with {@link GmpExecutor.Builder#recordSchedulingLatency}, at the executor's first task.
 * Sampled: one task in {@code sampleEvery} is timed, so the task path pays little. Percentiles
 * come from a log-linear histogram and are reported as the upper bound of the bucket they fall
 * in: at most 12.5% above the true value, never below.
 *
 * @param samples tasks timed so far
 * @param sampleEvery one task in this many is timed
 * @param p50Nanos the median wait, in nanoseconds (0 with no samples)
 * @param p90Nanos the 90th percentile
 * @param p99Nanos the 99th percentile
 * @param p999Nanos the 99.9th percentile
 * @param maxNanos the longest wait (the upper bound of its bucket)
 */
public record SchedulingLatency(
    long samples,
    int sampleEvery,
    long p50Nanos,
    long p90Nanos,
    long p99Nanos,
    long p999Nanos,
    long maxNanos) {
  /** The {@code sampleEvery} of every executor: one task in 64 is timed. */
  public static final int SAMPLE_EVERY_DEFAULT = SchedLatency.SAMPLE_EVERY;
}
