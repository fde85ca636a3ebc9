package dev.gmp.bench;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts an executor's live platform threads and the most alive at once since {@link
 * #resetPeak}: a ThreadFactory (and a ForkJoinPool factory) whose threads count themselves in
 * when they start running and out when they end. The same count for every executor.
 */
final class LiveThreads {
  private final AtomicInteger live = new AtomicInteger();
  private final AtomicInteger peak = new AtomicInteger();
  private final AtomicInteger ids = new AtomicInteger();

  private void in() {
    int n = live.incrementAndGet();
    peak.accumulateAndGet(n, Math::max);
  }

  private void out() {
    live.decrementAndGet();
  }

  /** The most threads alive at once since the last reset (at least those alive now). */
  int peak() {
    return peak.get();
  }

  /** Starts a new peak window from the threads alive now. */
  void resetPeak() {
    peak.set(live.get());
  }

  ThreadFactory factory(String prefix) {
    return r -> {
      Thread t =
          new Thread(
              () -> {
                in();
                try {
                  r.run();
                } finally {
                  out();
                }
              },
              prefix + "-" + ids.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  ForkJoinPool.ForkJoinWorkerThreadFactory forkJoinFactory() {
    return pool ->
        new ForkJoinWorkerThread(pool) {
          @Override
          protected void onStart() {
            in();
            super.onStart();
          }

          @Override
          protected void onTermination(Throwable exception) {
            try {
              super.onTermination(exception);
            } finally {
              out();
            }
          }
        };
  }
}
