package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * invokeAny from one of the executor's own tasks keeps the contract callers race tasks for
 * (hedged requests, a deadline over several tries): the first task to succeed is the answer
 * while the others still run, and a timed call ends at its timeout. The waiting task never runs
 * one of them in its own place unless the executor cannot hand its processor to another thread.
 */
class InvokeAnyInTaskTest {
  @RegisterExtension final TrackedExecutors tracked = new TrackedExecutors();

  /** A task that waits until released or interrupted (invokeAny's cancel of the losers). */
  private static Callable<String> held(CountDownLatch release, CountDownLatch started,
      AtomicInteger interrupted) {
    return () -> {
      started.countDown();
      try {
        // Bounded, so that a broken invokeAny fails its test instead of hanging the suite.
        release.await(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        interrupted.incrementAndGet();
        throw e;
      }
      return "held";
    };
  }

  /** invokeAny, or timed invokeAny with the liveness bound as its timeout. */
  private static <T> T invokeAny(GmpExecutor ex, List<? extends Callable<T>> tasks, boolean timed)
      throws Exception {
    return timed
        ? ex.invokeAny(tasks, TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS)
        : ex.invokeAny(tasks);
  }

  @ParameterizedTest(name = "parallelism {0}, timed {1}")
  @CsvSource({"1, false", "1, true", "2, false", "2, true"})
  void theFirstSuccessIsTheAnswerWhileAnotherTaskStillRuns(int parallelism, boolean timed)
      throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.builder().parallelism(parallelism).build());
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    AtomicInteger interrupted = new AtomicInteger();
    // The held task last: the newest, the one a waiter running tasks in place would run first.
    List<Callable<String>> tasks = List.of(() -> "fast", held(release, started, interrupted));
    Future<String> caller = ex.submit(() -> {
      try {
        return invokeAny(ex, tasks, timed);
      } finally {
        release.countDown(); // returned: the held task may end (if invokeAny did not cancel it)
      }
    });
    String answer = caller.get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
    assertEquals("fast", answer, "invokeAny waited for the held task; stats " + ex.stats());
    // The held task, if it started, was cancelled with an interrupt (the contract's cancel).
    if (started.getCount() == 0) {
      TestSupport.awaitCondition("held task interrupted", () -> interrupted.get() == 1);
    }
  }

  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void aTimedCallEndsAtItsTimeoutThoughNoTaskEnds(int parallelism) throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.builder().parallelism(parallelism).build());
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(2);
    AtomicInteger interrupted = new AtomicInteger();
    List<Callable<String>> tasks =
        List.of(held(release, started, interrupted), held(release, started, interrupted));
    Future<Throwable> caller = ex.submit(() -> {
      try {
        ex.invokeAny(tasks, 20, TimeUnit.MILLISECONDS);
        return null;
      } catch (Throwable e) {
        return e;
      } finally {
        release.countDown(); // only now may the tasks end on their own
      }
    });
    Throwable outcome = caller.get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
    // A call that ran a held task in place could only end once the task was released, after it.
    assertInstanceOf(TimeoutException.class, outcome, "stats " + ex.stats());
  }

  @ParameterizedTest(name = "{0}, timed {1}")
  @CsvSource({"no spare budget, false", "no spare budget, true", "one thread at most, false",
      "one thread at most, true"})
  void withNoSpareThreadTheWaiterRunsTheTasksItself(String limit, boolean timed)
      throws Exception {
    // One processor, no hand-off: no other thread can run the queued tasks, so the waiting task
    // runs them in its place (newest first), and the call answers all the same.
    GmpExecutor.Builder b = GmpExecutor.builder().parallelism(1);
    GmpExecutor ex = tracked.track(
        (limit.equals("no spare budget") ? b.maxSpareThreads(0) : b.maxThreads(1)).build());
    Thread[] ranOn = new Thread[2];
    List<Callable<String>> tasks = List.of(
        () -> {
          ranOn[0] = Thread.currentThread();
          return "ok";
        },
        () -> {
          ranOn[1] = Thread.currentThread();
          throw new IllegalStateException("fails");
        });
    Future<Thread> caller = ex.submit(() -> {
      String answer = invokeAny(ex, tasks, timed);
      assertEquals("ok", answer);
      return Thread.currentThread();
    });
    Thread waiter = caller.get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
    assertEquals(waiter, ranOn[0], "the succeeding task ran in the waiter's place");
    assertEquals(waiter, ranOn[1], "the failing one too (newest first)");
  }

  @ParameterizedTest(name = "timed {0}")
  @ValueSource(booleans = {false, true})
  void nestedCallsPastTheSpareBudgetStillAnswer(boolean timed) throws Exception {
    // One processor and one spare thread: the outer call's wait hands the processor to the
    // spare, which runs the middle task; its own call finds the budget spent, so it keeps the
    // processor while it waits, and the leaf queued behind it has no thread to run on. Each
    // waiter runs a task nobody started once nothing has ended for a while.
    GmpExecutor ex = tracked.track(
        GmpExecutor.builder().parallelism(1).maxSpareThreads(1).build());
    Callable<String> leaf = () -> "leaf";
    Callable<String> middle = () -> invokeAny(ex, List.of(leaf), timed);
    Future<String> outer = ex.submit(() -> invokeAny(ex, List.of(middle), timed));
    assertEquals("leaf", outer.get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS),
        "stats " + ex.stats());
  }

  @ParameterizedTest(name = "timed {0}")
  @ValueSource(booleans = {false, true})
  void everyTaskFailingIsTheLastFailure(boolean timed) throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.builder().parallelism(2).build());
    List<Callable<String>> tasks = List.of(
        () -> {
          throw new IllegalStateException("one");
        },
        () -> {
          throw new IllegalStateException("two");
        });
    Future<Throwable> caller = ex.submit(() -> {
      try {
        invokeAny(ex, tasks, timed);
        return null;
      } catch (Throwable e) {
        return e;
      }
    });
    Throwable outcome = caller.get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
    ExecutionException ee = assertInstanceOf(ExecutionException.class, outcome);
    assertInstanceOf(IllegalStateException.class, ee.getCause());
    assertTrue(List.of("one", "two").contains(ee.getCause().getMessage()));
  }

  @ParameterizedTest(name = "timed {0}")
  @ValueSource(booleans = {false, true})
  void anInterruptedWaiterCancelsTheTasks(boolean timed) throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.builder().parallelism(2).build());
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    AtomicInteger interrupted = new AtomicInteger();
    List<Callable<String>> tasks = List.of(held(release, started, interrupted));
    CountDownLatch waiting = new CountDownLatch(1);
    Thread[] waiter = new Thread[1];
    Future<Throwable> caller = ex.submit(() -> {
      waiter[0] = Thread.currentThread();
      waiting.countDown();
      try {
        invokeAny(ex, tasks, timed);
        return null;
      } catch (Throwable e) {
        return e;
      } finally {
        release.countDown();
      }
    });
    TestSupport.await(waiting, "waiter started");
    TestSupport.await(started, "held task started");
    waiter[0].interrupt();
    Throwable outcome = caller.get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
    assertInstanceOf(InterruptedException.class, outcome, "stats " + ex.stats());
    TestSupport.awaitCondition("held task interrupted", () -> interrupted.get() == 1);
  }
}
