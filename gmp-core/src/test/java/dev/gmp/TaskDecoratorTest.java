package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Builder.taskDecorator: once per accepted task, context travels, a throwing one rejects. */
class TaskDecoratorTest {
  /** The "MDC" of these tests: a thread-local context captured at submission. */
  private static final ThreadLocal<String> CTX = new ThreadLocal<>();

  /** What the decorator returns: restores the submitter's context around the task. */
  record WithContext(Runnable task, String ctx) implements Runnable {
    @Override
    public void run() {
      String saved = CTX.get();
      CTX.set(ctx);
      try {
        task.run();
      } finally {
        CTX.set(saved);
      }
    }
  }

  private static UnaryOperator<Runnable> capturing(AtomicInteger calls) {
    return r -> {
      calls.incrementAndGet();
      return new WithContext(r, CTX.get());
    };
  }

  @Test
  void appliedExactlyOncePerTaskFromOutsideAndFromWorkers() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    try (TestSupport.Closer c = TestSupport.closer(
        GmpExecutor.builder().parallelism(2).taskDecorator(capturing(calls)).build())) {
      GmpExecutor ex = c.ex();
      ConcurrentLinkedQueue<String> seen = new ConcurrentLinkedQueue<>();
      int kids = 50;
      CountDownLatch done = new CountDownLatch(kids + 1);
      CTX.set("outside");
      try {
        ex.execute(() -> {
          seen.add("parent:" + CTX.get());
          CTX.set("inner"); // a task's own context travels to what it spawns
          for (int i = 0; i < kids; i++) {
            ex.execute(() -> {
              seen.add("kid:" + CTX.get());
              done.countDown();
            });
          }
          done.countDown();
        });
      } finally {
        CTX.remove();
      }
      TestSupport.await(done, "parent and kids ran");
      assertEquals(kids + 1, calls.get());
      assertEquals(1, seen.stream().filter("parent:outside"::equals).count(), seen.toString());
      assertEquals(kids, seen.stream().filter("kid:inner"::equals).count(), seen.toString());
    }
  }

  @Test
  void submitAndInvokeAllGoThroughItOncePerTask() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    try (TestSupport.Closer c = TestSupport.closer(
        GmpExecutor.builder().parallelism(2).taskDecorator(capturing(calls)).build())) {
      GmpExecutor ex = c.ex();
      CTX.set("caller");
      try {
        assertEquals("caller", ex.submit(CTX::get).get(LIVENESS_SECONDS, TimeUnit.SECONDS));
        assertEquals(1, calls.get());
        List<Callable<String>> work = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
          work.add(CTX::get);
        }
        for (Future<String> f : ex.invokeAll(work, LIVENESS_SECONDS, TimeUnit.SECONDS)) {
          assertEquals("caller", f.get());
        }
        assertEquals(6, calls.get());
        assertEquals("caller", ex.invokeAny(List.of(CTX::get), LIVENESS_SECONDS,
            TimeUnit.SECONDS));
        assertEquals(7, calls.get());
      } finally {
        CTX.remove();
      }
    }
  }

  @Test
  void aThrowingDecoratorMakesExecuteThrowAndQueuesNothing() throws Exception {
    IllegalStateException boom = new IllegalStateException("no context");
    Runnable poison = () -> {};
    AtomicInteger ran = new AtomicInteger();
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().parallelism(1)
        .taskDecorator(r -> {
          if (r == poison) {
            throw boom;
          }
          return r;
        }).build())) {
      GmpExecutor ex = c.ex();
      assertSame(boom, assertThrows(IllegalStateException.class, () -> ex.execute(poison)));
      // From a worker too: the spawning task sees the exception, nothing is queued.
      Future<Throwable> inner = ex.submit(() -> {
        try {
          ex.execute(poison);
          return null;
        } catch (Throwable t) {
          return t;
        }
      });
      assertSame(boom, inner.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      ex.execute(ran::incrementAndGet);
      TestSupport.awaitCondition(() -> "two tasks completed: " + ex.stats(), LIVENESS_SECONDS,
          () -> ex.stats().completedTasks() == 2);
      assertEquals(1, ran.get());
      assertEquals(0, ex.stats().runnableTasks());
      assertTrue(ex.shutdownNow().isEmpty(), "nothing half-queued");
    }
  }

  @Test
  void aDecoratorReturningNullIsANullPointerExceptionNamingIt() {
    try (TestSupport.Closer c = TestSupport.closer(
        GmpExecutor.builder().parallelism(1).taskDecorator(r -> null).build())) {
      NullPointerException e =
          assertThrows(NullPointerException.class, () -> c.ex().execute(() -> {}));
      assertTrue(e.getMessage().startsWith("taskDecorator returned null"), e.getMessage());
      assertEquals(0, c.ex().stats().runnableTasks());
    }
  }

  @Test
  void shutdownNowReturnsTheDecoratedTasksAsQueued() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).maxSpareThreads(0)
        .taskDecorator(capturing(calls)).build();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ex.execute(() -> {
      started.countDown();
      try {
        release.await(LIVENESS_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    TestSupport.await(started, "the only processor is busy");
    List<Runnable> originals = List.of(() -> {}, () -> {}, () -> {});
    for (Runnable r : originals) {
      ex.execute(r);
    }
    List<Runnable> left = ex.shutdownNow();
    release.countDown();
    assertEquals(3, left.size());
    List<Runnable> unwrapped = new ArrayList<>();
    for (Runnable r : left) {
      unwrapped.add(assertInstanceOf(WithContext.class, r).task());
    }
    assertEquals(originals, unwrapped);
    assertEquals(4, calls.get());
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
  }

  @Test
  void aScheduledCallableIsDecoratedOnceAndKeepsItsValueAndException() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    try (TestSupport.Closer c = TestSupport.closer(
        GmpExecutor.builder().parallelism(1).taskDecorator(capturing(calls)).build())) {
      GmpExecutor ex = c.ex();
      CTX.set("scheduler");
      try {
        assertEquals("ctx=scheduler", ex.schedule(() -> "ctx=" + CTX.get(), 1,
            TimeUnit.MILLISECONDS).get(LIVENESS_SECONDS, TimeUnit.SECONDS));
        assertEquals("now", ex.schedule(() -> "now", 0, TimeUnit.MILLISECONDS)
            .get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      } finally {
        CTX.remove();
      }
      Exception boom = new java.io.IOException("callable failed");
      java.util.concurrent.ExecutionException e = assertThrows(
          java.util.concurrent.ExecutionException.class,
          () -> ex.schedule(() -> {
            throw boom;
          }, 1, TimeUnit.MILLISECONDS).get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      assertSame(boom, e.getCause());
      assertEquals(3, calls.get(), "each scheduled Callable decorated exactly once");
    }
  }

  @Test
  void rejectedAndInvalidTasksAreNeverDecorated() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).taskDecorator(capturing(calls)).build();
    assertThrows(NullPointerException.class, () -> ex.execute(null));
    assertThrows(IllegalArgumentException.class,
        () -> ex.scheduleAtFixedRate(() -> {}, 1, 0, TimeUnit.MILLISECONDS));
    assertThrows(IllegalArgumentException.class,
        () -> ex.scheduleWithFixedDelay(() -> {}, 1, -1, TimeUnit.MILLISECONDS));
    assertThrows(NullPointerException.class, () -> ex.schedule(() -> {}, 1, null));
    List<Callable<Integer>> nullSecond = Arrays.asList(() -> 1, null);
    assertThrows(NullPointerException.class, () -> ex.invokeAll(nullSecond));
    assertThrows(NullPointerException.class, () -> ex.invokeAny(nullSecond));
    ex.shutdown();
    assertThrows(java.util.concurrent.RejectedExecutionException.class, () -> ex.execute(() -> {}));
    assertThrows(java.util.concurrent.RejectedExecutionException.class,
        () -> ex.schedule(() -> {}, 1, TimeUnit.MILLISECONDS));
    assertThrows(java.util.concurrent.RejectedExecutionException.class,
        () -> ex.schedule(() -> 1, 1, TimeUnit.MILLISECONDS));
    assertThrows(java.util.concurrent.RejectedExecutionException.class,
        () -> ex.scheduleAtFixedRate(() -> {}, 1, 1, TimeUnit.MILLISECONDS));
    assertEquals(0, calls.get(), "the decorator saw no task that was not accepted");
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
  }

  @Test
  void aNullDecoratorIsRefusedByTheBuilder() {
    NullPointerException e = assertThrows(NullPointerException.class,
        () -> GmpExecutor.builder().taskDecorator(null));
    assertEquals("taskDecorator", e.getMessage());
  }

  /**
   * A task that waits on a future it submitted, under a decorator, runs the child in place inside
   * the child's own decoration, as without one: a tree of such waits at parallelism 1 with no
   * spare threads completes on one thread, each task decorated once and run with the context of
   * the task that submitted it. Until 2026-12-07 a decorated submit made a plain FutureTask, whose
   * get() waited unmarked for a retake that the spare budget of 0 refused: the tree never ended.
   */
  @Test
  void underADecoratorAWaitOnAChildRunsItInPlaceInItsOwnContext() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().parallelism(1)
        .maxSpareThreads(0).taskDecorator(capturing(calls)).build())) {
      GmpExecutor ex = c.ex();
      java.util.Set<Thread> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
      ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
      CTX.set("root");
      Future<Integer> root;
      try {
        root = ex.submit(() -> node(ex, 3, "root", threads, wrong));
      } finally {
        CTX.remove();
      }
      assertEquals(8, root.get(LIVENESS_SECONDS, TimeUnit.SECONDS), "the tree's leaves");
      assertEquals(15, calls.get(), "each of the 15 tasks decorated once");
      assertEquals(1, threads.size(), "every wait ran its child in place: " + threads);
      assertTrue(wrong.isEmpty(), "tasks that ran outside their own context: " + wrong);
    }
  }

  /** A tree node: checks its context, sets its children's, submits both and waits for them. */
  private static int node(GmpExecutor ex, int level, String expected, java.util.Set<Thread> threads,
      ConcurrentLinkedQueue<String> wrong) throws Exception {
    threads.add(Thread.currentThread());
    if (!expected.equals(CTX.get())) {
      wrong.add(expected + " ran with " + CTX.get());
    }
    if (level == 0) {
      return 1;
    }
    String left = expected + "L";
    String right = expected + "R";
    CTX.set(left);
    Future<Integer> l = ex.submit(() -> node(ex, level - 1, left, threads, wrong));
    CTX.set(right);
    Future<Integer> r = ex.submit(() -> node(ex, level - 1, right, threads, wrong));
    CTX.set(expected);
    return l.get() + r.get();
  }

  /** invokeAll from a task under a decorator: the same, each callable decorated once. */
  @Test
  void underADecoratorInvokeAllFromATaskRunsTheCallablesInPlace() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().parallelism(1)
        .maxSpareThreads(0).taskDecorator(capturing(calls)).build())) {
      GmpExecutor ex = c.ex();
      Future<List<String>> all = ex.submit(() -> {
        CTX.set("parent");
        List<Callable<String>> tasks = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
          int n = i;
          tasks.add(() -> CTX.get() + n + (GmpExecutor.current() == ex ? "" : " outside"));
        }
        List<String> out = new ArrayList<>();
        for (Future<String> f : ex.invokeAll(tasks)) {
          out.add(f.get());
        }
        return out;
      });
      assertEquals(List.of("parent0", "parent1", "parent2", "parent3", "parent4"),
          all.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      assertEquals(6, calls.get(), "the submit and each of the 5 callables, once");
    }
  }

  /**
   * A submitted task's decoration must run the future it was given, on its own thread: one that
   * drops it ends the future with an IllegalStateException naming both rather than leave its
   * get() waiting for good; one that throws before running it ends the future with that error;
   * one that throws after it keeps the task's outcome and reports the error to the handler.
   */
  @Test
  void aDecorationThatDoesNotRunTheTaskEndsItsFuture() throws Exception {
    ConcurrentLinkedQueue<Throwable> reported = new ConcurrentLinkedQueue<>();
    IllegalArgumentException before = new IllegalArgumentException("before the task");
    IllegalArgumentException after = new IllegalArgumentException("after the task");
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().parallelism(1)
        .uncaughtExceptionHandler((t, e) -> reported.add(e))
        .taskDecorator(r -> {
          String what = CTX.get() == null ? "" : CTX.get(); // the submitter's
          return () -> {
            switch (what) {
              case "drop" -> { }
              case "before" -> throw before;
              case "after" -> {
                r.run();
                throw after;
              }
              default -> r.run();
            }
          };
        }).build())) {
      GmpExecutor ex = c.ex();
      Future<String> dropped = submitWith(ex, "drop");
      Future<String> failedBefore = submitWith(ex, "before");
      Future<String> failedAfter = submitWith(ex, "after");
      java.util.concurrent.ExecutionException e = assertThrows(
          java.util.concurrent.ExecutionException.class,
          () -> dropped.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      assertInstanceOf(IllegalStateException.class, e.getCause());
      assertTrue(e.getCause().getMessage().contains("returned without running the task"),
          e.getCause().getMessage());
      e = assertThrows(java.util.concurrent.ExecutionException.class,
          () -> failedBefore.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      assertSame(before, e.getCause());
      assertEquals("ran", failedAfter.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      TestSupport.awaitCondition("the late error reported", () -> reported.contains(after));
      assertEquals(List.of(after), List.copyOf(reported), "only the error after the task");
    }
  }

  /**
   * A decorator that runs the future it is given while it decorates it (in submit's thread) runs
   * the task there, once: the future is done when submit returns, and its queued run later does
   * nothing. (Before its wrapper exists, that run cannot go through one.)
   */
  @Test
  void aDecoratorThatRunsTheFutureAtOnceRunsTheTaskOnce() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().parallelism(1)
        .taskDecorator(r -> {
          r.run();
          return r;
        }).build())) {
      GmpExecutor ex = c.ex();
      Future<Integer> f = ex.submit(runs::incrementAndGet);
      assertTrue(f.isDone(), "ran inside submit, by the decorator");
      assertEquals(1, f.get());
      ex.shutdown();
      assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS)); // f's G ran too
      assertEquals(1, runs.get(), "the queued run and the wrapper's did nothing more");
    }
  }

  /** Submits, from a thread whose context names what the test decorator does with the task. */
  private static Future<String> submitWith(GmpExecutor ex, String what) {
    CTX.set(what);
    try {
      return ex.submit(() -> "ran");
    } finally {
      CTX.remove();
    }
  }
}
