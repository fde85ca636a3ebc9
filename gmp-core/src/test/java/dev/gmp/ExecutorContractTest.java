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

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** The ExecutorService contract, as the JSR-166 TCK and the JDK's ExecutorService tests check it. */
class ExecutorContractTest {
  private final List<GmpExecutor> executors = new ArrayList<>();

  private GmpExecutor newExecutor(int parallelism) {
    GmpExecutor ex = GmpExecutor.builder().parallelism(parallelism).build();
    executors.add(ex);
    return ex;
  }

  @AfterEach
  void tearDown() {
    Thread.interrupted();
    for (GmpExecutor ex : executors) {
      TestSupport.terminate(ex);
    }
  }

  private static <T> T get(Future<T> f) throws Exception {
    return f.get(LIVENESS_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void submitRunnableCallableAndRunnableWithResult() throws Exception {
    GmpExecutor ex = newExecutor(2);
    AtomicInteger ran = new AtomicInteger();
    Runnable r = () -> {
      ran.incrementAndGet();
    };
    Future<?> f1 = ex.submit(r);
    assertNull(get(f1));
    assertTrue(f1.isDone());
    assertEquals("x", get(ex.submit(() -> "x")));
    Future<String> f3 = ex.submit(() -> {
      ran.incrementAndGet();
    }, "result");
    assertEquals("result", get(f3));
    assertEquals(2, ran.get());
    Future<Object> f4 = ex.submit(() -> {
      throw new java.io.IOException("boom");
    });
    ExecutionException ee = assertThrows(ExecutionException.class, () -> get(f4));
    assertInstanceOf(java.io.IOException.class, ee.getCause());
  }

  @Test
  void nullTasksThrowNpe() {
    GmpExecutor ex = newExecutor(1);
    assertThrows(NullPointerException.class, () -> ex.execute(null));
    assertThrows(NullPointerException.class, () -> ex.submit((Runnable) null));
    assertThrows(NullPointerException.class, () -> ex.submit((Callable<?>) null));
    assertThrows(NullPointerException.class, () -> ex.submit(null, "r"));
    assertThrows(NullPointerException.class, () -> ex.invokeAll(null));
    assertThrows(NullPointerException.class, () -> ex.invokeAll(null, 1, TimeUnit.SECONDS));
    assertThrows(NullPointerException.class, () -> ex.invokeAny(null));
    assertThrows(NullPointerException.class, () -> ex.invokeAny(null, 1, TimeUnit.SECONDS));
    // As in the TCK, the non-null task waits, so invokeAny cannot return before reaching null.
    CountDownLatch gate = new CountDownLatch(1);
    List<Callable<String>> withNull = Arrays.asList(() -> {
      gate.await();
      return "a";
    }, null);
    assertThrows(NullPointerException.class, () -> ex.invokeAll(withNull));
    assertThrows(NullPointerException.class, () -> ex.invokeAll(withNull, 1, TimeUnit.SECONDS));
    assertThrows(NullPointerException.class, () -> ex.invokeAny(withNull));
    assertThrows(NullPointerException.class, () -> ex.invokeAny(withNull, 1, TimeUnit.SECONDS));
    List<Callable<String>> onlyNull = Collections.singletonList(null);
    assertThrows(NullPointerException.class, () -> ex.invokeAny(onlyNull));
    assertThrows(NullPointerException.class, () -> ex.invokeAll(onlyNull));
    gate.countDown();
  }

  /**
   * invokeAll and invokeAny check every element before they queue a task, so a call that throws
   * for a null ran none of its tasks. AbstractExecutorService's meet the null only after queueing
   * the tasks before it: invokeAll's ran or cancelled them, and invokeAny could return the first
   * one's result and never throw. Whatever a call queued stays queued here until it returns: from
   * a task, in the only P's queue; from outside, while the only worker spins in a task.
   */
  @Test
  void aNullAmongTheTasksIsFoundBeforeAnyIsQueued() throws Exception {
    GmpExecutor ex = newExecutor(1);
    AtomicInteger ran = new AtomicInteger();
    NullSecond tasks =
        new NullSecond(
            ex,
            () -> {
              ran.incrementAndGet();
              return "a";
            });
    assertNull(
        get(
            ex.submit(
                () -> {
                  assertEveryCallThrowsForTheNull(ex, tasks);
                  return null;
                })));
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch spinning = new CountDownLatch(1);
    Future<?> spinner =
        ex.submit(
            () -> {
              spinning.countDown();
              while (!stop.get()) {
                Thread.onSpinWait();
              }
            });
    await(spinning, "the spinning task to start");
    try {
      assertEveryCallThrowsForTheNull(ex, tasks);
    } finally {
      stop.set(true);
    }
    get(spinner);
    ex.shutdown();
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertFalse(tasks.queuedBeforeNull, "a task was queued before the null was reached");
    assertEquals(0, ran.get(), "a call that threw ran one of its tasks");
  }

  private static void assertEveryCallThrowsForTheNull(GmpExecutor ex, NullSecond tasks) {
    List<Executable> calls =
        List.of(
            () -> ex.invokeAll(tasks),
            () -> ex.invokeAll(tasks, LIVENESS_SECONDS, TimeUnit.SECONDS),
            () -> ex.invokeAny(tasks),
            () -> ex.invokeAny(tasks, LIVENESS_SECONDS, TimeUnit.SECONDS));
    for (Executable call : calls) {
      NullPointerException e = assertThrows(NullPointerException.class, call);
      assertEquals("tasks holds a null at position 1", e.getMessage());
    }
  }

  /** Three tasks, the second null; notes whether any task was queued when the null was read. */
  private static final class NullSecond extends AbstractList<Callable<String>> {
    private final GmpExecutor ex;
    private final Callable<String> task;
    volatile boolean queuedBeforeNull;

    NullSecond(GmpExecutor ex, Callable<String> task) {
      this.ex = ex;
      this.task = task;
    }

    @Override
    public Callable<String> get(int i) {
      if (i != 1) {
        return task;
      }
      if (ex.stats().runnableTasks() > 0) {
        queuedBeforeNull = true;
      }
      return null;
    }

    @Override
    public int size() {
      return 3;
    }
  }

  @Test
  void invokeAllReturnsDoneFuturesInOrder() throws Exception {
    GmpExecutor ex = newExecutor(2);
    List<Callable<Integer>> tasks = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      int id = i;
      tasks.add(() -> {
        if (id == 7) {
          throw new IllegalStateException("seven");
        }
        return id;
      });
    }
    List<Future<Integer>> fs = ex.invokeAll(tasks);
    assertEquals(50, fs.size());
    for (int i = 0; i < 50; i++) {
      Future<Integer> f = fs.get(i);
      assertTrue(f.isDone(), "future " + i + " done on return");
      if (i == 7) {
        ExecutionException ee = assertThrows(ExecutionException.class, f::get);
        assertEquals("seven", ee.getCause().getMessage());
      } else {
        assertEquals(i, f.get());
      }
    }
    assertTrue(ex.invokeAll(List.of()).isEmpty());
    assertTrue(ex.invokeAll(List.of(), 1, TimeUnit.SECONDS).isEmpty());
  }

  @Test
  void timedInvokeAllCancelsUnfinishedOnTimeout() throws Exception {
    GmpExecutor ex = newExecutor(2);
    CountDownLatch never = new CountDownLatch(1);
    // The quick task must be done within the timeout; on a loaded machine retry with a longer
    // one (as the TCK does) rather than assume a timing.
    for (long timeoutMs : new long[] {200, 1000, 5000}) {
      CountDownLatch interrupted = new CountDownLatch(1);
      List<Callable<String>> tasks = List.of(
          () -> "quick",
          () -> {
            try {
              never.await();
            } catch (InterruptedException e) {
              interrupted.countDown();
            }
            return "slow";
          });
      List<Future<String>> fs = ex.invokeAll(tasks, timeoutMs, TimeUnit.MILLISECONDS);
      assertEquals(2, fs.size());
      assertTrue(fs.get(0).isDone() && fs.get(1).isDone(), "all done on return");
      assertTrue(fs.get(1).isCancelled(), "unfinished task cancelled on timeout");
      assertThrows(CancellationException.class, () -> fs.get(1).get());
      awaitQuiet(ex); // if the slow task had started, cancel(true) interrupted it
      if (!fs.get(0).isCancelled()) {
        assertEquals("quick", fs.get(0).get());
        return;
      }
    }
    throw new AssertionError("the quick task never finished within 5 s");
  }

  /** Waits until every task has finished (nothing queued or running). */
  private static void awaitQuiet(GmpExecutor ex) {
    TestSupport.awaitCondition(
        () -> "executor quiet: " + ex.stats(),
        LIVENESS_SECONDS,
        () -> {
          GmpStats s = ex.stats();
          return s.runnableTasks() == 0
              && s.runningTasks() == 0
              && s.syscallTasks() == 0
              && s.waitingTasks() == 0;
        });
  }

  @Test
  void invokeAnyReturnsOneResultAndInterruptsLosers() throws Exception {
    GmpExecutor ex = newExecutor(2);
    CountDownLatch loserStarted = new CountDownLatch(1);
    CountDownLatch loserInterrupted = new CountDownLatch(1);
    CountDownLatch never = new CountDownLatch(1);
    List<Callable<String>> tasks = List.of(
        () -> {
          loserStarted.countDown();
          try {
            never.await();
          } catch (InterruptedException e) {
            loserInterrupted.countDown();
          }
          return "loser";
        },
        () -> {
          loserStarted.await();
          return "winner";
        });
    assertEquals("winner", ex.invokeAny(tasks));
    await(loserInterrupted, "invokeAny cancels (interrupts) the losing task");
  }

  @Test
  void invokeAnyAllFailingThrowsExecutionException() {
    GmpExecutor ex = newExecutor(2);
    List<Callable<String>> tasks = List.of(
        () -> {
          throw new IllegalStateException("a");
        },
        () -> {
          throw new IllegalStateException("b");
        });
    ExecutionException ee = assertThrows(ExecutionException.class, () -> ex.invokeAny(tasks));
    assertInstanceOf(IllegalStateException.class, ee.getCause());
    assertThrows(
        ExecutionException.class, () -> ex.invokeAny(tasks, LIVENESS_SECONDS, TimeUnit.SECONDS));
  }

  @Test
  void invokeAnyTimedOutAndEmpty() throws Exception {
    GmpExecutor ex = newExecutor(2);
    CountDownLatch never = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    Callable<String> blocker = () -> {
      try {
        never.await();
      } catch (InterruptedException e) {
        interrupted.countDown();
      }
      return "late";
    };
    assertThrows(
        TimeoutException.class,
        () -> ex.invokeAny(List.of(blocker), 100, TimeUnit.MILLISECONDS));
    assertThrows(IllegalArgumentException.class, () -> ex.invokeAny(List.of()));
    assertThrows(
        IllegalArgumentException.class, () -> ex.invokeAny(List.of(), 1, TimeUnit.SECONDS));
    assertEquals("ok", ex.invokeAny(List.of(() -> "ok"), LIVENESS_SECONDS, TimeUnit.SECONDS));
    awaitQuiet(ex);
  }

  @Test
  void executeAfterShutdownIsRejectedAlsoFromInsideATask() throws Exception {
    GmpExecutor ex = newExecutor(2);
    CountDownLatch inTask = new CountDownLatch(1);
    CountDownLatch shutDown = new CountDownLatch(1);
    AtomicReference<Throwable> fromInside = new AtomicReference<>();
    ex.execute(() -> {
      inTask.countDown();
      try {
        shutDown.await();
        ex.execute(() -> {});
      } catch (Throwable e) {
        fromInside.set(e);
      }
    });
    await(inTask, "task started");
    ex.shutdown();
    assertTrue(ex.isShutdown());
    shutDown.countDown();
    assertThrows(RejectedExecutionException.class, () -> ex.execute(() -> {}));
    assertThrows(RejectedExecutionException.class, () -> ex.submit(() -> 1));
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertInstanceOf(RejectedExecutionException.class, fromInside.get());
    assertThrows(RejectedExecutionException.class, () -> ex.execute(() -> {}));
  }

  @Test
  void shutdownLetsQueuedTasksFinish() throws Exception {
    AtomicReference<Throwable> uncaught = new AtomicReference<>();
    GmpExecutor ex =
        GmpExecutor.builder()
            .parallelism(1)
            .uncaughtExceptionHandler((t, e) -> uncaught.set(e))
            .build();
    executors.add(ex);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    AtomicInteger ran = new AtomicInteger();
    ex.execute(() -> {
      started.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        throw new AssertionError("shutdown() must not interrupt", e);
      }
      for (int i = 0; i < 10; i++) {
        ex.execute(ran::incrementAndGet); // local spawns queued before shutdown
      }
    });
    await(started, "blocker started");
    for (int i = 0; i < 30; i++) {
      ex.execute(ran::incrementAndGet);
    }
    assertFalse(ex.isShutdown());
    assertFalse(ex.isTerminated());
    assertFalse(ex.awaitTermination(10, TimeUnit.MILLISECONDS));
    // Local spawns are accepted only while running; queue them from inside before shutdown.
    ex.shutdown();
    assertTrue(ex.isShutdown());
    assertFalse(ex.isTerminated());
    release.countDown();
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertTrue(ex.isTerminated());
    // The blocker's spawns came after shutdown: rejected inside the task (uncaught), not run.
    assertEquals(30, ran.get());
    assertInstanceOf(RejectedExecutionException.class, uncaught.get());
    ex.shutdown(); // idempotent
    assertTrue(ex.shutdownNow().isEmpty());
    assertTrue(ex.isTerminated());
  }

  @Test
  void shutdownOfIdleExecutorTerminates() throws Exception {
    GmpExecutor ex = newExecutor(2);
    assertEquals(1, get(ex.submit(() -> 1)));
    ex.shutdown();
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertTrue(ex.isTerminated());
    GmpExecutor fresh = newExecutor(1);
    assertTrue(fresh.shutdownNow().isEmpty());
    assertTrue(fresh.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
  }

  @Test
  void closeWaitsForTasksAndIsIdempotent() throws Exception {
    GmpExecutor ex = newExecutor(2);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean finished = new AtomicBoolean();
    ex.execute(() -> {
      try {
        release.await();
      } catch (InterruptedException e) {
        return;
      }
      finished.set(true);
    });
    Thread releaser = new Thread(() -> {
      TestSupport.awaitCondition("close() began", ex::isShutdown);
      release.countDown();
    });
    releaser.start();
    ex.close();
    assertTrue(finished.get(), "close() returned before the task finished");
    assertTrue(ex.isTerminated());
    ex.close();
    ex.close();
    assertTrue(ex.isTerminated());
    releaser.join();
  }

  @Test
  void closeWithInterruptedCallerShutsDownNowAndKeepsInterrupt() {
    GmpExecutor ex = newExecutor(1);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch taskInterrupted = new CountDownLatch(1);
    ex.execute(() -> {
      started.countDown();
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        taskInterrupted.countDown();
      }
    });
    await(started, "task started");
    Thread.currentThread().interrupt();
    ex.close();
    assertTrue(Thread.interrupted(), "close() must leave the caller's interrupt status set");
    assertTrue(ex.isTerminated());
    assertEquals(0, taskInterrupted.getCount(), "close() on interrupt must call shutdownNow");
  }

  @Test
  void closeFromInsideOwnTaskThrowsIllegalState() throws Exception {
    GmpExecutor ex = newExecutor(1);
    Future<Throwable> f = ex.submit(() -> {
      try {
        ex.close();
        return null;
      } catch (Throwable e) {
        return e;
      }
    });
    assertInstanceOf(IllegalStateException.class, get(f));
    assertFalse(ex.isShutdown(), "the refused close() must not shut the executor down");
    assertEquals(2, get(ex.submit(() -> 2)));
  }

  @Test
  void cancelInterruptsRunningTaskAndInterruptDoesNotLeak() throws Exception {
    // One processor, no retakes (maxSpareThreads 0): the task queued behind the cancelled one
    // runs next on the same worker thread.
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).maxSpareThreads(0).build();
    executors.add(ex);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    AtomicReference<Thread> worker = new AtomicReference<>();
    Future<?> f = ex.submit(() -> {
      worker.set(Thread.currentThread());
      started.countDown();
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        interrupted.countDown();
      }
    });
    await(started, "task started");
    AtomicReference<Thread> nextThread = new AtomicReference<>();
    Future<Boolean> next = ex.submit(() -> {
      nextThread.set(Thread.currentThread());
      return Thread.currentThread().isInterrupted();
    });
    assertTrue(f.cancel(true));
    assertTrue(f.isCancelled());
    await(interrupted, "cancel(true) interrupts the running task");
    assertFalse(get(next), "a cancel interrupt leaked into the next task");
    assertSame(worker.get(), nextThread.get(), "the next task ran on the same worker");
  }

  /** A task that returns with its thread's interrupt flag set must not pass it on. */
  @RepeatedTest(3)
  void interruptLeftByATaskDoesNotLeak() throws Exception {
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).maxSpareThreads(0).build();
    executors.add(ex);
    // A spinner cancelled with cancel(true) that returns without clearing its interrupt.
    CountDownLatch started = new CountDownLatch(1);
    Future<?> spinner = ex.submit(() -> {
      started.countDown();
      while (!Thread.currentThread().isInterrupted()) {
        Thread.onSpinWait();
      }
    });
    await(started, "spinner started");
    // Queued behind the spinner: with one processor they run on its thread, in this order.
    List<Thread> threads = Collections.synchronizedList(new ArrayList<>());
    Future<Boolean> afterCancel = ex.submit(() -> {
      threads.add(Thread.currentThread());
      return Thread.currentThread().isInterrupted();
    });
    ex.execute(() -> {
      threads.add(Thread.currentThread());
      Thread.currentThread().interrupt(); // a task that interrupts itself and returns
    });
    Future<Boolean> afterSelf = ex.submit(() -> {
      threads.add(Thread.currentThread());
      return Thread.currentThread().isInterrupted();
    });
    // Same from a local spawn (runnext: runs right after on the same thread).
    Future<Future<Boolean>> spawner = ex.submit(() -> {
      threads.add(Thread.currentThread());
      Future<Boolean> inner = ex.submit(() -> {
        threads.add(Thread.currentThread());
        return Thread.currentThread().isInterrupted();
      });
      Thread.currentThread().interrupt();
      return inner;
    });
    spinner.cancel(true);
    assertFalse(get(afterCancel), "cancel interrupt leaked");
    assertFalse(get(afterSelf), "self-interrupt leaked");
    assertFalse(get(get(spawner)), "interrupt leaked into the spawned runnext task");
    assertEquals(5, threads.size());
    for (Thread t : threads) {
      assertSame(threads.get(0), t, "all ran on the one worker: " + threads);
    }
  }

  @Test
  void awaitTerminationTimesOutWhileRunning() throws Exception {
    GmpExecutor ex = newExecutor(1);
    CountDownLatch release = new CountDownLatch(1);
    ex.execute(() -> {
      try {
        release.await();
      } catch (InterruptedException ignored) {
        // shutdownNow in tearDown
      }
    });
    ex.shutdown();
    assertFalse(ex.awaitTermination(20, TimeUnit.MILLISECONDS));
    assertFalse(ex.isTerminated());
    release.countDown();
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
  }
}
