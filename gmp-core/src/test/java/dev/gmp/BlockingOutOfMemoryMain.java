package dev.gmp;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.Recording;

/**
 * Run by JfrOutOfMemoryTest in a JVM with a small heap (Serial GC) and a JFR recording: a
 * task fills the heap to the last bytes and calls {@code blocking()}, again and again. Entering
 * the call marks its P blocked and then, recording, allocates the P's state event; before 2849f67
 * the OutOfMemoryError from that allocation left the P marked blocked under an M that went on
 * running tasks, and the executor never terminated (6 runs of 6). Since then entersyscall leaves
 * such a call as its return would, and Jfr's emitters drop an event they cannot allocate, so the
 * call may now return normally. Either way, afterwards no two tasks may run at once, each must run
 * once, and the executor must terminate. Prints "ok", or what went wrong.
 */
public final class BlockingOutOfMemoryMain {
  private BlockingOutOfMemoryMain() {}

  private static final Callable<Object> NOTHING = () -> null;

  public static void main(String[] args) throws Exception {
    GmpExecutor ex = GmpExecutor.create(1); // its JFR listener sets Jfr.on while a recording runs
    try (Recording rec = new Recording()) {
      rec.enable(Jfr.ProcStateEvent.class);
      rec.start();
      while (!Jfr.on) {
        Thread.onSpinWait();
      }
      run(ex);
    }
  }

  /** Whether t is parked in a latch's await (get() on a future): checked before the fill. */
  private static boolean waitsInGet(Thread t) {
    if (t.getState() != Thread.State.WAITING) {
      return false;
    }
    for (StackTraceElement f : t.getStackTrace()) {
      if (f.getClassName().equals("java.util.concurrent.CountDownLatch")
          && f.getMethodName().equals("await")) {
        return t.getState() == Thread.State.WAITING; // still: the trace was taken while it was
      }
    }
    return false;
  }

  private static void run(GmpExecutor ex) throws Exception {
    ex.submit(() -> GmpExecutor.blocking(NOTHING)).get(); // every call site linked, classes loaded
    // Queued work and a P that would look blocked: sysmon hands such a P to another M.
    int n = 200;
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger ran = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(n);
    // Made before the heap is filled: linking a lambda allocates, and main must allocate
    // nothing new once it has (a class that failed to initialise then fails for good).
    Runnable spin = () -> {
      int now = running.incrementAndGet();
      for (int m = most.get(); now > m && !most.compareAndSet(m, now); m = most.get()) {
        // no method reference: its call site would be linked here, after the fill
      }
      long end = System.nanoTime() + 200_000;
      while (System.nanoTime() < end) {
        Thread.onSpinWait();
      }
      running.decrementAndGet();
      ran.incrementAndGet();
      done.countDown();
    };
    Thread main = Thread.currentThread();
    ex.submit(() -> {
      // Fill only once main waits in get(), which allocates its latch on the way in: main
      // descheduled between submit and get used to meet a full heap there and die of it. Its
      // state alone is not enough: main also waits (WAITING) for the scheduler lock inside
      // submit's wake-up when sysmon holds it, and then met the full heap in get() (once in
      // three test runs beside a CPU burner). Parked in the latch's await, it allocates nothing.
      while (!waitsInGet(main)) {
        Thread.onSpinWait();
      }
      List<Object> hog = new ArrayList<>(1 << 16);
      for (int attempt = 0; attempt < 20; attempt++) { // an error may land where it is harmless
        JfrOutOfMemoryMain.fill(hog);
        try {
          GmpExecutor.blocking(NOTHING);
        } catch (OutOfMemoryError e) {
          // the task may get the error; the executor must stay whole
        }
        hog.clear();
      }
      return null;
    }).get();
    for (int i = 0; i < n; i++) {
      ex.execute(spin);
    }
    boolean all = done.await(20, TimeUnit.SECONDS);
    ex.shutdown();
    boolean terminated = ex.awaitTermination(20, TimeUnit.SECONDS);
    if (all && terminated && most.get() == 1 && ran.get() == n) {
      System.out.println("ok");
    } else {
      System.out.println("ran " + ran + " of " + n + ", at most " + most + " at once (parallelism"
          + " 1), terminated " + terminated + "; " + ex);
    }
  }
}
