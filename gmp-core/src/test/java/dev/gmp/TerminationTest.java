package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What "terminated" means: shutdown of fresh and idle executors, awaitTermination, the Cleaner. */
class TerminationTest {

  @Test
  void aFreshExecutorIsTerminatedWhenShutdownReturns() {
    GmpExecutor ex = GmpExecutor.create(2);
    ex.shutdown();
    assertTrue(ex.isShutdown());
    assertTrue(ex.isTerminated(), "no thread ever started, nothing to wait for: " + ex);
  }

  @Test
  void aFreshExecutorStartsNoThread() throws Exception {
    TestSupport.CountingFactory tf = new TestSupport.CountingFactory();
    List<Thread> made = tf.made;
    GmpExecutor ex = GmpExecutor.builder().parallelism(4).threadFactory(tf).build();
    assertEquals(0, ex.stats().threads());
    assertTrue(made.isEmpty());
    ex.shutdownNow();
    assertTrue(ex.isTerminated());
    assertTrue(ex.awaitTermination(0, TimeUnit.SECONDS));
  }

  @Test
  void anIdleUsedExecutorTerminatesPromptlyAndItsThreadsAreGone() throws Exception {
    TestSupport.CountingFactory tf = new TestSupport.CountingFactory();
    List<Thread> made = tf.made;
    GmpExecutor ex = GmpExecutor.builder().parallelism(2).threadFactory(tf).build();
    CountDownLatch ran = new CountDownLatch(100);
    for (int i = 0; i < 100; i++) {
      ex.execute(ran::countDown);
    }
    TestSupport.await(ran, "tasks run");
    TestSupport.awaitCondition("the executor goes idle",
        () -> ex.stats().idleProcessors() == 2 && ex.stats().runnableTasks() == 0);
    ex.shutdown();
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS), ex.stats().toString());
    assertTrue(ex.isTerminated());
    for (Thread t : made) {
      assertFalse(t.isAlive(), "awaitTermination returned true: " + t + " must have exited");
    }
  }

  /**
   * Terminated already: true for a caller whose interrupt status is set, which stays set, as
   * ThreadPoolExecutor and ForkJoinPool answer. The latch's await threw InterruptedException.
   */
  @Test
  void awaitTerminationOfATerminatedExecutorIsTrueForAnInterruptedCaller() throws Exception {
    GmpExecutor ex = GmpExecutor.create(1);
    ex.execute(() -> {});
    ex.shutdown();
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
    Thread.currentThread().interrupt();
    try {
      assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
      assertTrue(ex.awaitTermination(0, TimeUnit.SECONDS));
    } finally {
      assertTrue(Thread.interrupted(), "the caller's interrupt status is kept");
    }
  }

  /** False while a task runs (not true on a timeout), true once it is done. */
  @Test
  void awaitTerminationIsFalseWhileATaskStillRuns() throws Exception {
    GmpExecutor ex = GmpExecutor.create(1);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ex.execute(() -> {
      started.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    TestSupport.await(started, "task started");
    ex.shutdown();
    assertFalse(ex.awaitTermination(20, TimeUnit.MILLISECONDS));
    assertFalse(ex.isTerminated());
    release.countDown();
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
  }

  /**
   * An executor dropped without shutdown() is collected (its threads do not keep it reachable)
   * and a Cleaner shuts its scheduler down: every thread it made exits. GC-driven, with a
   * generous bound; no timing claim.
   */
  @Test
  void anUnreachableExecutorIsShutDownAndItsThreadsExit() throws Exception {
    List<Thread> made = new CopyOnWriteArrayList<>();
    String[] name = new String[1];
    WeakReference<GmpExecutor> ref = useAndDrop(made, name);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (ref.get() != null && System.nanoTime() < deadline) {
      System.gc();
      TestSupport.sleepQuietly(10);
    }
    assertNull(ref.get(), "the executor became unreachable and was collected");
    for (Thread t : made) {
      t.join(TimeUnit.SECONDS.toMillis(30));
      assertFalse(t.isAlive(), t + " exited after the Cleaner shut the scheduler down");
    }
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().equals(name[0] + "-sysmon")) {
        t.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(t.isAlive(), "sysmon exited: " + t);
      }
    }
  }

  /**
   * A terminated executor the program has dropped is garbage at the next collection: its
   * Cleaner action lets go of the scheduler at termination. Before, the action held the scheduler
   * (64 KB of run queue per processor) until a collection had found the executor unreachable and
   * the cleaner thread had then run the action, so executors made and dropped quickly could fill
   * a small heap (jcstress's ShutdownVsExecuteStress, 256 MB, ran out once).
   */
  @Test
  void aTerminatedExecutorIsGarbageAtTheNextCollection() {
    WeakReference<Scheduler> ref = terminateAndDrop();
    System.gc(); // one collection: the cleaner thread has had no chance to run in between
    assertNull(ref.get(), "nothing but the dropped executor held its terminated scheduler");
  }

  /**
   * A pending periodic task keeps its executor alive when only the task's future is kept (a
   * heartbeat): the Cleaner's shutdown would cancel it, where a ScheduledThreadPoolExecutor runs
   * on. Once the task is cancelled the executor is collected as any dropped one.
   */
  @Test
  void aPendingPeriodicTaskKeepsItsDroppedExecutorAlive() {
    AtomicInteger runs = new AtomicInteger();
    List<WeakReference<GmpExecutor>> ref = new ArrayList<>();
    ScheduledFuture<?> heartbeat = heartbeatOnADroppedExecutor(runs, ref);
    System.gc();
    assertNotNull(ref.get(0).get(), "held by its pending periodic task");
    int seen = runs.get();
    TestSupport.awaitCondition("the heartbeat runs on after the collection",
        () -> runs.get() > seen + 2);
    assertFalse(heartbeat.isDone(), "not cancelled by a shutdown");
    assertTrue(heartbeat.cancel(false));
    TestSupport.awaitCondition("collected once its periodic task is cancelled", () -> {
      System.gc();
      return ref.get(0).get() == null;
    });
  }

  /**
   * A pending one-shot timer keeps its executor alive too, as a ScheduledThreadPoolExecutor or a
   * ForkJoinPool stays alive for its delayed tasks: before, a collection took the executor and
   * its Cleaner shut it down while the timers waited, and the task then ran on an M that had
   * woken by its own timeout, with {@code current()} null (5 runs of 5 with a user's program).
   * Once the last timer is cancelled the executor is collected as any dropped one.
   */
  @Test
  void aPendingOneShotTimerKeepsItsDroppedExecutorAlive() throws Exception {
    List<WeakReference<GmpExecutor>> ref = new ArrayList<>();
    List<ScheduledFuture<?>> timers = oneShotsOnADroppedExecutor(ref);
    ScheduledFuture<?> soon = timers.get(0);
    TestSupport.awaitCondition("the near timer fired, collections meanwhile", () -> {
      System.gc();
      return soon.isDone();
    });
    assertEquals("current() is its executor, not shut down", soon.get());
    System.gc();
    assertNotNull(ref.get(0).get(), "held by its other pending timer");
    assertTrue(timers.get(1).cancel(false));
    TestSupport.awaitCondition("collected once its last timer is cancelled", () -> {
      System.gc();
      return ref.get(0).get() == null;
    });
  }

  /**
   * An executor the program dropped is not collected while its threads run its tasks: a task
   * that resubmits itself through current() (fire and forget) runs on, where before a collection
   * during the run made current() null (or the Cleaner's shutdown rejected the resubmission). Once
   * idle, the dropped executor is collected as before.
   */
  @Test
  void aDroppedExecutorRunningItsTasksIsNotCollectedUnderThem() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicReference<Throwable> failure =
        new java.util.concurrent.atomic.AtomicReference<>();
    List<WeakReference<GmpExecutor>> ref = new CopyOnWriteArrayList<>();
    CountDownLatch done = new CountDownLatch(1);
    GmpExecutor.create(1).execute(new Runnable() { // no reference kept
      @Override
      public void run() {
        try {
          GmpExecutor ex = GmpExecutor.current();
          ran.incrementAndGet();
          if (!stop.get()) {
            ex.execute(this); // NullPointerException if it was collected
          } else {
            ref.add(new WeakReference<>(ex));
            done.countDown();
          }
        } catch (Throwable e) {
          failure.set(e);
          done.countDown();
        }
      }
    });
    for (int i = 0; i < 20 && done.getCount() != 0; i++) {
      System.gc(); // each finds the executor unreachable but for its running M
    }
    stop.set(true);
    TestSupport.await(done, "the loop ends");
    assertNull(failure.get(), "round " + ran.get() + ": " + failure.get());
    TestSupport.awaitCondition("collected once idle", () -> {
      System.gc();
      return ref.get(0).get() == null;
    });
  }

  private static ScheduledFuture<?> heartbeatOnADroppedExecutor(
      AtomicInteger runs, List<WeakReference<GmpExecutor>> ref) {
    GmpExecutor ex = GmpExecutor.create(1);
    ref.add(new WeakReference<>(ex));
    return ex.scheduleAtFixedRate(runs::incrementAndGet, 0, 1, TimeUnit.MILLISECONDS);
  }

  /** A timer due in 200 ms that reports what it finds, and one due in an hour. */
  private static List<ScheduledFuture<?>> oneShotsOnADroppedExecutor(
      List<WeakReference<GmpExecutor>> ref) {
    GmpExecutor ex = GmpExecutor.create(1);
    ref.add(new WeakReference<>(ex));
    ScheduledFuture<String> soon = ex.schedule(() -> {
      GmpExecutor cur = GmpExecutor.current();
      return cur == null ? "current() is null"
          : cur.isShutdown() ? "current() is shut down" : "current() is its executor, not shut down";
    }, 200, TimeUnit.MILLISECONDS);
    return List.of(soon, ex.schedule(() -> { }, 1, TimeUnit.HOURS));
  }

  private static WeakReference<Scheduler> terminateAndDrop() {
    GmpExecutor ex = GmpExecutor.create(2);
    ex.shutdown(); // a fresh executor: no thread, terminated when shutdown returns
    assertTrue(ex.isTerminated());
    return new WeakReference<>(ex.sched);
  }

  private static WeakReference<GmpExecutor> useAndDrop(List<Thread> made, String[] name)
      throws Exception {
    ThreadFactory tf = r -> {
      Thread t = new Thread(r, "dropped-m");
      t.setDaemon(true);
      made.add(t);
      return t;
    };
    GmpExecutor ex = GmpExecutor.builder().parallelism(2).threadFactory(tf).build();
    CountDownLatch ran = new CountDownLatch(10);
    for (int i = 0; i < 10; i++) {
      ex.execute(ran::countDown);
    }
    TestSupport.await(ran, "tasks run");
    assertFalse(made.isEmpty());
    String str = ex.toString(); // GmpExecutor[NAME, running, parallelism=2]
    name[0] = str.substring("GmpExecutor[".length(), str.indexOf(','));
    return new WeakReference<>(ex);
  }
}
