package dev.gmp;

import java.util.concurrent.ThreadFactory;
import java.util.function.IntSupplier;
import java.util.function.UnaryOperator;

/**
 * The executor's settings, validated by {@link GmpExecutor.Builder}; {@code contextClassLoader} is
 * the one captured at build() for the threads gmp creates itself (Threads#newDaemon); {@code jmx}
 * whether build() registers a {@link GmpExecutorMXBean}; {@code taskDecorator} null when unset;
 * {@code availableProcessors} the CPU count sysmon follows (Resize#followAvailableProcessors),
 * null when the parallelism is pinned (set explicitly, or following switched off).
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
    IntSupplier availableProcessors) {

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
        null);
  }
}
