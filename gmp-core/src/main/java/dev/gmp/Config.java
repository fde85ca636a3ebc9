package dev.gmp;

import java.time.Duration;
import java.util.concurrent.ThreadFactory;
import java.util.function.IntSupplier;
import java.util.function.UnaryOperator;

/**
 * The executor's settings, validated by {@link GmpExecutor.Builder}; {@code contextClassLoader} is
 * the one captured at build() for the threads gmp creates itself (Threads#newDaemon); {@code jmx}
 * whether build() registers a {@link GmpExecutorMXBean}; {@code taskDecorator} null when unset;
 * {@code availableProcessors} the CPU count sysmon follows (Resize#followAvailableProcessors),
 * null when the parallelism is pinned (set explicitly, or following switched off);
 * {@code recordLatency} whether scheduling latency is sampled from the start (else from the first
 * demand: Scheduler#recordLatency).
 */
record Config(
    int parallelism,
    int maxThreads,
    int maxSpareThreads,
    long timeSliceNanos,
    long keepAliveNanos,
    String name,
    ThreadFactory threadFactory,
    Thread.UncaughtExceptionHandler uncaughtExceptionHandler,
    ClassLoader contextClassLoader,
    boolean jmx,
    UnaryOperator<Runnable> taskDecorator,
    IntSupplier availableProcessors,
    boolean recordLatency) {

  /** The core settings only, everything observable off (gmp-stress's driven schedulers). */
  Config(
      int parallelism,
      int maxThreads,
      int maxSpareThreads,
      long timeSliceNanos,
      long keepAliveNanos,
      String name,
      ThreadFactory threadFactory,
      Thread.UncaughtExceptionHandler uncaughtExceptionHandler,
      ClassLoader contextClassLoader) {
    this(
        parallelism,
        maxThreads,
        maxSpareThreads,
        timeSliceNanos,
        keepAliveNanos,
        name,
        threadFactory,
        uncaughtExceptionHandler,
        contextClassLoader,
        false,
        null,
        null,
        false);
  }

  /**
   * GmpExecutor.Builder's settings, cross-checked: the parallelism (explicit, else the CPU count,
   * followed unless pinned), the settings that exclude each other, the default factory and name.
   */
  /**
   * The longest time slice: sysmon multiplies it (Oversubscription#vmWaitNanos), so a longer one
   * (such as {@code ChronoUnit.FOREVER}'s) is taken as this, about 36 years: never.
   */
  static final long MAX_TIME_SLICE_NANOS = Long.MAX_VALUE / 8;

  /**
   * {@code d} in nanoseconds, at most {@code max}: a duration too long for a long count of them
   * (such as {@code ChronoUnit.FOREVER}'s) means never, as TimeUnit's conversions saturate.
   */
  static long nanos(Duration d, long max) {
    return d.compareTo(Duration.ofNanos(max)) >= 0 ? max : d.toNanos();
  }

  static Config of(GmpExecutor.Builder b) {
    int parallelism = b.parallelism;
    String name = b.name;
    ThreadFactory threadFactory = b.threadFactory;
    boolean explicit = parallelism != 0;
    if (explicit && Boolean.TRUE.equals(b.follow)) {
      throw new IllegalArgumentException("parallelism(" + parallelism + ") and"
          + " followAvailableProcessors(true) are exclusive: an explicit parallelism is pinned");
    }
    // The CPU count, as sysmon follows it later (Resize#followAvailableProcessors): capped at
    // maxThreads, so that maxThreads(1) builds on any machine; only an explicit parallelism
    // above maxThreads is the caller's mistake.
    int procs = explicit
        ? parallelism
        : Math.min(Math.min(GmpExecutor.MAX_PARALLELISM, Math.max(1, b.cpus.getAsInt())),
            b.maxThreads);
    if (b.maxThreads < procs) {
      throw new IllegalArgumentException(
          "maxThreads (" + b.maxThreads + ") must be >= parallelism (" + procs + ")");
    }
    String n = name;
    while (n == null || (name == null && b.jmx && Jmx.isRegistered(n))) {
      n = Threads.nextPoolName(); // an unnamed executor's: past one a user named gmp-N in JMX
    }
    ClassLoader ccl = Thread.currentThread().getContextClassLoader();
    ThreadFactory tf = threadFactory != null ? threadFactory : Threads.defaultFactory(n, ccl);
    IntSupplier followed = explicit || Boolean.FALSE.equals(b.follow) ? null : b.cpus;
    return new Config(procs, b.maxThreads, b.maxSpareThreads,
        nanos(b.timeSlice, MAX_TIME_SLICE_NANOS), nanos(b.keepAlive, Long.MAX_VALUE), n, tf,
        b.handler, ccl, b.jmx, b.taskDecorator, followed,
        b.recordLatency);
  }
}
