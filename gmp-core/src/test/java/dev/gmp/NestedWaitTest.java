package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Tasks that wait on futures of their own executor (HelpingFuture): an awaited task that no
 * thread has started runs in the waiter's place, exactly once, so a tree of waiting tasks needs
 * no thread per level.
 */
class NestedWaitTest {
  @RegisterExtension final TrackedExecutors tracked = new TrackedExecutors();

  /** A binary tree whose every inner task submits two children and waits for both. */
  private static int tree(GmpExecutor ex, int depth, Set<Thread> threads)
      throws InterruptedException, ExecutionException {
    threads.add(Thread.currentThread());
    if (depth == 0) {
      return 1;
    }
    Future<Integer> left = ex.submit(() -> tree(ex, depth - 1, threads));
    Future<Integer> right = ex.submit(() -> tree(ex, depth - 1, threads));
    return left.get() + right.get();
  }

  @Test
  void aTreeOfWaitingTasksNeedsNoThreadPerLevel() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.builder().parallelism(1).build());
    Set<Thread> threads = ConcurrentHashMap.newKeySet();
    int depth = 10;
    int leaves = ex.submit(() -> tree(ex, depth, threads)).get(
        TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
    assertEquals(1 << depth, leaves);
    // Without helping every waiting level holds a thread (>= depth of them). A thread beyond the
    // first is only possible if the block detector took the P from a task briefly off the CPU
    // in a cold JVM; a handful covers that without hiding a per-level thread.
    assertTrue(threads.size() <= 3,
        "tasks ran on " + threads.size() + " threads; stats " + ex.stats());
  }

  @Test
  void invokeAllInsideATaskRunsEveryTaskOnceWithoutExtraThreads() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.builder().parallelism(1).build());
    int n = 200;
    AtomicIntegerArray runs = new AtomicIntegerArray(n);
    Set<Thread> threads = ConcurrentHashMap.newKeySet();
    List<Integer> out = ex.submit(() -> {
      List<Callable<Integer>> calls = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int k = i;
        calls.add(() -> {
          threads.add(Thread.currentThread());
          runs.incrementAndGet(k);
          return k * 2;
        });
      }
      List<Integer> values = new ArrayList<>();
      for (Future<Integer> f : ex.invokeAll(calls)) {
        values.add(f.get());
      }
      return values;
    }).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
    for (int i = 0; i < n; i++) {
      assertEquals(i * 2, out.get(i));
      assertEquals(1, runs.get(i), "task " + i + " ran " + runs.get(i) + " times");
    }
    assertTrue(threads.size() <= 3, "tasks ran on " + threads.size() + " threads");
  }

  @Test
  void invokeAllInsideATaskRunsTheNewestTasksInPlaceFirst() throws Exception {
    // GmpExecutor#invokeAll waits newest first (ForkJoinPool's order): the waiter runs unstarted
    // tasks from the end of the queue other workers do not steal from. With AbstractExecutor-
    // Service's oldest-first waits, the tasks run in place would come in rising order.
    GmpExecutor ex = tracked.track(GmpExecutor.builder().parallelism(1).build());
    int n = 100;
    List<Integer> inPlace = Collections.synchronizedList(new ArrayList<>());
    ex.submit(() -> {
      Thread waiter = Thread.currentThread();
      List<Callable<Integer>> calls = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int k = i;
        calls.add(() -> {
          if (Thread.currentThread() == waiter) {
            inPlace.add(k);
          }
          return k;
        });
      }
      ex.invokeAll(calls);
      return null;
    }).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
    // With one P, only a retake (the detector taking a cold JVM's class loading for a block)
    // lets another thread run some of them; the waiter still runs the rest, newest first.
    assertTrue(inPlace.size() >= 2, "ran in place: " + inPlace + "; stats " + ex.stats());
    for (int i = 1; i < inPlace.size(); i++) {
      assertTrue(inPlace.get(i) < inPlace.get(i - 1), "in-place order " + inPlace);
    }
  }

  @Test
  void aTaskAwaitedByManyWaitersWhileQueuedRunsExactlyOnce() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.builder().parallelism(4).build());
    int n = 2_000;
    int waiters = 8;
    AtomicIntegerArray runs = new AtomicIntegerArray(n);
    CountDownLatch gate = new CountDownLatch(1);
    // Hold every processor until all futures are queued, so that the waiters and the Ms that
    // dequeue the Gs race for the same not-yet-started tasks.
    List<Future<?>> blockers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      blockers.add(ex.submit(() -> {
        TestSupport.await(gate, "gate");
      }));
    }
    List<Future<?>> futures = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int k = i;
      futures.add(ex.submit(() -> runs.incrementAndGet(k)));
    }
    List<Future<?>> waiting = new ArrayList<>();
    for (int w = 0; w < waiters; w++) {
      int start = w * (n / waiters);
      waiting.add(ex.submit(() -> {
        for (int i = 0; i < n; i++) {
          futures.get((start + i) % n).get();
        }
        return null;
      }));
    }
    gate.countDown();
    for (Future<?> f : waiting) {
      f.get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
    }
    for (Future<?> f : blockers) {
      f.get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
    }
    for (int i = 0; i < n; i++) {
      assertEquals(1, runs.get(i), "task " + i + " ran " + runs.get(i) + " times");
    }
  }

  @Test
  void aTaskRunInPlaceReportsItsException() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.builder().parallelism(1).build());
    IllegalStateException boom = new IllegalStateException("boom");
    Throwable seen = ex.submit(() -> {
      Future<?> f = ex.submit(() -> {
        throw boom;
      });
      return assertThrows(ExecutionException.class, f::get).getCause();
    }).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
    assertSame(boom, seen);
  }

  /**
   * A timed get runs a task no thread has started in place too, as ForkJoinPool's timed join
   * does, and answers with its result even when that run outlasts the timeout (1 ns here). With
   * parallelism 1 and no spare threads nothing else could run it: before 2026-12-07 the timed
   * wait was only declared (a hand-off and a spare thread per call) and here it timed out.
   */
  @Test
  void aTimedGetRunsTheTaskInPlaceAndAnswersPastItsTimeout() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.builder().parallelism(1).maxSpareThreads(0).build());
    Thread[] ran = new Thread[3];
    ex.submit(() -> {
      ran[0] = Thread.currentThread();
      ran[1] = ex.submit(Thread::currentThread).get(1, TimeUnit.NANOSECONDS);
      ran[2] = ex.submit(Thread::currentThread).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
      return null;
    }).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
    assertSame(ran[0], ran[1]);
    assertSame(ran[0], ran[2]);
    assertEquals(1, ex.stats().peakThreads(), "one thread: " + ex.stats());
  }

  /**
   * Timed invokeAll and invokeAny from a task need no other thread either: with parallelism 1
   * and no spare threads every task of invokeAll runs in place, newest first, and invokeAny
   * answers from its newest; the tasks invokeAny did not need never run. A zero timeout is a
   * TimeoutException that ran nothing. Before 2026-12-07 both timed out here.
   */
  @Test
  void timedInvokeAllAndInvokeAnyInsideATaskNeedNoOtherThread() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.builder().parallelism(1).maxSpareThreads(0).build());
    AtomicIntegerArray runs = new AtomicIntegerArray(3);
    List<Callable<String>> tasks = counted(runs, n -> "task " + n);
    List<String> all = ex.submit(() -> {
      List<String> values = new ArrayList<>();
      for (Future<String> f : ex.invokeAll(tasks, TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS)) {
        values.add(f.get());
      }
      return values;
    }).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
    assertEquals(List.of("task 0", "task 1", "task 2"), all);
    String any = ex.submit(() -> ex.invokeAny(tasks, TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS))
        .get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
    assertEquals("task 2", any, "the newest, run in place first");
    ex.submit(() -> assertThrows(java.util.concurrent.TimeoutException.class,
        () -> ex.invokeAny(tasks, 0, TimeUnit.SECONDS)))
        .get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
    ex.shutdown();
    assertTrue(ex.awaitTermination(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertEquals("[1, 1, 2]", runs.toString(), "invokeAny's other tasks were cancelled, never run");
    assertEquals(1, ex.stats().peakThreads(), "one thread: " + ex.stats());
  }

  /**
   * A child its parent ran in place leaves no G queued when it was the parent's newest (the P's
   * runnext, timed get or not): while the parent still runs no task counts as runnable, and every
   * child counts as completed once. Before 2026-12-07 each child's G stayed queued until an M
   * popped it and found the run claimed; 450 of them overflowed the ring into the global queue.
   */
  @Test
  void aChildRunInPlaceLeavesNoGQueuedAndCountsAsCompletedOnce() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.builder().parallelism(1).maxSpareThreads(0).build());
    int n = 300;
    int queued = ex.submit(() -> {
      for (int i = 0; i < n; i++) {
        ex.submit(() -> {}).get();
        if (i % 2 == 0) {
          ex.submit(() -> 1).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
        }
      }
      return ex.stats().runnableTasks();
    }).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
    assertEquals(0, queued, "children run in place still queued");
    long all = n + n / 2 + 1;
    TestSupport.awaitCondition(() -> "completed " + all + ": " + ex.stats(),
        TestSupport.LIVENESS_SECONDS, () -> ex.stats().completedTasks() >= all);
    ex.shutdown();
    assertTrue(ex.awaitTermination(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertEquals(all, ex.stats().completedTasks(), "each task counted once");
  }

  /**
   * A tree of tasks that each submit two children and wait on the second, then the first (a
   * fork-join tree written with submit and get): the first child, displaced from runnext to the
   * ring's tail by the second, leaves the queue too once run in place (RunQueue#takeOwnNewestIf)
   * where no thief can be claiming it. Before, 766 of a depth-9 tree's 1,022 children stayed
   * queued (516 of them overflowed into the global queue), and showed as runnable meanwhile; at
   * depth 15, 49,150. With two processors thieves take some, and each task still counts as
   * completed once.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void aTreeRunInPlaceLeavesNoGQueued(int parallelism) throws Exception {
    GmpExecutor.Builder b = GmpExecutor.builder().parallelism(parallelism);
    if (parallelism == 1) {
      b.maxSpareThreads(0); // no retake hands the queued children to a second thread meanwhile
    }
    GmpExecutor ex = tracked.track(b.build());
    int depth = 9;
    int queued = ex.submit(() -> {
      tree(ex, depth);
      return ex.stats().runnableTasks();
    }).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
    if (parallelism == 1) { // with two, thieves' rings may hold Gs run in place here too
      // Those the ring keeps for thieves (its oldest half since its head last moved) stay until
      // popped: at most two per level of the tree, where before it was half the tree (766).
      assertTrue(queued <= 2 * depth, "children run in place still queued: " + queued);
    }
    long all = (1L << (depth + 1)) - 1; // the tree's nodes, its root the task that built it
    TestSupport.awaitCondition(() -> "completed " + all + ": " + ex.stats(),
        TestSupport.LIVENESS_SECONDS, () -> ex.stats().completedTasks() >= all);
    ex.shutdown();
    assertTrue(ex.awaitTermination(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertEquals(all, ex.stats().completedTasks(), "each task counted once");
  }

  private static int tree(GmpExecutor ex, int depth) throws Exception {
    if (depth == 0) {
      return 1;
    }
    Future<Integer> first = ex.submit(() -> tree(ex, depth - 1));
    Future<Integer> second = ex.submit(() -> tree(ex, depth - 1));
    return second.get() + first.get();
  }

  /** The decorated task running now on this thread (set by the decorator around each run). */
  private static final ThreadLocal<Runnable> DECORATED = new ThreadLocal<>();

  @Test
  void underADecoratorAWaitedTaskStillRunsInsideItsOwnDecoration() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.builder().parallelism(1)
        .taskDecorator(r -> () -> {
          Runnable outer = DECORATED.get();
          DECORATED.set(r);
          try {
            r.run();
          } finally {
            DECORATED.set(outer);
          }
        }).build());
    Object[] seen = new Object[4];
    ex.submit(() -> {
      Future<?>[] child = new Future<?>[2];
      child[0] = ex.submit(() -> {
        seen[0] = DECORATED.get();
      });
      seen[1] = child[0];
      child[0].get();
      child[1] = ex.submit(() -> {
        seen[2] = DECORATED.get();
      });
      seen[3] = child[1];
      child[1].get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS); // timed: in place too
      return null;
    }).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
    // Run in place without its decoration, the child would see its parent's decorated task.
    assertSame(seen[1], seen[0]);
    assertSame(seen[3], seen[2]);
  }

  /**
   * invokeAny from a task needs no other thread: with parallelism 1 and no spare threads it
   * answers, from the newest task run in place, and the tasks it did not need never run (they
   * are cancelled). Before 2026-12-07 it waited on AbstractExecutorService's completion queue,
   * unmarked, for a retake the spare budget of 0 refused: it never returned.
   */
  @Test
  void invokeAnyInsideATaskNeedsNoOtherThread() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.builder().parallelism(1).maxSpareThreads(0).build());
    AtomicIntegerArray runs = new AtomicIntegerArray(3);
    List<Callable<String>> tasks = counted(runs, n -> "task " + n);
    String answer = ex.submit(() -> ex.invokeAny(tasks))
        .get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
    assertEquals("task 2", answer, "the newest, run in place first");
    ex.shutdown();
    assertTrue(ex.awaitTermination(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertEquals("[0, 0, 1]", runs.toString(), "the others were cancelled, never run");
    assertEquals(1, ex.stats().peakThreads(), "one thread: " + ex.stats());
  }

  /**
   * invokeAny from a task when every task fails: each runs once, and the ExecutionException
   * carries a task's failure (AbstractExecutorService's contract); bad input is refused first.
   */
  @Test
  void invokeAnyInsideATaskReportsAFailureWhenNoneSucceeds() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.builder().parallelism(1).maxSpareThreads(0).build());
    AtomicIntegerArray runs = new AtomicIntegerArray(3);
    List<Callable<String>> tasks = counted(runs, n -> {
      throw new IllegalStateException("task " + n);
    });
    Throwable[] seen = new Throwable[3];
    ex.submit(() -> {
      seen[0] = assertThrows(ExecutionException.class, () -> ex.invokeAny(tasks));
      seen[1] = assertThrows(IllegalArgumentException.class, () -> ex.invokeAny(List.of()));
      List<Callable<String>> withNull = new ArrayList<>(tasks);
      withNull.add(null);
      seen[2] = assertThrows(NullPointerException.class, () -> ex.invokeAny(withNull));
      return null;
    }).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
    assertTrue(seen[0].getCause() instanceof IllegalStateException, String.valueOf(seen[0]));
    assertTrue(seen[0].getCause().getMessage().startsWith("task "), seen[0].getCause().toString());
    assertEquals("[1, 1, 1]", runs.toString(), "each failing task ran once; none ran again");
  }

  /** One task per slot of runs: each counts its run there, then answers body's value for it. */
  private static List<Callable<String>> counted(
      AtomicIntegerArray runs, java.util.function.IntFunction<String> body) {
    List<Callable<String>> tasks = new ArrayList<>();
    for (int i = 0; i < runs.length(); i++) {
      int n = i;
      tasks.add(() -> {
        runs.incrementAndGet(n);
        return body.apply(n);
      });
    }
    return tasks;
  }
}
