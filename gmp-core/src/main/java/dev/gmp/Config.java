package dev.gmp;

import java.util.concurrent.ThreadFactory;

/** The executor's settings, validated by {@link GmpExecutor.Builder}. */
record Config(
    int parallelism,
    int maxThreads,
    int maxSpareThreads,
    long timeSliceNanos,
    long keepAliveNanos,
    String name,
    ThreadFactory threadFactory,
    Thread.UncaughtExceptionHandler uncaughtExceptionHandler) {}
