package dev.gmp;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * gmp's own notices raised on sysmon's thread (a stall, a thread that never started, a failed
 * round), delivered off it: the user's handler or logger may be slow, and while sysmon waits in
 * it no blocked task's P is handed on (a handler that slept 5 s kept a task queued behind an
 * unmarked 1 s block waiting for all of that second). One short-lived daemon thread at a time
 * drains them, as the thread starter drains sysmon's new Ms (Threads#startOffSysmon); with no
 * thread to be had they are delivered on sysmon after all.
 */
final class Reports {
  private final Scheduler s;

  private final ConcurrentLinkedQueue<Throwable> queue = new ConcurrentLinkedQueue<>();

  private final AtomicBoolean draining = new AtomicBoolean();

  Reports(Scheduler s) {
    this.s = s;
  }

  /** Queues e for the reporter thread, starting one unless one drains. sysmon only. */
  void offSysmon(Throwable e) {
    try {
      queue.add(e);
    } catch (OutOfMemoryError oom) {
      s.reportHere(e); // no room even for the node: here, as before
      return;
    }
    if (draining.compareAndSet(false, true)) { // CAS: one reporter drains at a time
      try {
        Threads.newDaemon(s.config.name() + "-report", new Drain(this),
            s.config.contextClassLoader()).start();
      } catch (Throwable t) { // no thread at all (out of memory): deliver them here after all
        draining.set(false);
        drain();
      }
    }
  }

  private void drain() {
    for (; ; ) {
      for (Throwable e = queue.poll(); e != null; e = queue.poll()) {
        s.reportHere(e);
      }
      draining.set(false); // volatile; then recheck: an add after our poll may have seen us
      if (queue.isEmpty() || !draining.compareAndSet(false, true)) {
        return;
      }
    }
  }

  /** The reporter's body; a class, not a lambda (see Threads' DefaultFactory). */
  private static final class Drain implements Runnable {
    private final Reports reports;

    Drain(Reports reports) {
      this.reports = reports;
    }

    @Override
    public void run() {
      try {
        reports.drain();
      } catch (Throwable e) {
        reports.draining.set(false); // out of memory: the next notice starts another reporter
        throw e;
      }
    }
  }
}
