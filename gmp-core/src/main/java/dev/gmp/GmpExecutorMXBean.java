package dev.gmp;

/**
 * The management interface of a {@link GmpExecutor}, registered when the executor is built with
 * {@link GmpExecutor.Builder#jmx(boolean) jmx(true)} under the name {@code
 * dev.gmp:type=GmpExecutor,name=<name>} (the name quoted with {@link
 * javax.management.ObjectName#quote} if it holds a character an unquoted value cannot), and
 * unregistered when the executor terminates.
 *
 * <p>The first four attributes have the shape of the JDK's {@code
 * jdk.management.VirtualThreadSchedulerMXBean}; the rest are gmp's own. Every value is read
 * without stopping the scheduler, as {@link GmpExecutor#stats()} reads it, so two attributes may
 * be from slightly different instants.
 */
public interface GmpExecutorMXBean {
  /**
   * Processors (Go's GOMAXPROCS): how many tasks may run at once.
   *
   * @return the current number of processors
   */
  int getParallelism();

  /**
   * Changes the number of processors, as {@link GmpExecutor#setParallelism} does; it also stops
   * the executor following {@code Runtime.availableProcessors()}.
   *
   * @param size the new number of processors
   * @throws IllegalArgumentException if {@code size} &lt; 1 or &gt; the executor's maxThreads
   */
  void setParallelism(int size);

  /**
   * Worker threads alive: running a task, spinning, idle or in a blocking call.
   *
   * @return the number of worker threads alive
   */
  int getPoolSize();

  /**
   * Tasks that have started and not finished: running on a processor, inside {@link
   * GmpExecutor#blocking}, or found blocked by sysmon (each occupies one worker thread). Parked
   * virtual threads occupy none and are not counted (a mounted one is).
   *
   * @return the number of tasks started and not finished
   */
  int getRunningTaskCount();

  /**
   * Tasks queued and not started: the global queue plus every processor's local queue.
   *
   * @return the number of queued tasks
   */
  long getQueuedTaskCount();

  /**
   * Successful steals of tasks from another processor's local queue.
   *
   * @return the number of steals since the executor was built
   */
  long getStealCount();

  /**
   * {@link GmpStats#handoffs}: one {@code dev.gmp.Handoff} JFR event each.
   *
   * @return the number of hand-offs since the executor was built
   */
  long getHandoffCount();

  /**
   * {@link GmpStats#retakes}: one {@code dev.gmp.Retake} JFR event each.
   *
   * @return the number of retakes since the executor was built
   */
  long getRetakeCount();

  /**
   * Worker threads looking for work to steal.
   *
   * @return the number of spinning worker threads
   */
  int getSpinningThreadCount();

  /**
   * Processors on the idle list.
   *
   * @return the number of idle processors
   */
  int getIdleProcessorCount();

  /**
   * Tasks that finished, normally or by throwing.
   *
   * @return the number of completed tasks since the executor was built
   */
  long getCompletedTaskCount();

  /**
   * Tasks timed for the scheduling latency so far (one in 64: {@link SchedulingLatency}). The
   * first read of any latency attribute starts the timing, unless the builder's {@code
   * recordSchedulingLatency(true)} did at construction.
   *
   * @return the number of sampled tasks
   */
  long getSchedulingLatencySamples();

  /**
   * Median scheduling latency so far: runnable to started.
   *
   * @return the median, in nanoseconds
   */
  long getSchedulingLatencyP50Nanos();

  /**
   * 99th percentile scheduling latency so far.
   *
   * @return the 99th percentile, in nanoseconds
   */
  long getSchedulingLatencyP99Nanos();

  /**
   * 99.9th percentile scheduling latency so far.
   *
   * @return the 99.9th percentile, in nanoseconds
   */
  long getSchedulingLatencyP999Nanos();

  /**
   * Longest scheduling latency so far.
   *
   * @return the maximum, in nanoseconds
   */
  long getSchedulingLatencyMaxNanos();
}
