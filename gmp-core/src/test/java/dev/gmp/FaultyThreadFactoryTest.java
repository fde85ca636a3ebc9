package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * ThreadFactories that hand back threads which never run their Runnable: an M must not keep its
 * P (and its share of mcount and nmspinning) for ever; it is written off and the executor keeps
 * running, and terminates, with the threads it can make.
 */
class FaultyThreadFactoryTest {

  /** Every other thread ignores its Runnable (runs and exits without calling it). */
  private static ThreadFactory everyOtherIgnores(AtomicInteger calls, List<Thread> made) {
    return r -> {
      int n = calls.incrementAndGet();
      Runnable body = n % 2 == 1 ? () -> {} : r;
      Thread t = new Thread(body, "faulty-" + n);
      t.setDaemon(true);
      made.add(t);
      return t;
    };
  }

  /** Every other thread throws in its own prologue, before it calls its Runnable. */
  private static ThreadFactory everyOtherDiesAtStart(AtomicInteger calls, List<Thread> made) {
    return r -> {
      int n = calls.incrementAndGet();
      Runnable body =
          n % 2 == 1
              ? () -> {
                throw new IllegalStateException("prologue failure " + n);
              }
              : r;
      Thread t = new Thread(body, "dying-" + n);
      t.setDaemon(true);
      t.setUncaughtExceptionHandler((th, e) -> {}); // the expected prologue failure: keep quiet
      made.add(t);
      return t;
    };
  }

  /** Every other thread is never really started (start() returns without starting it). */
  private static ThreadFactory everyOtherNeverStarts(AtomicInteger calls, List<Thread> made) {
    return r -> {
      int n = calls.incrementAndGet();
      Thread t =
          n % 2 == 1
              ? new Thread(r, "unstarted-" + n) {
                @Override
                public synchronized void start() {}
              }
              : new Thread(r, "started-" + n);
      t.setDaemon(true);
      made.add(t);
      return t;
    };
  }

  private static void runsAllAndTerminates(ThreadFactory tf, int parallelism) throws Exception {
    GmpExecutor ex = GmpExecutor.builder().parallelism(parallelism).threadFactory(tf)
        .uncaughtExceptionHandler((t, e) -> {}).build();
    int n = 20;
    CountDownLatch ran = new CountDownLatch(n);
    for (int i = 0; i < n; i++) {
      ex.execute(ran::countDown);
    }
    TestSupport.await(ran, "all 20 outside tasks run despite the faulty factory: " + ex.stats());
    // The tasks may have run before the watchdog wrote a thread off (a later outside submission
    // starts another spinner beside a late one: Idle#wakeAnotherIfStale), so wait for the count.
    TestSupport.awaitCondition(
        () -> "the written-off threads are counted: " + ex.stats(),
        LIVENESS_SECONDS,
        () -> ex.stats().threadStartFailures() > 0);
    assertTrue(ex.dump().contains("last thread-start failure: "), "the dump names the failure");
    // Still usable: a burst of local spawns too.
    CountDownLatch more = new CountDownLatch(100);
    ex.execute(() -> {
      for (int i = 0; i < 100; i++) {
        ex.execute(more::countDown);
      }
    });
    TestSupport.await(more, "spawned tasks run: " + ex.stats());
    ex.shutdown();
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS),
        "terminates: " + ex.stats());
    assertEquals(0, ex.stats().threads(), "mcount back to 0: " + ex.stats());
  }

  @Test
  void everyOtherThreadIgnoringItsRunnable() throws Exception {
    for (int p : new int[] {1, 2, 4}) {
      runsAllAndTerminates(everyOtherIgnores(new AtomicInteger(), new CopyOnWriteArrayList<>()), p);
    }
  }

  @Test
  void everyOtherThreadDyingInItsPrologue() throws Exception {
    for (int p : new int[] {1, 2, 4}) {
      runsAllAndTerminates(
          everyOtherDiesAtStart(new AtomicInteger(), new CopyOnWriteArrayList<>()), p);
    }
  }

  @Test
  void everyOtherThreadNeverStarted() throws Exception {
    runsAllAndTerminates(everyOtherNeverStarts(new AtomicInteger(), new CopyOnWriteArrayList<>()), 2);
  }

  /**
   * A thread that the watchdog wrote off and that starts running its M afterwards (here: the
   * test runs the Runnable itself, late) exits at once and takes nothing: no task runs twice, no
   * counter moves.
   */
  @Test
  void aWrittenOffThreadThatRunsLateExitsHarmlessly() throws Exception {
    List<Runnable> held = new CopyOnWriteArrayList<>();
    AtomicInteger calls = new AtomicInteger();
    ThreadFactory tf = r -> {
      if (calls.incrementAndGet() == 1) {
        held.add(r); // keep the M's Runnable; the thread we return does nothing
        Thread t = new Thread(() -> {}, "empty-1");
        t.setDaemon(true);
        return t;
      }
      Thread t = new Thread(r, "good-" + calls.get());
      t.setDaemon(true);
      return t;
    };
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).threadFactory(tf)
        .uncaughtExceptionHandler((t, e) -> {}).build();
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch ran = new CountDownLatch(1);
    ex.execute(() -> {
      runs.incrementAndGet();
      ran.countDown();
    });
    TestSupport.await(ran, "the task runs on the second thread: " + ex.stats());
    GmpStats before = ex.stats();
    Thread late = new Thread(held.get(0), "late");
    late.start();
    late.join(TimeUnit.SECONDS.toMillis(LIVENESS_SECONDS));
    assertTrue(!late.isAlive(), "the late M returned at once");
    GmpStats after = ex.stats();
    assertEquals(before.threads(), after.threads(), "mcount unchanged: " + after);
    assertEquals(1, runs.get(), "the task ran once");
    TestSupport.terminate(ex);
  }
}
