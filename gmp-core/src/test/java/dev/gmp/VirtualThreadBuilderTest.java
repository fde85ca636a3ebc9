package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static dev.gmp.TestSupport.await;
import static dev.gmp.TestSupport.closer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * GmpExecutor.virtualThreadBuilder() and newVirtualThreadPerTaskExecutor(): JDK virtual threads
 * whose carriers are gmp's Ms (run with --add-opens java.base/java.lang=ALL-UNNAMED, the
 * vthreads surefire execution).
 */
class VirtualThreadBuilderTest {

  /** Where a virtual thread runs: the executor current() names, and its carrier's name. */
  record Seen(GmpExecutor current, String carrier, boolean virtual, String name) {
    static Seen now() {
      Thread t = Thread.currentThread();
      return new Seen(GmpExecutor.current(), VirtualThreads.currentCarrier().getName(),
          t.isVirtual(), t.getName());
    }
  }

  private static Seen runIn(Thread.Builder b) throws InterruptedException {
    AtomicReference<Seen> seen = new AtomicReference<>();
    Thread t = b.start(() -> seen.set(Seen.now()));
    assertTrue(t.join(java.time.Duration.ofSeconds(LIVENESS_SECONDS)), "thread did not finish");
    return seen.get();
  }

  @Test
  void startRunsTheThreadOnOneOfOurCarriers() throws Exception {
    GmpExecutor ex = GmpExecutor.builder().name("vtb").parallelism(2).build();
    try (var c = closer(ex)) {
      Seen s = runIn(ex.virtualThreadBuilder().name("worker"));
      assertSame(ex, s.current(), "current() from a gmp virtual thread");
      assertTrue(s.virtual());
      assertEquals("worker", s.name());
      assertTrue(s.carrier().startsWith("vtb-m"), "carried by an M of ours: " + s.carrier());
    }
  }

  @Test
  void factoryAndNameCounterWork() throws Exception {
    GmpExecutor ex = GmpExecutor.create(2);
    try (var c = closer(ex)) {
      ThreadFactory f = ex.virtualThreadBuilder().name("w-", 7).factory();
      List<Thread> ts = new ArrayList<>();
      List<GmpExecutor> currents = java.util.Collections.synchronizedList(new ArrayList<>());
      for (int i = 0; i < 3; i++) {
        Thread t = f.newThread(() -> currents.add(GmpExecutor.current()));
        assertTrue(t.isVirtual());
        assertEquals(Thread.State.NEW, t.getState());
        ts.add(t);
      }
      assertEquals(List.of("w-7", "w-8", "w-9"), ts.stream().map(Thread::getName).toList());
      for (Thread t : ts) {
        t.start();
      }
      for (Thread t : ts) {
        assertTrue(t.join(java.time.Duration.ofSeconds(LIVENESS_SECONDS)));
      }
      assertEquals(List.of(ex, ex, ex), currents);
    }
  }

  @Test
  void unstartedAndUncaughtExceptionHandler() throws Exception {
    GmpExecutor ex = GmpExecutor.create(1);
    try (var c = closer(ex)) {
      AtomicReference<Throwable> caught = new AtomicReference<>();
      CountDownLatch handled = new CountDownLatch(1);
      Thread t = ex.virtualThreadBuilder()
          .uncaughtExceptionHandler((th, e) -> {
            caught.set(e);
            handled.countDown();
          })
          .unstarted(() -> {
            throw new IllegalStateException("boom");
          });
      assertEquals(Thread.State.NEW, t.getState());
      t.start();
      await(handled, "the uncaught exception handler");
      assertEquals("boom", caught.get().getMessage());
      assertTrue(t.join(java.time.Duration.ofSeconds(LIVENESS_SECONDS)));
    }
  }

  @Test
  void currentIsNullOffGmpAndNamesTheRightExecutor() throws Exception {
    GmpExecutor a = GmpExecutor.builder().name("vta").parallelism(1).build();
    GmpExecutor b = GmpExecutor.builder().name("vtbb").parallelism(1).build();
    try (var ca = closer(a); var cb = closer(b)) {
      a.virtualThreadBuilder(); // the carrier lookup is ready: current() must still say null
      assertNull(runIn(Thread.ofVirtual()).current(), "a default-scheduler virtual thread");
      assertNull(GmpExecutor.current(), "a platform thread");
      assertSame(a, runIn(a.virtualThreadBuilder()).current());
      assertSame(b, runIn(b.virtualThreadBuilder()).current());
      // A plain task of a: current() is a as before.
      assertSame(a, a.submit(GmpExecutor::current).get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    }
  }

  /**
   * The JDK's rule: a virtual thread started by a virtual thread without a scheduler of its own
   * (Thread.ofVirtual(), Executors.newVirtualThreadPerTaskExecutor()) takes its parent's, so
   * inside a gmp virtual thread those run on gmp too (README).
   */
  @Test
  void virtualThreadsStartedInsideInheritGmp() throws Exception {
    GmpExecutor ex = GmpExecutor.create(2);
    try (var c = closer(ex)) {
      AtomicReference<Seen> child = new AtomicReference<>();
      AtomicReference<GmpExecutor> pooled = new AtomicReference<>();
      Thread t = ex.virtualThreadBuilder().start(() -> {
        try {
          child.set(runIn(Thread.ofVirtual()));
          try (ExecutorService es = java.util.concurrent.Executors
              .newVirtualThreadPerTaskExecutor()) {
            pooled.set(es.submit(GmpExecutor::current).get());
          }
        } catch (InterruptedException | ExecutionException e) {
          throw new AssertionError(e);
        }
      });
      assertTrue(t.join(java.time.Duration.ofSeconds(LIVENESS_SECONDS)));
      assertSame(ex, child.get().current());
      assertSame(ex, pooled.get());
    }
  }

  /**
   * A dropped executor is shut down by its Cleaner (TerminationTest); a builder (or factory, or a
   * live thread) of it must keep it from being collected while it can still be used.
   */
  @Test
  void aBuilderKeepsItsExecutorFromBeingCollected() throws Exception {
    GmpExecutor ex = GmpExecutor.create(1);
    java.lang.ref.WeakReference<GmpExecutor> ref = new java.lang.ref.WeakReference<>(ex);
    Thread.Builder.OfVirtual b = ex.virtualThreadBuilder();
    ex = null;
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    assertTrue(ref.get() != null, "collected while its builder is alive");
    AtomicReference<GmpExecutor> seen = new AtomicReference<>();
    Thread t = b.start(() -> seen.set(GmpExecutor.current()));
    assertTrue(t.join(java.time.Duration.ofSeconds(LIVENESS_SECONDS)));
    assertSame(ref.get(), seen.get());
    TestSupport.terminate(ref.get());
  }

  @Test
  void perTaskExecutorRunsEachTaskInItsOwnGmpVirtualThread() throws Exception {
    GmpExecutor ex = GmpExecutor.create(2);
    try (var c = closer(ex)) {
      List<Future<Seen>> fs = new ArrayList<>();
      ExecutorService es = ex.newVirtualThreadPerTaskExecutor();
      for (int i = 0; i < 200; i++) {
        fs.add(es.submit(Seen::now));
      }
      List<Callable<GmpExecutor>> calls = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        calls.add(GmpExecutor::current);
      }
      for (Future<GmpExecutor> f : es.invokeAll(calls)) {
        assertSame(ex, f.get());
      }
      assertSame(ex, es.invokeAny(calls));
      es.close(); // waits for every thread
      assertTrue(es.isTerminated());
      for (Future<Seen> f : fs) {
        assertTrue(f.isDone(), "close() waited for every task");
        Seen s = f.get();
        assertSame(ex, s.current());
        assertTrue(s.virtual());
      }
      assertThrows(RejectedExecutionException.class, () -> es.submit(() -> 1));
    }
  }

  @Test
  void perTaskExecutorShutdownWaitsAndShutdownNowInterrupts() throws Exception {
    GmpExecutor ex = GmpExecutor.create(2);
    try (var c = closer(ex)) {
      ExecutorService es = ex.newVirtualThreadPerTaskExecutor();
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      AtomicBoolean finished = new AtomicBoolean();
      es.submit(() -> {
        started.countDown();
        release.await();
        finished.set(true);
        return null;
      });
      await(started, "the task started");
      es.shutdown();
      assertFalse(es.awaitTermination(0, TimeUnit.SECONDS), "shutdown waits for the task");
      assertFalse(es.isTerminated());
      release.countDown();
      assertTrue(es.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
      assertTrue(finished.get());

      ExecutorService es2 = ex.newVirtualThreadPerTaskExecutor();
      CountDownLatch sleeping = new CountDownLatch(1);
      Future<?> f = es2.submit(() -> {
        sleeping.countDown();
        Thread.sleep(TimeUnit.DAYS.toMillis(1));
        return null;
      });
      await(sleeping, "the task is about to sleep");
      assertEquals(List.of(), es2.shutdownNow());
      assertTrue(es2.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
      ExecutionException e = assertThrows(ExecutionException.class, f::get);
      assertInstanceOf(InterruptedException.class, e.getCause());
    }
  }
}
