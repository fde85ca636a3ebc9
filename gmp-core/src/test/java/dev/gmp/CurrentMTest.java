package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * "Which M am I" (ThreadTable#currentM) answers for the default factory's threads, which name
 * their M, as for a user's factory's, which only the table knows: a task's spawn must go to its
 * own P (runnext first), and nothing else may pass for one of our Ms.
 */
class CurrentMTest {

  /** A user's factory: plain threads, so currentM must find the M through the table. */
  private static final ThreadFactory PLAIN = r -> new Thread(r, "plain-factory");

  @Test
  void theDefaultFactorysThreadNamesItsM() throws Exception {
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).build();
    try (var c = TestSupport.closer(ex)) {
      M m = currentMInATaskOf(ex);
      assertInstanceOf(ThreadTable.MThread.class, m.runner);
    }
  }

  @Test
  void aUserFactorysThreadIsFoundInTheTable() throws Exception {
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).threadFactory(PLAIN).build();
    try (var c = TestSupport.closer(ex)) {
      M m = currentMInATaskOf(ex);
      assertFalse(m.runner instanceof ThreadTable.MThread);
    }
  }

  /** What currentM() answers inside a task of ex: an M of ex, running on the task's thread. */
  private static M currentMInATaskOf(GmpExecutor ex) {
    AtomicReference<Thread> thread = new AtomicReference<>();
    AtomicReference<M> m = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(1);
    ex.execute(() -> {
      thread.set(Thread.currentThread());
      m.set(ThreadTable.currentM());
      done.countDown();
    });
    TestSupport.await(done, "the task runs");
    assertSame(ex.sched, m.get().sched);
    assertSame(thread.get(), m.get().runner);
    return m.get();
  }

  /**
   * At parallelism 1 a task that spawns x, then y, sees y run first (y takes runnext, x goes
   * behind it): the order of a local spawn. Had the spawner not been recognised as our M, both
   * would have gone to the global queue and run x first.
   */
  @Test
  void aTasksSpawnsAreLocalWithEitherFactory() throws Exception {
    for (ThreadFactory f : new ThreadFactory[] {null, PLAIN}) {
      GmpExecutor.Builder b = GmpExecutor.builder().parallelism(1);
      if (f != null) {
        b.threadFactory(f);
      }
      GmpExecutor ex = b.build();
      try (var c = TestSupport.closer(ex)) {
        List<String> order = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(2);
        ex.execute(() -> {
          ex.execute(() -> {
            order.add("x");
            done.countDown();
          });
          ex.execute(() -> {
            order.add("y");
            done.countDown();
          });
        });
        TestSupport.await(done, "both spawns run");
        assertEquals(List.of("y", "x"), order, f == null ? "default factory" : "user factory");
      }
    }
  }

  /** Another executor's task, an outside thread and a virtual thread are not ours. */
  @Test
  void nothingElsePassesForOurM() throws Exception {
    GmpExecutor a = GmpExecutor.builder().parallelism(1).build();
    GmpExecutor b = GmpExecutor.builder().parallelism(1).build();
    try (var ca = TestSupport.closer(a);
        var cb = TestSupport.closer(b)) {
      AtomicReference<M> seen = new AtomicReference<>();
      CountDownLatch done = new CountDownLatch(1);
      a.execute(() -> b.execute(() -> {
        seen.set(ThreadTable.currentM());
        done.countDown();
      }));
      TestSupport.await(done, "b's task runs");
      assertSame(b.sched, seen.get().sched, "b's task runs on b's M");
      assertNull(ThreadTable.currentM(), "the test's own thread");
      AtomicReference<M> inVirtual = new AtomicReference<>(new M(a.sched, -1));
      Thread v = Thread.ofVirtual().start(() -> inVirtual.set(ThreadTable.currentM()));
      v.join();
      assertNull(inVirtual.get(), "a virtual thread");
    }
  }
}
