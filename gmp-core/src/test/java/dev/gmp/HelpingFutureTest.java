package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The future submit hands out is gmp's own (it is also the task's G): the answers FutureTask
 * gives, in each state and from each side, and the cases a G that is also a future adds (queued
 * once, never recycled, a future of another executor).
 */
class HelpingFutureTest {
  @RegisterExtension final TrackedExecutors tracked = new TrackedExecutors();

  private GmpExecutor one() {
    return tracked.track(GmpExecutor.builder().parallelism(1).build());
  }

  /**
   * Occupies the only P of {@code ex} until {@code release} opens; returns once it runs. The
   * occupier spins: a task parked on the latch is off the CPU, and once work is queued behind it
   * the block detector hands its P on, so the queued task could run before the test looks.
   */
  private static void occupy(GmpExecutor ex, CountDownLatch release) {
    CountDownLatch running = new CountDownLatch(1);
    ex.execute(() -> {
      running.countDown();
      while (release.getCount() != 0 && !Thread.currentThread().isInterrupted()) {
        Thread.onSpinWait();
      }
    });
    TestSupport.await(running, "the occupying task runs");
  }

  /** Waits until every task queued on {@code ex} before this call has been taken and run. */
  private static void drain(GmpExecutor ex) throws Exception {
    ex.submit(() -> {}).get(LIVENESS_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void eachSubmitReturnsItsResult() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.create(2));
    Future<?> plain = ex.submit(() -> {});
    Future<String> given = ex.submit(() -> {}, "given");
    Future<Integer> called = ex.submit(() -> 42);
    assertNull(plain.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertEquals("given", given.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertEquals(42, called.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertEquals(Future.State.SUCCESS, called.state());
    assertEquals(42, called.resultNow());
    assertThrows(IllegalStateException.class, called::exceptionNow);
    assertTrue(called.isDone());
    assertFalse(called.isCancelled());
    assertFalse(called.cancel(true), "a finished future cannot be cancelled");
    assertTrue(called.toString().contains("[Completed normally]"), called.toString());
  }

  @Test
  void aThrowingTaskFailsItsFutureWithTheSameThrowable() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.create(2));
    IllegalStateException boom = new IllegalStateException("boom");
    Future<Object> f = ex.submit(() -> {
      throw boom;
    });
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> f.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertSame(boom, e.getCause());
    assertSame(boom, assertThrows(ExecutionException.class, f::get).getCause());
    assertEquals(Future.State.FAILED, f.state());
    assertSame(boom, f.exceptionNow());
    assertThrows(IllegalStateException.class, f::resultNow);
    assertTrue(f.toString().contains("Completed exceptionally"), f.toString());
  }

  /** A task that is both: submit(Runnable) must run it, submit(Callable) call it. */
  private static final class RunnableCallable implements Runnable, Callable<String> {
    volatile String how;

    @Override
    public void run() {
      how = "run";
    }

    @Override
    public String call() {
      how = "call";
      return "called";
    }
  }

  @Test
  void aRunnableThatIsAlsoACallableIsRunAsSubmitted() throws Exception {
    // The future keeps one field for the task and its outcome and calls any Callable it holds,
    // so such a Runnable (or one with a value) is wrapped; a bare one would be called instead.
    GmpExecutor ex = tracked.track(GmpExecutor.create(2));
    RunnableCallable plain = new RunnableCallable();
    assertNull(ex.submit((Runnable) plain).get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertEquals("run", plain.how);
    RunnableCallable valued = new RunnableCallable();
    assertEquals("v", ex.submit((Runnable) valued, "v").get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertEquals("run", valued.how);
    RunnableCallable called = new RunnableCallable();
    assertEquals(
        "called", ex.submit((Callable<String>) called).get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertEquals("call", called.how);
    // The wrapper is invisible: a pending future names the submitted task.
    GmpExecutor busy = one();
    CountDownLatch release = new CountDownLatch(1);
    occupy(busy, release);
    Future<Integer> pending = busy.submit(plain, 7);
    assertTrue(pending.toString().contains("task = " + plain), pending.toString());
    release.countDown();
    assertEquals(7, pending.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
  }

  @Test
  void aTaskOfAnotherExecutorWaitsButNeverRunsTheFutureInPlace() throws Exception {
    GmpExecutor home = one();
    GmpExecutor other = one();
    CountDownLatch release = new CountDownLatch(1);
    occupy(home, release); // home's only P is busy: the future stays queued there
    Future<Thread> f = home.submit(Thread::currentThread);
    AtomicReference<Thread> waiter = new AtomicReference<>();
    Future<Thread> got = other.submit(() -> {
      waiter.set(Thread.currentThread());
      return f.get(); // a task, but of another executor: it waits (a declared call)
    });
    TestSupport.awaitCondition(
        "the other executor's task waits in get",
        () -> waiter.get() != null && isWaiting(waiter.get()));
    assertFalse(f.isDone(), "not run in the other executor's task");
    release.countDown();
    Thread ranOn = got.get(LIVENESS_SECONDS, TimeUnit.SECONDS);
    assertTrue(ranOn != waiter.get(), "ran on " + ranOn);
  }

  @Test
  void aFutureCancelledWhileQueuedNeverRuns() throws Exception {
    GmpExecutor ex = one();
    CountDownLatch release = new CountDownLatch(1);
    occupy(ex, release);
    AtomicInteger runs = new AtomicInteger();
    Future<?> f = ex.submit(runs::incrementAndGet);
    assertEquals(Future.State.RUNNING, f.state());
    assertThrows(IllegalStateException.class, f::resultNow);
    assertTrue(f.toString().contains("Not completed"), f.toString());
    assertTrue(f.cancel(false));
    assertFalse(f.cancel(false), "cancelled once");
    release.countDown();
    drain(ex); // f's G is taken after the occupier and finds the future cancelled
    assertEquals(0, runs.get());
    assertTrue(f.isCancelled());
    assertTrue(f.isDone());
    assertEquals(Future.State.CANCELLED, f.state());
    assertThrows(CancellationException.class, f::get);
    assertThrows(CancellationException.class, () -> f.get(1, TimeUnit.SECONDS));
    assertTrue(f.toString().contains("[Cancelled]"), f.toString());
  }

  @Test
  void cancelWithInterruptInterruptsTheRunningTaskOnly() throws Exception {
    GmpExecutor ex = one();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    Future<?> f = ex.submit(() -> {
      started.countDown();
      try {
        new CountDownLatch(1).await(); // until interrupted
      } catch (InterruptedException e) {
        interrupted.countDown();
      }
    });
    TestSupport.await(started, "the task runs");
    assertTrue(f.cancel(true));
    TestSupport.await(interrupted, "cancel(true) interrupts the running task");
    assertThrows(CancellationException.class, f::get);
    // The interrupt was the cancelled task's alone: the next task on that thread starts clean.
    Future<Boolean> next = ex.submit(() -> Thread.currentThread().isInterrupted());
    assertFalse(next.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
  }

  @Test
  void aTimedGetTimesOutAndALaterGetHasTheResult() throws Exception {
    GmpExecutor ex = one();
    CountDownLatch release = new CountDownLatch(1);
    Future<String> f = ex.submit(() -> {
      release.await();
      return "late";
    });
    assertThrows(TimeoutException.class, () -> f.get(20, TimeUnit.MILLISECONDS));
    assertThrows(TimeoutException.class, () -> f.get(0, TimeUnit.NANOSECONDS));
    assertThrows(NullPointerException.class, () -> f.get(1, null));
    release.countDown();
    assertEquals("late", f.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
  }

  /**
   * A finished future that nobody holds is collectable with its result, whether it was submitted
   * from outside (it reached a P's ring in a batch from the global queue) or from a task (runnext,
   * the ring, a thief's ring), and the thread that ran it is not kept by a future that is. The
   * future is its own G: the run queues' slots kept it after its run, up to 258 per P, and with it
   * its result; the executor ran out of memory where ForkJoinPool stays flat.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void aFinishedFutureNobodyHoldsIsCollectedWithItsResult(int parallelism) throws Exception {
    List<WeakReference<Object>> results = new ArrayList<>();
    Future<WeakReference<Thread>> kept = runThenTerminate(parallelism, results);
    WeakReference<Thread> ranOn = kept.get();
    TestSupport.awaitCondition("the thread that ran a kept future is collectable", LIVENESS_SECONDS,
        () -> {
          System.gc();
          return ranOn.get() == null;
        });
  }

  /**
   * Collects 16 results (weakly) of futures submitted from outside and from a task, checks that
   * they are unreachable while the executor lives, then terminates it; returns a future that ran
   * on one of its threads, which the caller keeps and the executor does not.
   */
  private static Future<WeakReference<Thread>> runThenTerminate(
      int parallelism, List<WeakReference<Object>> results) throws Exception {
    GmpExecutor ex = GmpExecutor.create(parallelism);
    try {
      for (int i = 0; i < 8; i++) {
        results.add(new WeakReference<>(ex.submit(Object::new).get()));
      }
      results.addAll(ex.submit(() -> {
        List<Future<Object>> fs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
          fs.add(ex.submit(Object::new));
        }
        List<WeakReference<Object>> inside = new ArrayList<>();
        for (Future<Object> f : fs) {
          inside.add(new WeakReference<>(f.get()));
        }
        return inside;
      }).get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      // While the executor lives (it is reachable from here): its queues must not keep them.
      TestSupport.awaitCondition(
          () -> results.stream().filter(r -> r.get() != null).count() + " results reachable",
          LIVENESS_SECONDS,
          () -> {
            System.gc();
            return results.stream().allMatch(r -> r.get() == null);
          });
      Future<WeakReference<Thread>> kept =
          ex.submit(() -> new WeakReference<>(Thread.currentThread()));
      kept.get(LIVENESS_SECONDS, TimeUnit.SECONDS);
      return kept;
    } finally {
      TestSupport.terminate(ex);
    }
  }

  /**
   * The most negative timeouts time out at once, as FutureTask's do, from outside and from a
   * task: a deadline of now + Long.MIN_VALUE ns wrapped to the far future, and get waited for the
   * task's end.
   */
  @Test
  void theMostNegativeTimeoutsTimeOutAtOnce() throws Exception {
    GmpExecutor ex = one();
    GmpExecutor waiter = one();
    CountDownLatch release = new CountDownLatch(1);
    try {
      Future<String> f = ex.submit(() -> {
        release.await();
        return "late";
      });
      for (long t : new long[] {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1}) {
        assertThrows(TimeoutException.class, () -> f.get(t, TimeUnit.NANOSECONDS), "" + t);
        assertThrows(TimeoutException.class, () -> f.get(t, TimeUnit.DAYS), "" + t);
      }
      Future<Class<?>> fromTask = waiter.submit(() -> {
        try {
          f.get(Long.MIN_VALUE, TimeUnit.NANOSECONDS);
          return null;
        } catch (TimeoutException expected) {
          return expected.getClass();
        }
      });
      // Before the fix this get waited for the release, which comes only after it.
      assertEquals(TimeoutException.class, fromTask.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    } finally {
      release.countDown();
    }
  }

  @Test
  void everyWaiterWakesAndAnInterruptedOneLeavesTheOthers() throws Exception {
    GmpExecutor ex = one();
    CountDownLatch release = new CountDownLatch(1);
    Future<String> f = ex.submit(() -> {
      release.await();
      return "done";
    });
    int n = 4;
    List<Thread> waiters = new ArrayList<>();
    AtomicInteger got = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch interruptedOne = new CountDownLatch(1);
    for (int i = 0; i <= n; i++) {
      boolean victim = i == n;
      Thread t = new Thread(() -> {
        try {
          if ("done".equals(f.get())) {
            got.incrementAndGet();
          }
        } catch (InterruptedException e) {
          if (victim) {
            interruptedOne.countDown();
          }
        } catch (Throwable e) {
          failure.set(e);
        }
      });
      t.start();
      waiters.add(t);
    }
    Thread victim = waiters.get(n);
    TestSupport.awaitCondition("the last waiter blocks in get", () -> isWaiting(victim));
    victim.interrupt();
    TestSupport.await(interruptedOne, "the interrupted waiter leaves with InterruptedException");
    assertFalse(f.isDone(), "a waiter's interrupt does not touch the future");
    release.countDown();
    for (Thread t : waiters) {
      t.join(TimeUnit.SECONDS.toMillis(LIVENESS_SECONDS));
    }
    assertNull(failure.get());
    assertEquals(n, got.get(), "every other waiter has the result");
  }

  private static boolean isWaiting(Thread t) {
    Thread.State s = t.getState();
    return s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING;
  }

  @Test
  void aFutureExecutedAgainRunsOnceAndIsQueuedInItsOwnGOnce() throws Exception {
    GmpExecutor ex = one();
    CountDownLatch release = new CountDownLatch(1);
    occupy(ex, release);
    AtomicInteger runs = new AtomicInteger();
    Future<?> f = ex.submit(runs::incrementAndGet);
    HelpingFuture<?> hf = (HelpingFuture<?>) f;
    assertFalse(hf.claimQueue(ex.sched), "submit queued the future as its own G");
    ex.execute((Runnable) f); // legal: a second G wraps it, and its run finds the task claimed
    release.countDown();
    drain(ex);
    f.get(LIVENESS_SECONDS, TimeUnit.SECONDS);
    assertEquals(1, runs.get());
  }

  @Test
  void invokeAllQueuesEachFutureAsItsOwnG() throws Exception {
    GmpExecutor ex = one();
    List<Callable<Object>> tasks = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      tasks.add(() -> ThreadTable.currentM().curg()); // the G this task runs in
    }
    List<Future<Object>> fs = ex.invokeAll(tasks);
    for (Future<Object> f : fs) {
      assertSame(f, f.get(), "the future ran as its own G, not in a wrapper");
    }
  }

  @Test
  void executeOfAnUnqueuedFutureWrapsItLikeAnyRunnable() throws Exception {
    // execute makes no type test of its task (a test C2 would compile as a guess at the task's
    // class): only invokeAll queues a future as its own G.
    GmpExecutor ex = one();
    HelpingFuture<String> f = new HelpingFuture<>(ex.sched, () -> "ran", false);
    ex.execute(f);
    assertEquals("ran", f.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertEquals(G.Gnew, f.statusOpaque(), "its own G stayed unqueued: it ran in a wrapper G");
  }

  @Test
  void aFutureOfAnotherExecutorRunsHereAsAnyRunnable() throws Exception {
    GmpExecutor home = one();
    GmpExecutor other = tracked.track(GmpExecutor.create(2));
    HelpingFuture<String> f = new HelpingFuture<>(home.sched, () -> "ran elsewhere", false);
    assertFalse(f.claimQueue(other.sched), "another executor's G is not queued here");
    other.execute(f);
    assertEquals("ran elsewhere", f.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    // It ran in a G of the other executor's own: its G was never queued (still Gnew). A run
    // claims the future for good, so home's execute would now wrap it too (its run a no-op).
    assertEquals(G.Gnew, f.statusOpaque(), "its own G stayed unqueued");
    assertFalse(f.claimQueue(home.sched), "a future that ran is not queued as its own G");
  }

  @Test
  void aFinishedFutureIsNeverReusedAsAnotherTasksG() throws Exception {
    GmpExecutor ex = one();
    AtomicInteger reused = new AtomicInteger();
    AtomicInteger plain = new AtomicInteger();
    Runnable check = () -> {
      plain.incrementAndGet();
      if (ThreadTable.currentM().curg() instanceof HelpingFuture) {
        reused.incrementAndGet();
      }
    };
    List<Future<Integer>> futures = new ArrayList<>();
    for (int round = 0; round < 20; round++) {
      int base = round * 10;
      // Spawned from a task: the M runs the futures' Gs after it, and a finished G goes to the
      // P's free list, from which the next round's plain spawns take theirs.
      futures.addAll(ex.submit(() -> {
        List<Future<Integer>> batch = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
          int v = base + i;
          batch.add(ex.submit(() -> v));
          ex.execute(check);
        }
        return batch;
      }).get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      drain(ex);
    }
    assertEquals(200, plain.get());
    assertEquals(0, reused.get(), "a plain task ran in a finished future's G");
    for (int i = 0; i < futures.size(); i++) {
      assertEquals(i, futures.get(i).resultNow());
    }
  }

  /**
   * A task waits on its child's future and runs the child in place; another thread cancels the
   * child with an interrupt while it runs. The interrupt was the child's: the waiting task gets
   * its CancellationException and goes on uninterrupted (before, its next sleep threw).
   */
  @Test
  void aCancelInterruptOfAChildRunInPlaceDoesNotReachTheWaitingTask() throws Exception {
    GmpExecutor ex = one();
    CountDownLatch childRuns = new CountDownLatch(1);
    AtomicReference<Future<?>> child = new AtomicReference<>();
    AtomicReference<Thread> childThread = new AtomicReference<>();
    Future<Boolean> parent = ex.submit(() -> {
      Future<?> c = ex.submit(() -> {
        childThread.set(Thread.currentThread());
        childRuns.countDown();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIVENESS_SECONDS);
        while (!Thread.currentThread().isInterrupted() && System.nanoTime() < end) {
          Thread.onSpinWait(); // until the cancel's interrupt arrives
        }
      });
      child.set(c);
      assertThrows(CancellationException.class, c::get);
      assertSame(Thread.currentThread(), childThread.get(), "the child ran in place");
      return Thread.currentThread().isInterrupted();
    });
    TestSupport.await(childRuns, "the child runs in the parent's place");
    assertTrue(child.get().cancel(true));
    assertFalse(parent.get(LIVENESS_SECONDS, TimeUnit.SECONDS), "the parent is not interrupted");
  }

  /**
   * A task interrupted before it waits on its child's future gets an InterruptedException, as
   * from FutureTask's get, rather than run the child in place with its own interrupt set.
   */
  @Test
  void anInterruptedWaiterGetsInterruptedExceptionAndDoesNotRunTheChild() throws Exception {
    GmpExecutor ex = one();
    CountDownLatch childRan = new CountDownLatch(1);
    Future<Boolean> parent = ex.submit(() -> {
      Future<?> c = ex.submit(childRan::countDown);
      Thread.currentThread().interrupt();
      assertThrows(InterruptedException.class, c::get);
      assertFalse(Thread.currentThread().isInterrupted(), "cleared, as FutureTask's get does");
      return childRan.getCount() == 0;
    });
    assertFalse(parent.get(LIVENESS_SECONDS, TimeUnit.SECONDS), "the child did not run in place");
    TestSupport.await(childRan, "the child runs once the parent is done");
  }

  /**
   * A task that waits on a queued task of its own executor at the very end of its stack: the
   * future ends whole, with the task run once, or failed by a StackOverflowError of the task's own
   * (it runs in place on the waiter's stack), never run twice. Before 2026-12-02 the in-place run
   * claimed the task with no room left: the task's StackOverflowError was caught, then the call
   * that records the outcome overflowed too, and the future stayed COMPLETING, done for isDone()
   * while get() and state() spun for good, from every thread.
   */
  @Test
  void aWaitAtTheEndOfTheStackLeavesTheAwaitedFutureWhole() throws Exception {
    for (int trial = 0; trial < 3; trial++) {
      GmpExecutor ex = one();
      AtomicInteger runs = new AtomicInteger();
      AtomicReference<Future<Integer>> awaited = new AtomicReference<>();
      Future<Object> waiter = ex.submit(() -> {
        Future<Integer> b = ex.submit(() -> runs.incrementAndGet()); // queued: we hold the P
        awaited.set(b);
        try {
          TestSupport.atTheEndOfTheStack(b::get);
        } catch (ExecutionException | InterruptedException e) {
          // the wait ended: the future's state is what the test checks
        }
        return null;
      });
      waiter.get(LIVENESS_SECONDS, TimeUnit.SECONDS);
      Future<Integer> b = awaited.get();
      Future.State end = stateWithin(b);
      if (end == Future.State.FAILED) {
        assertTrue(b.exceptionNow() instanceof StackOverflowError, "trial " + trial);
        assertTrue(runs.get() <= 1, "trial " + trial + ": ran " + runs.get() + " times");
      } else {
        assertEquals(Future.State.SUCCESS, end, "trial " + trial);
        assertEquals(1, runs.get(), "trial " + trial);
      }
    }
  }

  /**
   * A task runs its queued children in place from every depth of its stack down to the end, each
   * child's future with a latch (as when another thread waits on it too), so that the end of each
   * run probes for the waiters' wake-up: at some depths the child runs and its end overflows, and
   * is left to the waiting task's thread (HelpingFuture#runInPlace). That thread ends them at its
   * next wait on a future, at its next blocking call, or, waiting on none, in its M's loop once the
   * task returns; every future ends with its task's outcome, the task run at most once (a
   * StackOverflowError when the task itself overflowed).
   */
  @ParameterizedTest
  @ValueSource(strings = {"a wait", "a blocking call", "the M's loop"})
  void runsInPlaceWhoseEndOverflowsAreEndedByTheirThread(String endedBy) throws Exception {
    // No spare thread: no retake may hand the processor, and the queued children, to another
    // thread while the waiter takes its time over 20,000 of them.
    GmpExecutor ex = tracked.track(GmpExecutor.builder().parallelism(1).maxSpareThreads(0)
        .threadFactory(r -> new Thread(null, r, "small-stack", 256 * 1024)).build());
    int n = 20_000; // more futures than frames of the dive below fit a 256 KB stack
    // Plain counts (one processor; the futures' ends publish them): a task of one small frame,
    // so that many depths fit the task but not the probe before its end's wake-up.
    int[] runs = new int[n];
    Integer one = 1;
    List<HelpingFuture<Integer>> fs = new ArrayList<>(n);
    AtomicReference<M> waiterM = new AtomicReference<>();
    Future<Object> waiter = ex.submit(() -> {
      for (int i = 0; i < n; i++) {
        int k = i;
        HelpingFuture<Integer> f = (HelpingFuture<Integer>) ex.submit(() -> {
          runs[k]++;
          return one;
        });
        f.latchToWaitOn(); // as a waiter on another thread would: the run's end probes
        fs.add(f);
      }
      InPlaceDive dive = new InPlaceDive(fs);
      dive.dive();
      M m = ThreadTable.currentM();
      waiterM.set(m);
      assertTrue(m.unendedRuns > 0,
          "no run's end overflowed (" + dive.next + " futures reached): " + ex.stats());
      switch (endedBy) {
        case "a wait" -> {
          Future<Object> queued = ex.submit(() -> null);
          assertThrows(TimeoutException.class, () -> queued.get(0, TimeUnit.NANOSECONDS));
          assertEquals(0, m.unendedRuns, "left after a wait");
        }
        case "a blocking call" -> {
          GmpExecutor.blocking(() -> null);
          assertEquals(0, m.unendedRuns, "left after a blocking call");
        }
        default -> { } // the M's loop, after this returns
      }
      return null;
    });
    waiter.get(LIVENESS_SECONDS, TimeUnit.SECONDS);
    ex.submit(() -> null).get(LIVENESS_SECONDS, TimeUnit.SECONDS); // the only P: after the loop's
    assertEquals(0, waiterM.get().unendedRuns, "left after the task returned");
    for (int k = 0; k < n; k++) {
      try {
        assertEquals(1, fs.get(k).get(LIVENESS_SECONDS, TimeUnit.SECONDS), "future " + k);
        assertEquals(1, runs[k], "future " + k);
      } catch (ExecutionException e) {
        assertTrue(e.getCause() instanceof StackOverflowError, "future " + k + ": " + e);
        assertTrue(runs[k] <= 1, "future " + k + " ran " + runs[k] + " times");
      }
    }
  }

  /** Waits on one future from each frame of a recursion to the end of the stack, way back up. */
  private static final class InPlaceDive {
    final List<HelpingFuture<Integer>> fs;
    int next;

    InPlaceDive(List<HelpingFuture<Integer>> fs) {
      this.fs = fs;
    }

    void dive() {
      try {
        dive();
      } catch (StackOverflowError bottom) {
        // the end: wait from here up
      }
      int k = next++;
      if (k < fs.size()) {
        try {
          fs.get(k).get();
        } catch (StackOverflowError | ExecutionException | InterruptedException e) {
          // too deep for this wait, or the task's own failure: checked once back up
        }
      }
    }
  }

  /**
   * The caller's run of a task shutdownNow returned, at the very end of the caller's stack: a
   * StackOverflowError before the task is claimed, so a later run still runs it, once.
   */
  @Test
  void aReturnedTaskRunAtTheEndOfTheStackIsNotLeftClaimed() throws Exception {
    GmpExecutor ex = one();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ex.execute(() -> {
      started.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        // shutdownNow's
      }
    });
    TestSupport.await(started, "the first task holds the processor");
    AtomicInteger runs = new AtomicInteger();
    Future<Integer> f = ex.submit(() -> runs.incrementAndGet());
    List<Runnable> returned = ex.shutdownNow();
    assertEquals(List.of(f), returned);
    Runnable task = returned.get(0);
    TestSupport.atTheEndOfTheStack(() -> {
      task.run();
      return null;
    });
    assertEquals(Future.State.SUCCESS, stateWithin(f));
    assertEquals(1, runs.get());
    release.countDown();
  }

  /** f.state() from another thread, within the liveness bound: a future left mid-end spins. */
  private static Future.State stateWithin(Future<?> f) throws Exception {
    FutureTask<Future.State> read = new FutureTask<>(f::state);
    Thread t = new Thread(read, "state-reader");
    t.setDaemon(true);
    t.start();
    try {
      return read.get(LIVENESS_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("state() did not return: the future was left mid-end (" + f + ")");
    }
  }
}
