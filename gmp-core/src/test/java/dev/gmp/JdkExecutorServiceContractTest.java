package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static dev.gmp.TestSupport.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.security.PrivilegedAction;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The contracts that the JDK's own ExecutorService tests check and that apply to any
 * ExecutorService, written anew against GmpExecutor. Sources, named on each test:
 *
 * <ul>
 *   <li>test/jdk/java/util/concurrent/ExecutorService/CloseTest.java, InvokeTest.java,
 *       SubmitTest.java, Invoke.java;
 *   <li>test/jdk/java/util/concurrent/ThreadPerTaskExecutor/ThreadPerTaskExecutorTest.java (the
 *       same contracts for another executor: shutdown, awaitTermination, close);
 *   <li>the JSR-166 TCK, test/jdk/java/util/concurrent/tck/: AbstractExecutorServiceTest, the
 *       generic parts of ThreadPoolExecutorTest, and JSR166TestCase's executor helpers
 *       (assertNullTaskSubmissionThrowsNullPointerException, joinPool, the tearDown check that
 *       the test thread's interrupt status is clear).
 * </ul>
 *
 * <p>Where the JDK tests sleep (a task "takes 50 ms", "interrupt after 100 ms") these tests use
 * latches and thread states instead; where they assert elapsed-time upper bounds these do not.
 * The only elapsed-time checks kept are lower bounds ("a timed wait that timed out waited at
 * least its timeout"), which cannot flake. Every wait is bounded: a task that must block "until
 * cancelled" waits on {@link #forever} with a timeout, calls that may block (close, invokeAny,
 * Future.get) run on a helper thread the test joins with a timeout, and tearDown releases
 * everything and terminates every executor.
 */
class JdkExecutorServiceContractTest {
  /** Bound on how long a task blocks "forever": far above the liveness bound, below JUnit's. */
  private static final long BLOCK_SECONDS = 40;

  private static final String TEST_STRING = "a test string";

  private final List<GmpExecutor> executors = new ArrayList<>();
  private final List<Thread> helpers = new CopyOnWriteArrayList<>();

  /** Tasks that must block until interrupted wait on this; tearDown releases it. */
  private final CountDownLatch forever = new CountDownLatch(1);

  private GmpExecutor newExecutor(int parallelism) {
    return track(GmpExecutor.builder().parallelism(parallelism).build());
  }

  /**
   * An executor that never runs more than {@code parallelism} tasks at once: no spare threads,
   * so sysmon never takes a processor from a blocked task and starts a queued one beside it.
   * Used only where the JDK test's expectation assumes a fixed-size pool (a single-thread
   * executor, "exactly the queued tasks are returned").
   */
  private GmpExecutor newFixedExecutor(int parallelism) {
    return track(GmpExecutor.builder().parallelism(parallelism).maxSpareThreads(0).build());
  }

  private GmpExecutor track(GmpExecutor ex) {
    executors.add(ex);
    return ex;
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    // JSR166TestCase.tearDown: a test must not leave the test thread's interrupt status set.
    boolean interruptLeft = Thread.interrupted();
    forever.countDown();
    for (GmpExecutor ex : executors) {
      TestSupport.terminate(ex);
    }
    for (Thread t : helpers) {
      t.join(TimeUnit.SECONDS.toMillis(LIVENESS_SECONDS));
      assertFalse(t.isAlive(), "helper thread still running after the executors terminated: " + t);
    }
    assertFalse(interruptLeft, "the test thread's interrupt status was left set");
  }

  // ------------------------------------------------------------------ helpers

  /** A task that blocks (interruptibly, bounded) until cancelled, recording start and interrupt. */
  private final class Blocker implements Callable<String> {
    final CountDownLatch started = new CountDownLatch(1);
    final CountDownLatch interrupted = new CountDownLatch(1);

    @Override
    public String call() throws InterruptedException {
      started.countDown();
      try {
        forever.await(BLOCK_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        interrupted.countDown();
        throw e;
      }
      return "released";
    }

    Runnable asRunnable() {
      return () -> {
        try {
          call();
        } catch (InterruptedException e) {
          // recorded in interrupted
        }
      };
    }

    boolean hasStarted() {
      return started.getCount() == 0;
    }

    void awaitStarted(String what) {
      await(started, what);
    }

    /** The JDK tests' "if task2 started then it should have been interrupted". */
    void awaitInterruptedIfStarted(String what) {
      if (hasStarted()) {
        await(interrupted, what);
      }
    }
  }

  @FunctionalInterface
  private interface Body {
    void run() throws Throwable;
  }

  /** A call made on a helper thread, so that the test thread's own waits stay bounded. */
  private final class Caller {
    final Thread thread;
    final CountDownLatch done = new CountDownLatch(1);
    final AtomicReference<Throwable> thrown = new AtomicReference<>();

    Caller(String name, Body body) {
      thread = new Thread(() -> {
        try {
          body.run();
        } catch (Throwable e) {
          thrown.set(e);
        } finally {
          done.countDown();
        }
      }, name);
      thread.setDaemon(true);
      helpers.add(thread);
      thread.start();
    }

    /** Waits for the call to return; rethrows an assertion failure made on the helper. */
    void join(String what) {
      await(done, what);
      Throwable e = thrown.get();
      if (e instanceof AssertionError ae) {
        throw ae;
      }
      if (e != null) {
        throw new AssertionError(what + ": unexpected " + e, e);
      }
    }
  }

  private Caller call(String name, Body body) {
    return new Caller(name, body);
  }

  private static boolean waiting(Thread t) {
    Thread.State s = t.getState();
    return s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING;
  }

  private static boolean inMethod(Thread t, String method) {
    return Arrays.stream(t.getStackTrace()).anyMatch(e -> method.equals(e.getMethodName()));
  }

  /** InvokeTest.scheduleInterruptAt: interrupts t once it waits inside {@code method}. */
  private static void interruptWhenWaitingIn(Thread t, String method) {
    TestSupport.awaitCondition(
        t.getName() + " waiting inside " + method + " (state " + t.getState() + ")",
        () -> waiting(t) && inMethod(t, method));
    t.interrupt();
  }

  /** invokeAny, or timed invokeAny with the liveness bound as its timeout. */
  private static <T> T invokeAny(GmpExecutor ex, List<? extends Callable<T>> tasks, boolean timed)
      throws Exception {
    return timed ? ex.invokeAny(tasks, LIVENESS_SECONDS, TimeUnit.SECONDS) : ex.invokeAny(tasks);
  }

  private static <T> T get(Future<T> f) throws Exception {
    return f.get(LIVENESS_SECONDS, TimeUnit.SECONDS);
  }

  private static void assertTerminatesWithin(GmpExecutor ex, String what) throws Exception {
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS), what + ": " + ex);
    assertTrue(ex.isTerminated(), what);
  }

  /** The state CloseTest checks after every close(). */
  private static void assertClosed(GmpExecutor ex) throws Exception {
    assertTrue(ex.isShutdown(), "isShutdown after close");
    assertTrue(ex.isTerminated(), "isTerminated after close: " + ex);
    assertTrue(ex.awaitTermination(10, TimeUnit.MILLISECONDS), "awaitTermination after close");
  }

  /** Calls close() on a helper thread and waits (bounded) for it to return. */
  private void closeBounded(GmpExecutor ex) {
    call("closer", ex::close).join("close() returns");
  }

  static final class FooException extends Exception {
    FooException(String m) {
      super(m);
    }
  }

  static final class BarException extends Exception {}

  // ------------------------------------------------------------------ close (CloseTest)

  /** CloseTest.testCloseWithNoTasks; ThreadPerTaskExecutorTest.testClose1. */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void closeWithNoTasks(int parallelism) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    closeBounded(ex);
    assertClosed(ex);
  }

  /**
   * CloseTest.testCloseWithRunningTasks, ThreadPerTaskExecutorTest.testClose2; ExecutorService
   * .close: "previously submitted tasks are executed". The running task is released only once
   * close() is waiting, so close() must wait for it; the queued ones must run too.
   */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void closeWaitsForRunningAndQueuedTasks(int parallelism) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Future<String> running = ex.submit(() -> {
      started.countDown();
      assertTrue(release.await(BLOCK_SECONDS, TimeUnit.SECONDS), "released");
      return "foo";
    });
    await(started, "task started");
    List<Future<Integer>> queued = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      int id = i;
      queued.add(ex.submit(() -> id));
    }
    Caller closer = call("closer", ex::close);
    TestSupport.awaitCondition(
        "close() waiting", () -> ex.isShutdown() && waiting(closer.thread));
    assertFalse(closer.done.getCount() == 0, "close() returned while a task was running");
    release.countDown();
    closer.join("close() returns once the tasks are done");
    assertClosed(ex);
    assertEquals("foo", running.resultNow());
    for (int i = 0; i < queued.size(); i++) {
      assertEquals(i, queued.get(i).resultNow(), "queued task " + i + " ran before close returned");
    }
  }

  /** CloseTest.testShutdownBeforeClose: close() of a shut-down, not terminated, executor waits. */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void closeAfterShutdownWaitsForTermination(int parallelism) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Future<String> future = ex.submit(() -> {
      started.countDown();
      assertTrue(release.await(BLOCK_SECONDS, TimeUnit.SECONDS), "released");
      return "foo";
    });
    await(started, "task started");
    ex.shutdown();
    assertTrue(ex.isShutdown());
    assertFalse(ex.isTerminated(), "terminated with a task still running");
    Caller closer = call("closer", ex::close);
    TestSupport.awaitCondition("close() waiting", () -> waiting(closer.thread));
    assertFalse(closer.done.getCount() == 0, "close() returned while a task was running");
    release.countDown();
    closer.join("close() returns");
    assertClosed(ex);
    assertEquals("foo", future.resultNow());
  }

  /**
   * CloseTest.testTerminateBeforeClose and ThreadPerTaskExecutorTest.testSubmitAfterTermination
   * assert, for a fresh executor that never ran a task, that isTerminated() is true as soon as
   * shutdown() returns (as ThreadPoolExecutor, ForkJoinPool and the thread-per-task executors
   * do: nothing is queued, running or alive, so there is nothing to wait for). Checked on 20
   * fresh executors: an implementation that terminates asynchronously may win the race now and
   * then, and one sample would then pass by luck.
   */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void freshExecutorIsTerminatedAsSoonAsShutdownReturns(int parallelism) throws Exception {
    int samples = 20;
    int notTerminatedAtOnce = 0;
    for (int i = 0; i < samples; i++) {
      GmpExecutor ex = newExecutor(parallelism);
      ex.shutdown();
      assertTrue(ex.isShutdown());
      if (!ex.isTerminated()) {
        notTerminatedAtOnce++;
      }
      // Whatever the outcome, the rest of the contract holds.
      assertTerminatesWithin(ex, "terminates after shutdown");
      assertThrows(RejectedExecutionException.class, () -> ex.submit(() -> {}));
    }
    assertEquals(0, notTerminatedAtOnce, "fresh executors (of " + samples + ") not terminated"
        + " when shutdown() returned (CloseTest.testTerminateBeforeClose asserts terminated)");
  }

  /**
   * CloseTest.testTerminateBeforeClose (the close part), ThreadPerTaskExecutorTest.testClose5,
   * ExecutorService.close: "If already terminated, invoking this method has no effect" (no
   * wait, and the caller's interrupt status is left alone).
   */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void closeOfTerminatedExecutorHasNoEffectAndIsIdempotent(int parallelism) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    assertEquals(1, get(ex.submit(() -> 1)));
    ex.shutdown();
    assertTerminatesWithin(ex, "terminates after shutdown");
    closeBounded(ex);
    assertClosed(ex);
    closeBounded(ex);
    closeBounded(ex);
    assertClosed(ex);
    AtomicBoolean stillInterrupted = new AtomicBoolean();
    call("interrupted closer", () -> {
      Thread.currentThread().interrupt();
      ex.close();
      stillInterrupted.set(Thread.interrupted());
    }).join("close() of a terminated executor with interrupt status set returns");
    assertTrue(stillInterrupted.get(), "close() of a terminated executor cleared the interrupt");
    // A fresh executor closed twice (ThreadPerTaskExecutorTest.testClose5).
    GmpExecutor fresh = newExecutor(parallelism);
    closeBounded(fresh);
    closeBounded(fresh);
    assertClosed(fresh);
  }

  /**
   * CloseTest.testInterruptBeforeClose, ThreadPerTaskExecutorTest.testClose3: close() with the
   * interrupt status set stops the running task as shutdownNow does, still waits for it, and
   * returns with the interrupt status set; the task's future failed (it was interrupted).
   * ExecutorService.close: "Tasks that were awaiting execution are not executed" (checked on a
   * fixed executor, where the queued task cannot start beside the blocked one).
   */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void closeWithInterruptStatusSetStopsTasksAndKeepsInterrupt(int parallelism) throws Exception {
    GmpExecutor ex = newFixedExecutor(parallelism);
    List<Blocker> blockers = new ArrayList<>();
    List<Future<String>> futures = new ArrayList<>();
    for (int i = 0; i < parallelism; i++) {
      Blocker b = new Blocker();
      blockers.add(b);
      futures.add(ex.submit(b));
    }
    for (Blocker b : blockers) {
      b.awaitStarted("blocker started on every processor");
    }
    AtomicInteger queuedRan = new AtomicInteger();
    ex.execute(queuedRan::incrementAndGet);
    AtomicBoolean interruptedAfter = new AtomicBoolean();
    call("interrupted closer", () -> {
      Thread.currentThread().interrupt();
      ex.close();
      interruptedAfter.set(Thread.interrupted());
    }).join("close() with interrupt status set returns");
    assertTrue(interruptedAfter.get(), "close() must return with the interrupt status set");
    assertClosed(ex);
    for (int i = 0; i < parallelism; i++) {
      Future<String> f = futures.get(i);
      ExecutionException ee = assertThrows(ExecutionException.class, f::get, "task " + i);
      assertInstanceOf(InterruptedException.class, ee.getCause());
    }
    assertEquals(0, queuedRan.get(), "a task awaiting execution was executed");
  }

  /**
   * CloseTest.testInterruptDuringClose, ThreadPerTaskExecutorTest.testClose4: interrupting a
   * thread blocked in close() makes it shutdownNow, keep waiting, and return interrupted.
   */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void interruptDuringCloseStopsTasksAndKeepsInterrupt(int parallelism) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    Blocker blocker = new Blocker();
    Future<String> future = ex.submit(blocker);
    blocker.awaitStarted("task started");
    AtomicBoolean interruptedAfter = new AtomicBoolean();
    Caller closer = call("closer", () -> {
      ex.close();
      interruptedAfter.set(Thread.interrupted());
    });
    TestSupport.awaitCondition("close() began", ex::isShutdown);
    interruptWhenWaitingIn(closer.thread, "close");
    closer.join("interrupted close() returns");
    assertTrue(interruptedAfter.get(), "close() must return with the interrupt status set");
    assertClosed(ex);
    ExecutionException ee = assertThrows(ExecutionException.class, future::get);
    assertInstanceOf(InterruptedException.class, ee.getCause());
  }

  // ------------------------------------------------------- shutdown, shutdownNow, awaitTermination

  /**
   * ThreadPoolExecutorTest.testIsShutdown/testIsTerminated, ThreadPerTaskExecutorTest
   * .testShutdown and testAwaitTermination2: not shut down or terminated while running;
   * shutdown() does not interrupt a running task and the executor terminates once it ends.
   */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void shutdownLetsRunningTaskFinishThenTerminates(int parallelism) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    assertFalse(ex.isShutdown());
    assertFalse(ex.isTerminated());
    assertFalse(ex.awaitTermination(10, TimeUnit.MILLISECONDS));
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Future<Boolean> f = ex.submit(() -> {
      started.countDown();
      boolean released = release.await(BLOCK_SECONDS, TimeUnit.SECONDS);
      return released && !Thread.currentThread().isInterrupted();
    });
    await(started, "task started");
    ex.shutdown();
    assertTrue(ex.isShutdown());
    assertFalse(ex.isTerminated());
    assertFalse(ex.awaitTermination(20, TimeUnit.MILLISECONDS), "terminated while running");
    release.countDown();
    assertTerminatesWithin(ex, "terminates once the task ends");
    assertTrue(f.resultNow(), "shutdown() must not interrupt the running task");
    ex.shutdown(); // idempotent
    assertTrue(ex.isTerminated());
  }

  /**
   * ThreadPoolExecutorTest.testAwaitTermination_timesOut: with the executor running,
   * awaitTermination with an expired timeout (Long.MIN_VALUE, -1, 0 in any unit) returns false
   * at once, and a short positive timeout returns false after at least that long; after
   * termination every timeout, Long.MAX_VALUE included (JSR166TestCase.randomTimeout), returns
   * true.
   */
  @Test
  void awaitTerminationTimeouts() throws Exception {
    GmpExecutor ex = newExecutor(2);
    assertFalse(ex.isTerminated());
    for (TimeUnit unit : TimeUnit.values()) {
      for (long t : new long[] {Long.MIN_VALUE, -1, 0}) {
        assertFalse(ex.awaitTermination(t, unit), "awaitTermination(" + t + ", " + unit + ")");
      }
    }
    long timeoutNanos = 999_999L;
    long start = System.nanoTime();
    assertFalse(ex.awaitTermination(timeoutNanos, TimeUnit.NANOSECONDS));
    assertTrue(System.nanoTime() - start >= timeoutNanos, "returned before its timeout");
    long timeoutMillis = 12;
    start = System.nanoTime();
    assertFalse(ex.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS));
    assertTrue(
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) >= timeoutMillis,
        "returned before its timeout");
    assertFalse(ex.isTerminated());
    ex.shutdown();
    assertTerminatesWithin(ex, "terminates after shutdown");
    for (TimeUnit unit : TimeUnit.values()) {
      for (long t : new long[] {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE}) {
        assertTrue(ex.awaitTermination(t, unit), "terminated: awaitTermination(" + t + ", "
            + unit + ")");
      }
    }
  }

  /**
   * ExecutorService.awaitTermination throws InterruptedException "if interrupted while waiting"
   * (the default close() that CloseTest checks through DelegatingExecutorService relies on it),
   * and, like every blocking j.u.c method, clears the interrupt status when it throws
   * (JSR166TestCase.CheckedInterruptedRunnable).
   */
  @Test
  void awaitTerminationIsInterruptible() throws Exception {
    GmpExecutor ex = newExecutor(2);
    Blocker blocker = new Blocker();
    ex.submit(blocker);
    blocker.awaitStarted("task started");
    ex.shutdown();
    call("pre-interrupted waiter", () -> {
      Thread.currentThread().interrupt();
      assertThrows(
          InterruptedException.class, () -> ex.awaitTermination(BLOCK_SECONDS, TimeUnit.SECONDS));
      assertFalse(Thread.interrupted(), "interrupt status cleared when IE is thrown");
    }).join("awaitTermination with interrupt status set throws");
    Caller waiter = call("waiter", () -> {
      assertThrows(
          InterruptedException.class, () -> ex.awaitTermination(BLOCK_SECONDS, TimeUnit.SECONDS));
      assertFalse(Thread.interrupted(), "interrupt status cleared when IE is thrown");
    });
    interruptWhenWaitingIn(waiter.thread, "awaitTermination");
    waiter.join("awaitTermination interrupted while waiting throws");
    assertFalse(ex.isTerminated());
  }

  /**
   * ThreadPoolExecutorTest.testShutdownNow, generic part (SubmitTest.testExecuteWithShutdownNow
   * too): shutdownNow interrupts the running tasks and returns the tasks that never started;
   * every accepted task either started or was returned, never both. GmpExecutor may start more
   * than {@code parallelism} tasks when some block (sysmon hands their processor to a spare
   * thread), so how many are returned is not fixed here; see the next test for the TCK's exact
   * count on a fixed executor.
   */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void shutdownNowInterruptsRunningAndReturnsTheRest(int parallelism) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    int count = parallelism + 3;
    AtomicInteger startedCount = new AtomicInteger();
    AtomicInteger interruptedCount = new AtomicInteger();
    CountDownLatch someStarted = new CountDownLatch(parallelism);
    List<Runnable> tasks = new ArrayList<>();
    Set<Runnable> startedTasks = Collections.synchronizedSet(new HashSet<>());
    for (int i = 0; i < count; i++) {
      Runnable[] self = new Runnable[1];
      self[0] = () -> {
        startedTasks.add(self[0]);
        startedCount.incrementAndGet();
        someStarted.countDown();
        try {
          forever.await(BLOCK_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          interruptedCount.incrementAndGet();
        }
      };
      tasks.add(self[0]);
      ex.execute(self[0]);
    }
    await(someStarted, "parallelism tasks running");
    List<Runnable> returned = ex.shutdownNow();
    assertTrue(ex.isShutdown());
    assertTerminatesWithin(ex, "terminates after shutdownNow");
    assertEquals(startedCount.get(), interruptedCount.get(), "every running task interrupted");
    assertEquals(count, startedCount.get() + returned.size(), "started + returned == submitted");
    for (Runnable r : returned) {
      assertTrue(tasks.contains(r), "returned a task that was not submitted: " + r);
      assertFalse(startedTasks.contains(r), "returned a task that had started: " + r);
    }
    assertEquals(returned.size(), new HashSet<>(returned).size(), "a task returned twice");
  }

  /**
   * ThreadPoolExecutorTest.testShutdownNow exactly: with {@code poolSize} tasks running and
   * {@code count - poolSize} queued, shutdownNow returns the queued ones and only the running
   * ones ran. Checked on a fixed executor (no spare threads), the analogue of the TCK's fixed
   * pool.
   */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void shutdownNowOnFixedExecutorReturnsExactlyTheQueuedTasks(int parallelism) throws Exception {
    GmpExecutor ex = newFixedExecutor(parallelism);
    int count = 5;
    AtomicInteger ran = new AtomicInteger();
    CountDownLatch threadsStarted = new CountDownLatch(parallelism);
    Runnable waiter = () -> {
      threadsStarted.countDown();
      try {
        forever.await(BLOCK_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException success) {
        // expected
      }
      ran.incrementAndGet();
    };
    for (int i = 0; i < count; i++) {
      ex.execute(waiter);
    }
    await(threadsStarted, "every processor runs a waiter");
    List<Runnable> queued = ex.shutdownNow();
    assertTrue(ex.isShutdown());
    assertEquals(count - parallelism, queued.size(), "returned: " + queued);
    for (Runnable r : queued) {
      assertSame(waiter, r);
    }
    assertTerminatesWithin(ex, "terminates after shutdownNow");
    assertEquals(parallelism, ran.get());
  }

  /**
   * ThreadPerTaskExecutorTest.testShutdownNow: the interrupted task's future fails with the
   * InterruptedException it threw; nothing was queued, so nothing is returned.
   * SubmitTest.testSubmitRunnableWithShutdownNow / testSubmitCallableWithShutdownNow.
   */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void shutdownNowInterruptsSubmittedTasks(int parallelism) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    Blocker callable = new Blocker();
    Future<String> fc = ex.submit(callable);
    callable.awaitStarted("callable started");
    Blocker runnable = new Blocker();
    Future<?> fr = parallelism > 1 ? ex.submit(runnable.asRunnable()) : null;
    if (fr != null) {
      runnable.awaitStarted("runnable started");
    }
    List<Runnable> tasks = ex.shutdownNow();
    assertTrue(ex.isShutdown());
    assertTrue(tasks.isEmpty(), "nothing was queued: " + tasks);
    await(callable.interrupted, "shutdownNow interrupts the running callable");
    ExecutionException ee = assertThrows(ExecutionException.class, () -> get(fc));
    assertInstanceOf(InterruptedException.class, ee.getCause());
    if (fr != null) {
      await(runnable.interrupted, "shutdownNow interrupts the running runnable");
      assertNull(get(fr));
    }
    assertTerminatesWithin(ex, "terminates after shutdownNow");
  }

  // ------------------------------------------------------------------ rejection

  private static void assertAllSubmissionsRejected(GmpExecutor ex, String when) {
    Runnable r = () -> {};
    Callable<Boolean> c = () -> Boolean.TRUE;
    Callable<String> s = () -> "x";
    assertThrows(RejectedExecutionException.class, () -> ex.execute(r), "execute " + when);
    assertThrows(RejectedExecutionException.class, () -> ex.submit(r), "submit(R) " + when);
    assertThrows(
        RejectedExecutionException.class, () -> ex.submit(r, Boolean.TRUE), "submit(R,v) " + when);
    assertThrows(RejectedExecutionException.class, () -> ex.submit(c), "submit(C) " + when);
    // InvokeTest.testInvokeAllAfterShutdown1/2, testInvokeAnyAfterShutdown.
    assertThrows(
        RejectedExecutionException.class, () -> ex.invokeAll(List.of(s, s)), "invokeAll " + when);
    assertThrows(
        RejectedExecutionException.class,
        () -> ex.invokeAll(List.of(s, s), 1, TimeUnit.SECONDS),
        "timed invokeAll " + when);
    assertThrows(
        RejectedExecutionException.class, () -> ex.invokeAny(List.of(s, s)), "invokeAny " + when);
    assertThrows(
        RejectedExecutionException.class,
        () -> ex.invokeAny(List.of(s, s), 1, TimeUnit.SECONDS),
        "timed invokeAny " + when);
  }

  /**
   * ThreadPoolExecutorTest.testSubmittedTasksRejectedWhenSaturatedOrShutdown (generic part):
   * after shutdown or shutdownNow, with tasks still running (they ignore the interrupt), every
   * way to submit is rejected, the executor is not terminated, and once the tasks end it
   * terminates and still rejects. SubmitTest.test*AfterShutdown, ThreadPerTaskExecutorTest
   * .testSubmitAfterShutdown, InvokeTest.test*AfterShutdown.
   */
  @ParameterizedTest(name = "shutdownNow {0}")
  @ValueSource(booleans = {false, true})
  void submissionsRejectedAfterShutdownAndAfterTermination(boolean now) throws Exception {
    GmpExecutor ex = newExecutor(2);
    CountDownLatch started = new CountDownLatch(2);
    CountDownLatch done = new CountDownLatch(1);
    Runnable ignoresInterrupts = () -> {
      started.countDown();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BLOCK_SECONDS);
      while (System.nanoTime() - deadline < 0) {
        try {
          if (done.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
            return;
          }
        } catch (InterruptedException shutdownNowDeliberatelyIgnored) {
          // keep waiting
        }
      }
    };
    ex.execute(ignoresInterrupts);
    Future<?> f = ex.submit(ignoresInterrupts);
    await(started, "both tasks running");
    if (now) {
      ex.shutdownNow();
    } else {
      ex.shutdown();
    }
    assertAllSubmissionsRejected(ex, "after shutdown, before termination");
    assertFalse(ex.isTerminated(), "terminated while tasks run");
    done.countDown();
    assertTerminatesWithin(ex, "terminates once the tasks end");
    assertNull(f.resultNow());
    assertAllSubmissionsRejected(ex, "after termination");
  }

  /** Rejection from inside a task, the path GmpExecutor keeps separate (a local spawn). */
  @Test
  void submissionFromATaskRejectedAfterShutdown() throws Exception {
    GmpExecutor ex = newExecutor(2);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch shutDown = new CountDownLatch(1);
    Future<Throwable> f = ex.submit(() -> {
      started.countDown();
      await(shutDown, "shutdown called");
      try {
        ex.submit(() -> "inner");
        return null;
      } catch (Throwable e) {
        return e;
      }
    });
    await(started, "task started");
    ex.shutdown();
    shutDown.countDown();
    assertInstanceOf(RejectedExecutionException.class, get(f));
    assertTerminatesWithin(ex, "terminates");
  }

  // ------------------------------------------------------------------ submit and execute

  /**
   * SubmitTest.testSubmitRunnable/testSubmitCallable/testExecute, AbstractExecutorServiceTest
   * .testExecuteRunnable/testSubmitCallable/testSubmitRunnable/testSubmitRunnable2: the task
   * runs; submit(Runnable) completes with null, submit(Runnable, v) with v itself,
   * submit(Callable) with the call's value; a completed future is done, not cancelled.
   */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void submitAndExecuteRunTheTask(int parallelism) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    CountDownLatch latch = new CountDownLatch(1);
    Future<?> fr = ex.submit(latch::countDown);
    await(latch, "submit(Runnable) ran");
    assertNull(get(fr));
    assertNull(fr.get(0, TimeUnit.MILLISECONDS));
    assertTrue(fr.isDone());
    assertFalse(fr.isCancelled());
    assertEquals(Future.State.SUCCESS, fr.state());

    String result = new String(TEST_STRING); // identity matters: assertSame
    Future<String> frv = ex.submit(() -> {}, result);
    assertSame(result, get(frv));

    Future<String> fc = ex.submit(() -> TEST_STRING);
    assertSame(TEST_STRING, get(fc));

    CountDownLatch executed = new CountDownLatch(1);
    ex.execute(executed::countDown);
    await(executed, "execute(Runnable) ran");
  }

  /**
   * AbstractExecutorServiceTest.testSubmitPrivilegedAction, testSubmitPrivilegedExceptionAction,
   * testSubmitFailedPrivilegedExceptionAction (callables from Executors.callable).
   */
  @Test
  void submitCallablesFromPrivilegedActions() throws Exception {
    GmpExecutor ex = newExecutor(2);
    PrivilegedAction<Object> action = () -> TEST_STRING;
    assertSame(TEST_STRING, get(ex.submit(Executors.callable(action))));
    PrivilegedExceptionAction<Object> exAction = () -> TEST_STRING;
    assertSame(TEST_STRING, get(ex.submit(Executors.callable(exAction))));
    PrivilegedExceptionAction<Object> failing = () -> {
      throw new IndexOutOfBoundsException();
    };
    Future<Object> f = ex.submit(Executors.callable(failing));
    ExecutionException ee = assertThrows(ExecutionException.class, () -> get(f));
    assertInstanceOf(IndexOutOfBoundsException.class, ee.getCause());
  }

  /**
   * AbstractExecutorServiceTest.testSubmitEE, InvokeTest's FooException: what a task throws
   * (checked, unchecked, or an Error) reaches Future.get as the cause of an ExecutionException.
   */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void exceptionsFromTasksAreWrappedInExecutionException(int parallelism) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    Future<Object> arith = ex.submit(() -> {
      throw new ArithmeticException();
    });
    assertInstanceOf(
        ArithmeticException.class,
        assertThrows(ExecutionException.class, () -> get(arith)).getCause());
    Future<Object> checked = ex.submit(() -> {
      throw new FooException("foo");
    });
    assertInstanceOf(
        FooException.class,
        assertThrows(ExecutionException.class, () -> get(checked)).getCause());
    Future<?> error = ex.submit((Runnable) () -> {
      throw new AssertionError("an error");
    });
    assertInstanceOf(
        AssertionError.class, assertThrows(ExecutionException.class, () -> get(error)).getCause());
    assertEquals(Future.State.FAILED, error.state());
    assertInstanceOf(AssertionError.class, error.exceptionNow());
    assertEquals("still running", get(ex.submit(() -> "still running")));
  }

  /**
   * JSR166TestCase.assertNullTaskSubmissionThrowsNullPointerException, SubmitTest
   * .testSubmitRunnableNull/testSubmitCallableNull/testExecuteNull.
   */
  @Test
  void nullTaskSubmissionThrowsNpe() throws Exception {
    GmpExecutor ex = newExecutor(2);
    assertThrows(NullPointerException.class, () -> ex.execute(null));
    assertThrows(NullPointerException.class, () -> ex.submit((Runnable) null));
    assertThrows(NullPointerException.class, () -> ex.submit((Runnable) null, Boolean.TRUE));
    assertThrows(NullPointerException.class, () -> ex.submit((Runnable) null, Void.class));
    assertThrows(NullPointerException.class, () -> ex.submit((Callable<?>) null));
    assertEquals(1, get(ex.submit(() -> 1)), "still usable");
  }

  /**
   * SubmitTest.testSubmitRunnableWithCancelFalse / testSubmitCallableWithCancelFalse:
   * cancel(false) on a running task does not interrupt it. (The JDK test waits 500 ms for the
   * task not to finish; here the task is released after the cancel and reports whether it was
   * ever interrupted, which decides the same thing without a timing.)
   */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void cancelFalseDoesNotInterruptRunningTask(int parallelism) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(1);
    AtomicReference<String> outcome = new AtomicReference<>();
    Future<?> future = ex.submit(() -> {
      started.countDown();
      try {
        boolean released = stop.await(BLOCK_SECONDS, TimeUnit.SECONDS);
        outcome.set(Thread.currentThread().isInterrupted()
            ? "interrupt flag set"
            : released ? "released, not interrupted" : "timed out");
      } catch (InterruptedException e) {
        outcome.set("interrupted");
      } finally {
        done.countDown();
      }
    });
    await(started, "task started");
    assertTrue(future.cancel(false));
    assertTrue(future.isCancelled());
    assertTrue(future.isDone());
    assertThrows(CancellationException.class, future::get);
    assertEquals(1, done.getCount(), "cancel(false) stopped the task");
    stop.countDown();
    await(done, "task finished");
    assertEquals("released, not interrupted", outcome.get());
  }

  /**
   * SubmitTest.testSubmitRunnableWithCancelTrue / testSubmitCallableWithCancelTrue:
   * cancel(true) interrupts the running task.
   */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void cancelTrueInterruptsRunningTask(int parallelism) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    Blocker callable = new Blocker();
    Future<String> fc = ex.submit(callable);
    callable.awaitStarted("callable started");
    assertTrue(fc.cancel(true));
    await(callable.interrupted, "cancel(true) interrupts the callable");
    assertTrue(fc.isCancelled());
    assertThrows(CancellationException.class, () -> get(fc));

    Blocker runnable = new Blocker();
    Future<?> fr = ex.submit(runnable.asRunnable());
    runnable.awaitStarted("runnable started");
    assertTrue(fr.cancel(true));
    await(runnable.interrupted, "cancel(true) interrupts the runnable");
    assertEquals("next", get(ex.submit(() -> "next")), "still usable");
  }

  /**
   * ThreadPoolExecutorTest.testGet_cancelled: cancel(false) of a running and of a queued task;
   * get and timed get throw CancellationException; isCancelled and isDone. The queued one never
   * runs (FutureTask's contract, through the executor).
   */
  @Test
  void getOfCancelledTasksThrowsCancellationException() throws Exception {
    GmpExecutor ex = newFixedExecutor(1);
    CountDownLatch blockerStarted = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(1);
    AtomicInteger bodies = new AtomicInteger();
    List<Future<?>> futures = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      futures.add(ex.submit(() -> {
        bodies.incrementAndGet();
        blockerStarted.countDown();
        try {
          done.await(BLOCK_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          // not expected: cancel(false)
        }
      }));
    }
    await(blockerStarted, "first task started");
    for (Future<?> f : futures) {
      assertTrue(f.cancel(false));
    }
    for (Future<?> f : futures) {
      assertThrows(CancellationException.class, f::get);
      assertThrows(CancellationException.class, () -> f.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      assertTrue(f.isCancelled());
      assertTrue(f.isDone());
      assertEquals(Future.State.CANCELLED, f.state());
    }
    done.countDown();
    ex.shutdown();
    assertTerminatesWithin(ex, "terminates");
    assertEquals(1, bodies.get(), "the cancelled queued task ran");
  }

  /**
   * AbstractExecutorServiceTest.testInterruptedSubmit, ThreadPoolExecutorTest
   * .testInterruptedSubmit: a thread blocked in Future.get is interrupted: InterruptedException,
   * with the interrupt status cleared (JSR166TestCase.CheckedInterruptedRunnable).
   */
  @Test
  void interruptedGetThrowsInterruptedException() throws Exception {
    GmpExecutor ex = newExecutor(2);
    Blocker blocker = new Blocker();
    AtomicReference<Future<String>> future = new AtomicReference<>();
    CountDownLatch submitted = new CountDownLatch(1);
    Caller getter = call("getter", () -> {
      Future<String> f = ex.submit(blocker);
      future.set(f);
      submitted.countDown();
      assertThrows(InterruptedException.class, f::get);
      assertFalse(Thread.interrupted(), "interrupt status cleared when IE is thrown");
    });
    await(submitted, "submitted");
    blocker.awaitStarted("task started");
    interruptWhenWaitingIn(getter.thread, "get");
    getter.join("interrupted get() throws");
    assertFalse(future.get().isDone(), "interrupting get() must not affect the task");
    assertFalse(blocker.interrupted.getCount() == 0, "interrupting get() interrupted the task");
  }

  /**
   * ThreadPoolExecutorTest.testRejectedRecycledTask (the part that applies to an unbounded
   * executor): the same Runnable instance may be submitted many times, also while earlier
   * submissions of it are queued or running, and runs once per submission; here both from
   * outside and from inside a task (GmpExecutor's local-spawn path).
   */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void sameRunnableSubmittedManyTimesRunsEachTime(int parallelism) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    int n = 1000;
    CountDownLatch done = new CountDownLatch(2 * n);
    Runnable recycled = done::countDown;
    for (int i = 0; i < n; i++) {
      ex.execute(recycled);
    }
    ex.execute(() -> {
      for (int i = 0; i < n; i++) {
        ex.execute(recycled);
      }
    });
    await(done, "every submission of the recycled task ran");
  }

  /**
   * ThreadPoolExecutorTest.testFailingThreadFactory: execution continues with the one thread a
   * factory made, even if every later call returns null.
   */
  @Test
  void executionContinuesWhenThreadFactoryFailsAfterTheFirstThread() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    ThreadFactory failing = r -> {
      if (calls.incrementAndGet() > 1) {
        return null;
      }
      Thread t = new Thread(r);
      t.setDaemon(true);
      return t;
    };
    GmpExecutor ex = track(GmpExecutor.builder().parallelism(2).threadFactory(failing)
        .uncaughtExceptionHandler((t, e) -> {}).build());
    int tasks = 100;
    CountDownLatch done = new CountDownLatch(tasks);
    for (int k = 0; k < tasks; k++) {
      ex.execute(done::countDown);
    }
    await(done, "every task runs on the one thread the factory made");
  }

  // ------------------------------------------------------------------ invokeAny

  /** InvokeTest.testInvokeAny1 / testInvokeAnyWithTimeout1, *Test.testInvokeAny5 (TCK). */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void invokeAnyAllSucceedReturnsOneResult(int parallelism) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    List<Callable<String>> tasks = List.of(() -> "foo", () -> "bar");
    assertTrue(Set.of("foo", "bar").contains(ex.invokeAny(tasks)));
    assertTrue(Set.of("foo", "bar").contains(ex.invokeAny(tasks, 1, TimeUnit.MINUTES)));
    List<Callable<String>> same = List.of(() -> TEST_STRING, () -> TEST_STRING);
    assertSame(TEST_STRING, ex.invokeAny(same));
    assertSame(TEST_STRING, ex.invokeAny(same, LIVENESS_SECONDS, TimeUnit.SECONDS));
  }

  /**
   * InvokeTest.testInvokeAny2 / testInvokeAnyWithTimeout2: once one task completes normally the
   * others are cancelled, and one that had started is interrupted.
   */
  @ParameterizedTest(name = "parallelism {0}, timed {1}")
  @CsvSource({"1,false", "1,true", "2,false", "2,true"})
  void invokeAnyCancelsTheOthersOnceOneSucceeds(int parallelism, boolean timed) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    Blocker task2 = new Blocker();
    List<Callable<String>> tasks = List.of(() -> "foo", task2);
    String result = timed ? ex.invokeAny(tasks, 1, TimeUnit.MINUTES) : ex.invokeAny(tasks);
    assertEquals("foo", result);
    task2.awaitInterruptedIfStarted("the started loser is interrupted");
  }

  /**
   * InvokeTest.testInvokeAny3/4, AbstractExecutorServiceTest.testInvokeAny4/testTimedInvokeAny4:
   * all tasks fail: ExecutionException whose cause is one of the tasks' exceptions; also when
   * the last failure comes after the first (the JDK test sleeps 50 ms; here it waits for it).
   */
  @ParameterizedTest(name = "parallelism {0}, timed {1}")
  @CsvSource({"1,false", "1,true", "2,false", "2,true"})
  void invokeAnyAllFailThrowsExecutionException(int parallelism, boolean timed) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    Callable<String> fail1 = () -> {
      throw new FooException("1");
    };
    Callable<String> fail2 = () -> {
      throw new FooException("2");
    };
    ExecutionException e1 = assertThrows(
        ExecutionException.class, () -> invokeAny(ex, List.of(fail1, fail2), timed));
    assertInstanceOf(FooException.class, e1.getCause());

    CountDownLatch firstFailed = new CountDownLatch(1);
    Callable<String> first = () -> {
      firstFailed.countDown();
      throw new FooException("first");
    };
    Callable<String> later = () -> {
      firstFailed.await(LIVENESS_SECONDS, TimeUnit.SECONDS);
      throw new FooException("later");
    };
    ExecutionException e2 = assertThrows(
        ExecutionException.class, () -> invokeAny(ex, List.of(first, later), timed));
    assertInstanceOf(FooException.class, e2.getCause());

    Callable<String> npe = () -> {
      throw new NullPointerException();
    };
    ExecutionException e3 = assertThrows(
        ExecutionException.class, () -> invokeAny(ex, List.of(npe), timed));
    assertInstanceOf(NullPointerException.class, e3.getCause());
  }

  /**
   * InvokeTest.testInvokeAny5/6: some tasks fail, one succeeds: its result, also when the
   * success comes after the failure.
   */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void invokeAnySomeFailReturnsTheSuccess(int parallelism) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    Callable<String> foo = () -> "foo";
    Callable<String> failing = () -> {
      throw new FooException("x");
    };
    assertEquals("foo", ex.invokeAny(List.of(foo, failing)));
    assertEquals("foo", ex.invokeAny(List.of(failing, foo)));
    CountDownLatch failed = new CountDownLatch(1);
    Callable<String> lateFoo = () -> {
      failed.await(LIVENESS_SECONDS, TimeUnit.SECONDS);
      return "foo";
    };
    Callable<String> earlyFailure = () -> {
      failed.countDown();
      throw new FooException("early");
    };
    assertEquals("foo", ex.invokeAny(List.of(earlyFailure, lateFoo)));
    assertEquals(
        "foo", ex.invokeAny(List.of(earlyFailure, lateFoo), LIVENESS_SECONDS, TimeUnit.SECONDS));
  }

  /**
   * InvokeTest.testInvokeAnyWithTimeout3, ThreadPerTaskExecutorTest.testInvokeAnyWithTimeout3/4:
   * the timeout expires before any task completes normally (also after one failed):
   * TimeoutException, and the started tasks are interrupted.
   */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void timedInvokeAnyTimesOut(int parallelism) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    Blocker task1 = new Blocker();
    Blocker task2 = new Blocker();
    assertThrows(
        TimeoutException.class,
        () -> ex.invokeAny(List.of(task1, task2), 100, TimeUnit.MILLISECONDS));
    task1.awaitInterruptedIfStarted("started task 1 interrupted on timeout");
    task2.awaitInterruptedIfStarted("started task 2 interrupted on timeout");

    Callable<String> failing = () -> {
      throw new FooException("x");
    };
    Blocker task3 = new Blocker();
    assertThrows(
        TimeoutException.class,
        () -> ex.invokeAny(List.of(failing, task3), 100, TimeUnit.MILLISECONDS));
    task3.awaitInterruptedIfStarted("started task interrupted on timeout");
  }

  /**
   * InvokeTest.testInvokeAnyWithInterruptSet: invokeAny with the interrupt status set throws
   * InterruptedException and clears the status; started tasks are cancelled.
   */
  @ParameterizedTest(name = "parallelism {0}, timed {1}")
  @CsvSource({"1,false", "1,true", "2,false", "2,true"})
  void invokeAnyWithInterruptStatusSet(int parallelism, boolean timed) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    Blocker task1 = new Blocker();
    Blocker task2 = new Blocker();
    call("invoker", () -> {
      Thread.currentThread().interrupt();
      assertThrows(InterruptedException.class, () -> {
        if (timed) {
          ex.invokeAny(List.of(task1, task2), 1, TimeUnit.MINUTES);
        } else {
          ex.invokeAny(List.of(task1, task2));
        }
      });
      assertFalse(Thread.currentThread().isInterrupted(), "interrupt status cleared");
    }).join("invokeAny with interrupt status set throws");
    task1.awaitInterruptedIfStarted("started task 1 interrupted");
    task2.awaitInterruptedIfStarted("started task 2 interrupted");
  }

  /**
   * InvokeTest.testInterruptInvokeAny: interrupting a thread blocked in invokeAny:
   * InterruptedException, status cleared, started tasks interrupted.
   */
  @ParameterizedTest(name = "parallelism {0}, timed {1}")
  @CsvSource({"1,false", "1,true", "2,false", "2,true"})
  void interruptWhileBlockedInInvokeAny(int parallelism, boolean timed) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    Blocker task1 = new Blocker();
    Blocker task2 = new Blocker();
    Caller invoker = call("invoker", () -> {
      assertThrows(InterruptedException.class, () -> {
        if (timed) {
          ex.invokeAny(List.of(task1, task2), 1, TimeUnit.MINUTES);
        } else {
          ex.invokeAny(List.of(task1, task2));
        }
      });
      assertFalse(Thread.currentThread().isInterrupted(), "interrupt status cleared");
    });
    interruptWhenWaitingIn(invoker.thread, "invokeAny");
    invoker.join("interrupted invokeAny throws");
    task1.awaitInterruptedIfStarted("started task 1 interrupted");
    task2.awaitInterruptedIfStarted("started task 2 interrupted");
  }

  /**
   * InvokeTest.testInvokeAnyEmpty1/2, testInvokeAnyNull1/2, AbstractExecutorServiceTest
   * .testInvokeAny1-3, testTimedInvokeAny1-3, testTimedInvokeAnyNullTimeUnit. For the null
   * element the other task waits, so invokeAny cannot return before reaching the null (as the
   * TCK's latchAwaitingStringTask does).
   */
  @Test
  void invokeAnyArgumentChecks() throws Exception {
    GmpExecutor ex = newExecutor(2);
    assertThrows(IllegalArgumentException.class, () -> ex.invokeAny(List.of()));
    assertThrows(
        IllegalArgumentException.class, () -> ex.invokeAny(List.of(), 1, TimeUnit.MINUTES));
    assertThrows(NullPointerException.class, () -> ex.invokeAny(null));
    assertThrows(NullPointerException.class, () -> ex.invokeAny(null, 1, TimeUnit.SECONDS));
    for (long t : new long[] {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE}) {
      assertThrows(NullPointerException.class, () -> ex.invokeAny(null, t, TimeUnit.DAYS));
      assertThrows(
          IllegalArgumentException.class, () -> ex.invokeAny(List.of(), t, TimeUnit.NANOSECONDS));
    }
    assertThrows(
        NullPointerException.class, () -> ex.invokeAny(List.of(() -> TEST_STRING), 1, null));
    CountDownLatch latch = new CountDownLatch(1);
    Callable<String> waits = () -> {
      latch.await(LIVENESS_SECONDS, TimeUnit.SECONDS);
      return TEST_STRING;
    };
    List<Callable<String>> withNull = new ArrayList<>();
    withNull.add(waits);
    withNull.add(null);
    assertThrows(NullPointerException.class, () -> ex.invokeAny(withNull));
    assertThrows(NullPointerException.class, () -> ex.invokeAny(withNull, 1, TimeUnit.MINUTES));
    List<Callable<Long>> failingWithNull = new ArrayList<>();
    failingWithNull.add(() -> {
      throw new ArithmeticException();
    });
    failingWithNull.add(null);
    assertThrows(NullPointerException.class, () -> ex.invokeAny(failingWithNull));
    latch.countDown();
  }

  /**
   * Invoke.testInvokeAny on a single-thread executor (here: one processor, no spare threads):
   * invokeAny returns the first result, and the cancellation reaches the task running after it
   * (interrupted) before any third task starts.
   */
  @ParameterizedTest(name = "timed {0}")
  @ValueSource(booleans = {false, true})
  void invokeAnyOnSingleThreadExecutorStopsAfterFirstResult(boolean timed) throws Exception {
    GmpExecutor ex = newFixedExecutor(1);
    AtomicInteger count = new AtomicInteger();
    CountDownLatch invokeAnyDone = new CountDownLatch(1);
    List<String> violations = new CopyOnWriteArrayList<>();
    List<Callable<Integer>> tasks = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      tasks.add(() -> {
        int x = count.incrementAndGet();
        if (x > 2) {
          violations.add("task number " + x + " started");
        }
        if (x == 2) {
          try {
            forever.await(BLOCK_SECONDS, TimeUnit.SECONDS);
            violations.add("second task not interrupted");
          } catch (InterruptedException expected) {
            // the cancellation of the losers
          }
          if (!invokeAnyDone.await(LIVENESS_SECONDS, TimeUnit.SECONDS)) {
            violations.add("invokeAny did not return");
          }
        }
        return x;
      });
    }
    int val = timed ? ex.invokeAny(tasks, LIVENESS_SECONDS, TimeUnit.SECONDS) : ex.invokeAny(tasks);
    assertEquals(1, val);
    invokeAnyDone.countDown();
    ex.shutdown();
    assertTerminatesWithin(ex, "terminates");
    assertTrue(count.get() == 1 || count.get() == 2, "tasks started: " + count.get());
    assertEquals(List.of(), violations);
  }

  /**
   * Invoke.testInvokeAny_cancellationInterrupt: every task still running when invokeAny has its
   * result is sent an interrupt. All {@code parallelism} tasks run at once (a barrier), the
   * first to pass returns, the others wait for the interrupt.
   */
  @ParameterizedTest(name = "timed {0}")
  @ValueSource(booleans = {false, true})
  void invokeAnyInterruptsEveryRemainingRunningTask(boolean timed) throws Exception {
    int n = 2;
    GmpExecutor ex = newExecutor(n);
    AtomicInteger count = new AtomicInteger();
    AtomicInteger interrupted = new AtomicInteger();
    List<String> violations = new CopyOnWriteArrayList<>();
    CyclicBarrier allStarted = new CyclicBarrier(n);
    List<Callable<Integer>> tasks = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      tasks.add(() -> {
        try {
          allStarted.await(LIVENESS_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException | BrokenBarrierException e) {
          violations.add("not all tasks ran at once: " + e);
        }
        int x = count.incrementAndGet();
        if (x > 1) {
          try {
            forever.await(BLOCK_SECONDS, TimeUnit.SECONDS);
            violations.add("task " + x + " not interrupted");
          } catch (InterruptedException expected) {
            interrupted.incrementAndGet();
          }
        }
        return x;
      });
    }
    int val = timed ? ex.invokeAny(tasks, LIVENESS_SECONDS, TimeUnit.SECONDS) : ex.invokeAny(tasks);
    assertEquals(1, val);
    ex.shutdown();
    assertTerminatesWithin(ex, "terminates");
    assertEquals(n, count.get());
    assertEquals(n - 1, interrupted.get());
    assertEquals(List.of(), violations);
  }

  // ------------------------------------------------------------------ invokeAll

  /**
   * InvokeTest.testInvokeAll1/3, ThreadPerTaskExecutorTest.testInvokeAll1/3,
   * AbstractExecutorServiceTest.testInvokeAll5/testTimedInvokeAll5: every future done on
   * return, results in the tasks' order, also when they complete in the opposite order (with
   * two processors, task 1 waits until task 2 has completed).
   */
  @ParameterizedTest(name = "parallelism {0}, timed {1}")
  @CsvSource({"1,false", "1,true", "2,false", "2,true"})
  void invokeAllReturnsDoneFuturesInTaskOrder(int parallelism, boolean timed) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    CountDownLatch secondDone = new CountDownLatch(1);
    Callable<String> task1 = () -> {
      if (parallelism > 1) {
        assertTrue(secondDone.await(LIVENESS_SECONDS, TimeUnit.SECONDS), "task 2 completed");
      }
      return "foo";
    };
    Callable<String> task2 = () -> {
      secondDone.countDown();
      return "bar";
    };
    List<Future<String>> futures = timed
        ? ex.invokeAll(List.of(task1, task2), 1, TimeUnit.DAYS)
        : ex.invokeAll(List.of(task1, task2));
    assertEquals(2, futures.size());
    for (Future<String> f : futures) {
      assertTrue(f.isDone(), "done on return");
    }
    assertEquals(List.of("foo", "bar"), futures.stream().map(Future::resultNow).toList());
  }

  /**
   * InvokeTest.testInvokeAll2, AbstractExecutorServiceTest.testInvokeAll4/testTimedInvokeAll4:
   * each failed task's future throws ExecutionException with that task's exception.
   */
  @ParameterizedTest(name = "parallelism {0}, timed {1}")
  @CsvSource({"1,false", "1,true", "2,false", "2,true"})
  void invokeAllFailedTasksReportTheirExceptions(int parallelism, boolean timed) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    CountDownLatch firstFailed = new CountDownLatch(1);
    Callable<String> task1 = () -> {
      firstFailed.countDown();
      throw new FooException("1");
    };
    Callable<String> task2 = () -> {
      firstFailed.await(LIVENESS_SECONDS, TimeUnit.SECONDS);
      throw new BarException();
    };
    Callable<String> npe = () -> {
      throw new NullPointerException();
    };
    List<Callable<String>> tasks = List.of(task1, task2, npe);
    List<Future<String>> futures = timed
        ? ex.invokeAll(tasks, LIVENESS_SECONDS, TimeUnit.SECONDS)
        : ex.invokeAll(tasks);
    assertEquals(3, futures.size());
    assertInstanceOf(
        FooException.class, assertThrows(ExecutionException.class, futures.get(0)::get).getCause());
    assertInstanceOf(
        BarException.class, assertThrows(ExecutionException.class, futures.get(1)::get).getCause());
    assertInstanceOf(
        NullPointerException.class,
        assertThrows(ExecutionException.class, futures.get(2)::get).getCause());
  }

  /**
   * Invoke.testInvokeAll: every task runs exactly once before invokeAll returns; the results
   * are the tasks' own.
   */
  @ParameterizedTest(name = "parallelism {0}, timed {1}")
  @CsvSource({"1,false", "1,true", "2,false", "2,true"})
  void invokeAllRunsEveryTaskOnce(int parallelism, boolean timed) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    AtomicInteger count = new AtomicInteger();
    int n = 6;
    List<Callable<Integer>> tasks = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      tasks.add(count::incrementAndGet);
    }
    List<Future<Integer>> futures = timed
        ? ex.invokeAll(tasks, LIVENESS_SECONDS, TimeUnit.SECONDS)
        : ex.invokeAll(tasks);
    assertEquals(n, futures.size());
    assertEquals(n, count.get());
    long gauss = 0;
    for (Future<Integer> f : futures) {
      gauss += f.resultNow();
    }
    assertEquals((long) n * (n + 1) / 2, gauss);
    ex.shutdown();
    assertTerminatesWithin(ex, "terminates");
  }

  /**
   * InvokeTest.testInvokeAll4, ThreadPerTaskExecutorTest.testInvokeAll4,
   * ThreadPoolExecutorTest/AbstractExecutorServiceTest.testTimedInvokeAll6: timed invokeAll
   * returns after its timeout (never before: a lower bound only) with every future done, the
   * unfinished task cancelled and, if it had started, interrupted. The quick tasks must have
   * completed; on a slow machine a quick task may not even have started in time, so retry with
   * a longer timeout, as the TCK does. With one processor the blocked task holds it, so only a
   * task before it is certain to run.
   */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void timedInvokeAllCancelsTasksNotCompletedInTime(int parallelism) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    for (long timeout = 50; ; timeout *= 4) {
      Blocker waiter = new Blocker();
      List<Callable<String>> tasks = new ArrayList<>();
      tasks.add(() -> "0");
      tasks.add(waiter);
      if (parallelism > 1) {
        tasks.add(() -> "2");
      }
      long start = System.nanoTime();
      List<Future<String>> futures = ex.invokeAll(tasks, timeout, TimeUnit.MILLISECONDS);
      long elapsedNanos = System.nanoTime() - start;
      assertEquals(tasks.size(), futures.size());
      assertTrue(
          elapsedNanos >= TimeUnit.MILLISECONDS.toNanos(timeout),
          "returned after " + elapsedNanos + " ns, before its " + timeout + " ms timeout");
      for (Future<String> f : futures) {
        assertTrue(f.isDone(), "every future done on return");
      }
      assertTrue(futures.get(1).isCancelled(), "the unfinished task is cancelled");
      assertThrows(CancellationException.class, futures.get(1)::get);
      waiter.awaitInterruptedIfStarted("the started unfinished task is interrupted");
      boolean quickOnesDone = true;
      for (int i = 0; i < futures.size(); i++) {
        if (i != 1 && futures.get(i).isCancelled()) {
          quickOnesDone = false;
        }
      }
      if (quickOnesDone) {
        assertEquals("0", futures.get(0).resultNow());
        if (parallelism > 1) {
          assertEquals("2", futures.get(2).resultNow());
        }
        return;
      }
      if (timeout >= TimeUnit.SECONDS.toMillis(LIVENESS_SECONDS) / 2) {
        fail("a quick task was still cancelled with a " + timeout + " ms timeout");
      }
    }
  }

  /**
   * InvokeTest.testInvokeAllInterrupt1/3, ThreadPerTaskExecutorTest.testInvokeAllInterrupt1/3:
   * invokeAll with the interrupt status set throws InterruptedException and clears the status;
   * the unfinished task, if it started, is interrupted.
   */
  @ParameterizedTest(name = "parallelism {0}, timed {1}")
  @CsvSource({"1,false", "1,true", "2,false", "2,true"})
  void invokeAllWithInterruptStatusSet(int parallelism, boolean timed) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    Blocker task2 = new Blocker();
    List<Callable<String>> tasks = List.of(() -> "foo", task2);
    call("invoker", () -> {
      Thread.currentThread().interrupt();
      assertThrows(InterruptedException.class, () -> {
        if (timed) {
          ex.invokeAll(tasks, 1, TimeUnit.MINUTES);
        } else {
          ex.invokeAll(tasks);
        }
      });
      assertFalse(Thread.currentThread().isInterrupted(), "interrupt status cleared");
    }).join("invokeAll with interrupt status set throws");
    task2.awaitInterruptedIfStarted("the started unfinished task is interrupted");
  }

  /**
   * InvokeTest.testInvokeAllInterrupt4/6, ThreadPerTaskExecutorTest.testInvokeAllInterrupt4/6:
   * interrupting a thread blocked in invokeAll: InterruptedException, status cleared, the
   * unfinished task interrupted.
   */
  @ParameterizedTest(name = "parallelism {0}, timed {1}")
  @CsvSource({"1,false", "1,true", "2,false", "2,true"})
  void interruptWhileBlockedInInvokeAll(int parallelism, boolean timed) throws Exception {
    GmpExecutor ex = newExecutor(parallelism);
    Blocker task2 = new Blocker();
    List<Callable<String>> tasks = List.of(() -> "foo", task2);
    Caller invoker = call("invoker", () -> {
      assertThrows(InterruptedException.class, () -> {
        if (timed) {
          ex.invokeAll(tasks, 1, TimeUnit.DAYS);
        } else {
          ex.invokeAll(tasks);
        }
      });
      assertFalse(Thread.currentThread().isInterrupted(), "interrupt status cleared");
    });
    task2.awaitStarted("the blocking task started");
    interruptWhenWaitingIn(invoker.thread, "invokeAll");
    invoker.join("interrupted invokeAll throws");
    await(task2.interrupted, "the unfinished task is interrupted");
  }

  /**
   * InvokeTest.testInvokeAllEmpty1/2, testInvokeAllNull1-5, AbstractExecutorServiceTest
   * .testInvokeAll1-3, testTimedInvokeAll1-3, testTimedInvokeAllNullTimeUnit.
   */
  @Test
  void invokeAllArgumentChecks() throws Exception {
    GmpExecutor ex = newExecutor(2);
    assertTrue(ex.invokeAll(List.of()).isEmpty());
    assertTrue(ex.invokeAll(List.of(), 1, TimeUnit.SECONDS).isEmpty());
    for (long t : new long[] {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE}) {
      for (TimeUnit unit : TimeUnit.values()) {
        assertTrue(ex.invokeAll(List.of(), t, unit).isEmpty());
      }
    }
    assertThrows(NullPointerException.class, () -> ex.invokeAll(null));
    assertThrows(NullPointerException.class, () -> ex.invokeAll(null, 1, TimeUnit.SECONDS));
    assertThrows(
        NullPointerException.class, () -> ex.invokeAll(List.of(() -> TEST_STRING), 1, null));
    List<Callable<String>> withNull = new ArrayList<>();
    withNull.add(() -> TEST_STRING);
    withNull.add(null);
    assertThrows(NullPointerException.class, () -> ex.invokeAll(withNull));
    assertThrows(NullPointerException.class, () -> ex.invokeAll(withNull, 1, TimeUnit.SECONDS));
    assertEquals(1, get(ex.submit(() -> 1)), "still usable");
  }
}
