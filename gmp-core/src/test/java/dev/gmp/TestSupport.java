package dev.gmp;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Helpers shared by the gmp-core tests: bounded waits that fail with a clear message. */
final class TestSupport {
  private TestSupport() {}

  /** Liveness bound for "this must eventually happen" waits; not a timing claim. */
  static final long LIVENESS_SECONDS = 10;

  /** What {@link #atTheEndOfTheStack} calls. */
  interface StackEndCall<T> {
    T call() throws Exception;
  }

  /**
   * Calls {@code call} at the very end of the caller's stack and returns what it returned (or
   * throws what it threw, a StackOverflowError aside): recurses until the stack overflows, then,
   * from each level on the way back up, calls it through 16 small frames, then 15, ... 0, until
   * one call starts with room enough not to overflow. So the first call that fits lands within a
   * small frame of the stack's end, wherever in its path the end falls. Each level of the
   * recursion is itself 17 small frames, which one sweep covers: the search costs ~100 overflows,
   * not one sweep per frame (~1,700 overflows, over a second on 2 CPUs: beside a CPU burner such
   * a test once ran past its liveness bound).
   */
  static <T> T atTheEndOfTheStack(StackEndCall<T> call) throws Exception {
    StackEnd<T> end = new StackEnd<>(call);
    end.level();
    if (end.failure != null) {
      throw end.failure;
    }
    return end.result;
  }

  private static final class StackEnd<T> {
    private static final int FRAMES = 16;
    private final StackEndCall<T> call;
    private boolean done;
    private T result;
    private Exception failure;

    StackEnd(StackEndCall<T> call) {
      this.call = call;
    }

    void level() {
      try {
        pad(FRAMES);
      } catch (StackOverflowError e) {
        // the end, here or in a level below: call from here
      }
      for (int extra = FRAMES; extra >= 0 && !done; extra--) {
        try {
          result = through(extra);
          done = true;
        } catch (StackOverflowError e) {
          // no room: a frame less, or a level up
        } catch (Exception e) {
          failure = e;
          done = true;
        }
      }
    }

    private void pad(int frames) {
      if (frames > 0) {
        pad(frames - 1);
      } else {
        level();
      }
    }

    private T through(int extra) throws Exception {
      return extra > 0 ? through(extra - 1) : call.call();
    }
  }

  /** Polls {@code cond} until it holds or the deadline passes, then fails with {@code what}. */
  static void awaitCondition(String what, long seconds, BooleanSupplier cond) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!cond.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        fail("timed out after " + seconds + " s waiting for: " + what);
      }
      sleepQuietly(1);
    }
  }

  static void awaitCondition(String what, BooleanSupplier cond) {
    awaitCondition(what, LIVENESS_SECONDS, cond);
  }

  /**
   * Starts ex's threads and sysmon with one task, then waits for sysmon's deep sleep (every P
   * idle): the state after an idle period, from which a test drives what must end that sleep.
   */
  static void startThenAwaitSysmonDeepSleep(GmpExecutor ex) throws Exception {
    ex.submit(() -> {}).get(LIVENESS_SECONDS, TimeUnit.SECONDS);
    awaitCondition("sysmon in its deep sleep (every P idle)", () -> ex.sched.sysmon.waiting);
  }

  /** Same, with a message computed at failure time (e.g. a stats snapshot). */
  static void awaitCondition(Supplier<String> what, long seconds, BooleanSupplier cond) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!cond.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        fail("timed out after " + seconds + " s waiting for: " + what.get());
      }
      sleepQuietly(1);
    }
  }

  static void await(CountDownLatch latch, String what) {
    await(latch, LIVENESS_SECONDS, what);
  }

  /** A task blocked until {@code release} opens, and a task queued behind it. */
  record BlockedP(CountDownLatch release, CountDownLatch queuedRan) {}

  /**
   * At parallelism 1: runs a task that blocks without blocking() until the returned release
   * opens, and once it runs, queues a task behind it that counts down queuedRan.
   */
  static BlockedP blockTheOnlyP(GmpExecutor ex) {
    return blockTheOnlyP(ex, false);
  }

  /** {@link #blockTheOnlyP(GmpExecutor)}, the wait inside GmpExecutor.blocking if marked. */
  static BlockedP blockTheOnlyP(GmpExecutor ex, boolean marked) {
    CountDownLatch blocked = new CountDownLatch(1);
    BlockedP b = new BlockedP(new CountDownLatch(1), new CountDownLatch(1));
    ex.execute(() -> {
      blocked.countDown();
      if (!marked) {
        await(b.release(), "the test releases the blocked task");
        return;
      }
      try {
        GmpExecutor.blocking(() -> {
          await(b.release(), "the test releases the blocked task");
          return null;
        });
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    await(blocked, "the blocked task runs");
    ex.execute(b.queuedRan()::countDown); // waits: the one P is held by the blocked task
    return b;
  }

  /** Same, with a message computed at failure time (the state when the wait gave up). */
  static void await(CountDownLatch latch, Supplier<String> what) {
    try {
      if (!latch.await(LIVENESS_SECONDS, TimeUnit.SECONDS)) {
        fail("timed out after " + LIVENESS_SECONDS + " s waiting for: " + what.get()
            + " (latch count " + latch.getCount() + ")");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      fail("interrupted waiting for: " + what.get());
    }
  }

  /**
   * Runs a task on {@code ex} that spins until {@code stop} is set, and returns once it runs: it
   * holds its processor, so no other worker of that processor steals or runs anything. Set
   * {@code stop} before the executor closes: the hog ignores interrupts.
   */
  static void hogAProcessor(GmpExecutor ex, AtomicBoolean stop) {
    CountDownLatch hogging = new CountDownLatch(1);
    ex.execute(
        () -> {
          hogging.countDown();
          while (!stop.get()) {
            Thread.onSpinWait();
          }
        });
    await(hogging, "the hog to hold a processor");
  }

  static void await(CountDownLatch latch, long seconds, String what) {
    try {
      if (!latch.await(seconds, TimeUnit.SECONDS)) {
        fail("timed out after " + seconds + " s waiting for: " + what + " (latch count "
            + latch.getCount() + ")");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      fail("interrupted waiting for: " + what);
    }
  }

  /**
   * Waits for {@code latch} at most {@link #LIVENESS_SECONDS}, without failing: for threads that
   * are not the test's (a factory's call, a dud thread). An interrupt ends the wait and is kept.
   */
  static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(LIVENESS_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Two tasks running at once, so that two Ms each hold a P; returns once both have run. */
  static void runTwoAtOnce(GmpExecutor ex) throws Exception {
    CountDownLatch both = new CountDownLatch(2);
    Runnable meet = () -> {
      both.countDown();
      awaitQuietly(both);
    };
    Future<?> a = ex.submit(meet);
    Future<?> b = ex.submit(meet);
    a.get();
    b.get();
  }

  static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Shuts down and asserts termination within the liveness bound. */
  static void terminate(GmpExecutor ex) {
    ex.shutdownNow();
    try {
      if (!ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS)) {
        fail("executor did not terminate: " + ex + " " + ex.stats());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      fail("interrupted while terminating " + ex);
    }
  }

  /**
   * A bounded close for try-with-resources: shutdown, wait for the queued tasks within the
   * liveness bound, else shutdownNow and fail. GmpExecutor.close() waits forever, which would
   * turn a stranded task into a hung build and hide the test's own failure message (a failure
   * here is added to the test's failure as suppressed).
   */
  record Closer(GmpExecutor ex) implements AutoCloseable {
    @Override
    public void close() {
      ex.shutdown();
      boolean terminated;
      try {
        terminated = ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        terminated = false;
      }
      if (!terminated) {
        GmpStats before = ex.stats();
        ex.shutdownNow();
        fail("executor did not terminate within " + LIVENESS_SECONDS + " s after shutdown: "
            + before);
      }
    }
  }

  /**
   * Whether the scheduler lock can be taken within {@code seconds} (then it is given back): false
   * means it was left held, as by an overflow delayed out of its acquisition (StackGuard).
   */
  static boolean lockFree(GmpExecutor ex, long seconds) throws InterruptedException {
    if (!ex.sched.lock.tryLock(seconds, TimeUnit.SECONDS)) {
      return false;
    }
    ex.sched.lock.unlock();
    return true;
  }

  static Closer closer(GmpExecutor ex) {
    return new Closer(ex);
  }

  /** A thread-less M of {@code sc} holding one of its idle Ps, as acquirep leaves it. */
  static M mWithP(Scheduler sc, long id) {
    M m = new M(sc, id);
    P pp;
    sc.lock.lock();
    try {
      pp = sc.idle.pidleget();
    } finally {
      sc.lock.unlock();
    }
    org.junit.jupiter.api.Assertions.assertTrue(sc.acquirep(m, pp), "an idle P to hold");
    return m;
  }

  /** A task running on m (its curg), as inside a task's body: for driven entersyscall tests. */
  static G running(M m) {
    G g = g(100 + m.id);
    g.task = () -> {};
    g.setStatus(G.Grunning);
    m.setCurg(g);
    return g;
  }

  static G g(long id) {
    G g = new G();
    g.goid = (int) id;
    g.setStatus(G.Grunnable);
    return g;
  }

  /** A ThreadFactory of daemon threads that remembers every thread it made. */
  static final class CountingFactory implements java.util.concurrent.ThreadFactory {
    final java.util.List<Thread> made = new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public Thread newThread(Runnable r) {
      Thread t = new Thread(r, "counted-" + made.size());
      t.setDaemon(true);
      made.add(t);
      return t;
    }

    int alive() {
      int n = 0;
      for (Thread t : made) {
        if (t.isAlive()) {
          n++;
        }
      }
      return n;
    }
  }
}
