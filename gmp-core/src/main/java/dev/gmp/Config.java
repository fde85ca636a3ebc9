package dev.gmp;

import java.util.concurrent.ThreadFactory;

/**
 * The executor's settings, validated by {@link GmpExecutor.Builder}; {@code contextClassLoader} is
 * the one captured at build() for the threads gmp creates itself (Threads#newDaemon).
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
    ClassLoader contextClassLoader) {}
