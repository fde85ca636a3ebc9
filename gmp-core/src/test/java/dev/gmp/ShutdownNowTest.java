package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** shutdownNow returns exactly the accepted tasks that never started: ran + returned == accepted. */
class ShutdownNowTest {
  private static final int MAX_IDS = 4000;

  /** A task with an id, so the returned list can be checked element by element. */
  private static final class IdTask implements Runnable {
    final int id;
    final AtomicIntegerArray ran;

    IdTask(int id, AtomicIntegerArray ran) {
      this.id = id;
      this.ran = ran;
    }

    @Override
    public void run() {
      ran.incrementAndGet(id);
    }
  }

  @Test
  void everyAcceptedTaskRunsOrIsReturnedExactlyOnce() throws Exception {
    Random rnd = new Random(20261129L);
    for (int round = 0; round < 100; round++) {
      runRound(rnd, round);
    }
  }

  private void runRound(Random rnd, int round) throws Exception {
    int parallelism = 1 + rnd.nextInt(2);
    int outside = rnd.nextInt(400);
    int inside = rnd.nextInt(600); // > 257 overflows the ring into the global queue
    boolean racingSubmitter = rnd.nextBoolean();
    String where =
        "round " + round + " (parallelism " + parallelism + ", outside " + outside
            + ", inside " + inside + ", racing " + racingSubmitter + ")";
    AtomicIntegerArray ran = new AtomicIntegerArray(MAX_IDS);
    AtomicInteger nextId = new AtomicInteger();
    AtomicInteger accepted = new AtomicInteger();
    CountDownLatch started = new CountDownLatch(parallelism);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger interrupted = new AtomicInteger();
    // maxSpareThreads 0: sysmon may not take the Ps away from the blocked workers, so queued
    // tasks really sit in the global queue, the runnext slots and the rings.
    GmpExecutor ex =
        GmpExecutor.builder().parallelism(parallelism).maxSpareThreads(0).build();
    try {
      for (int b = 0; b < parallelism; b++) {
        int spawn = b == 0 ? inside : rnd.nextInt(50);
        ex.execute(() -> {
          for (int i = 0; i < spawn; i++) {
            ex.execute(new IdTask(nextId.getAndIncrement(), ran));
            accepted.incrementAndGet();
          }
          started.countDown();
          try {
            release.await();
            // await may return normally when release and the interrupt race: flag still set.
            if (Thread.currentThread().isInterrupted()) {
              interrupted.incrementAndGet();
            }
          } catch (InterruptedException e) {
            interrupted.incrementAndGet();
          }
        });
      }
      TestSupport.await(started, "blockers running on every P, " + where);
      for (int i = 0; i < outside; i++) {
        ex.execute(new IdTask(nextId.getAndIncrement(), ran));
        accepted.incrementAndGet();
      }
      AtomicBoolean stop = new AtomicBoolean();
      Thread racer = null;
      if (racingSubmitter) {
        racer = new Thread(() -> {
          while (!stop.get()) {
            int id = nextId.getAndIncrement();
            if (id >= MAX_IDS) {
              return;
            }
            try {
              ex.execute(new IdTask(id, ran));
              accepted.incrementAndGet();
            } catch (RejectedExecutionException e) {
              return;
            }
          }
        });
        racer.start();
        Thread.yield();
      }
      List<Runnable> returned = ex.shutdownNow();
      stop.set(true);
      if (racer != null) {
        racer.join(TimeUnit.SECONDS.toMillis(LIVENESS_SECONDS));
      }
      release.countDown();
      assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS),
          () -> "terminated, " + where + " " + ex.stats() + BlockingTest.describeMs(ex));
      assertEquals(parallelism, interrupted.get(), "running tasks interrupted, " + where);

      int[] returnedCount = new int[MAX_IDS];
      for (Runnable r : returned) {
        if (!(r instanceof IdTask t)) {
          fail("shutdownNow returned a task that was not submitted as queued work: " + r);
          return;
        }
        returnedCount[t.id]++;
      }
      int ids = Math.min(nextId.get(), MAX_IDS);
      int total = 0;
      for (int id = 0; id < ids; id++) {
        int seen = ran.get(id) + returnedCount[id];
        if (seen > 1) {
          fail("task " + id + " ran " + ran.get(id) + "x and returned " + returnedCount[id]
              + "x, " + where);
        }
        total += seen;
      }
      assertEquals(accepted.get(), total, "ran + returned == accepted, " + where);
      assertEquals(
          accepted.get(), total, "returned " + returned.size() + " of accepted, " + where);
    } finally {
      release.countDown();
      TestSupport.terminate(ex);
    }
  }

  /**
   * shutdownNow halts the processing of waiting tasks: once it has set STOP, an M returns the
   * tasks it takes to the call's list rather than starting them. Only a task an M held through
   * the drain's last pass may still start (one per worker thread, as a racing ThreadPoolExecutor
   * worker may); before, Ms went on starting queued tasks, interrupted, all through the drain
   * (21 to 1,032 of 50,000 at parallelism 2).
   */
  @Test
  void noQueuedTaskStartsWhileShutdownNowDrains() throws Exception {
    for (int round = 0; round < 5; round++) {
      GmpExecutor ex = GmpExecutor.builder().parallelism(2).build();
      try {
        int total = 50_000;
        AtomicInteger ran = new AtomicInteger();
        AtomicInteger startedStopped = new AtomicInteger();
        CountDownLatch someRan = new CountDownLatch(1_000);
        for (int i = 0; i < total; i++) {
          ex.execute(() -> {
            if (Thread.currentThread().isInterrupted()) {
              startedStopped.incrementAndGet(); // started after shutdownNow's STOP
            }
            ran.incrementAndGet();
            someRan.countDown();
            for (long end = System.nanoTime() + 20_000; System.nanoTime() < end; ) {
              Thread.onSpinWait();
            }
          });
        }
        TestSupport.await(someRan, "the first tasks ran");
        List<Runnable> returned = ex.shutdownNow();
        assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
        assertEquals(total, ran.get() + returned.size(), "ran + returned, round " + round);
        int threads = ex.stats().peakThreads();
        assertTrue(
            startedStopped.get() <= threads,
            startedStopped.get() + " tasks started after STOP, with " + threads + " threads");
      } finally {
        TestSupport.terminate(ex);
      }
    }
  }

  /**
   * The same for a task that waits on its child's future: once shutdownNow has set STOP it no
   * longer runs the queued child in place (HelpingFuture), and the drain returns it. The drain
   * takes the global queue first, so a long one holds the child in its ring well after STOP, when
   * the parent, spinning on its only P until the shutdown shows, calls get(); before, the get ran
   * the child there. On a busy machine sysmon may hand a descheduled parent's P on before STOP,
   * and another thread may then run the child (or others): legitimately, so only a run in the
   * parent's thread counts against the fix.
   */
  @Test
  void aWaitingTaskDoesNotRunItsQueuedChildOnceShutdownNowBegan() throws Exception {
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).build();
    try {
      AtomicInteger childRuns = new AtomicInteger();
      AtomicInteger inPlaceRuns = new AtomicInteger();
      CountDownLatch submitted = new CountDownLatch(1);
      CountDownLatch parentDone = new CountDownLatch(1);
      AtomicReference<java.util.concurrent.Future<?>> child = new AtomicReference<>();
      ex.execute(() -> {
        Thread parent = Thread.currentThread();
        try {
          child.set(ex.submit(() -> { // in our P's ring
            childRuns.incrementAndGet();
            if (Thread.currentThread() == parent) {
              inPlaceRuns.incrementAndGet(); // only the parent's get() runs it here
            }
          }));
          submitted.countDown();
          while (!ex.isShutdown()) {
            Thread.onSpinWait(); // on the CPU: keeps the only P
          }
          child.get().get();
        } catch (Exception e) {
          // shutdownNow's interrupt, or the cancel below
        } finally {
          parentDone.countDown();
        }
      });
      TestSupport.await(submitted, "the parent submitted its child");
      AtomicInteger othersRan = new AtomicInteger();
      for (int i = 0; i < 300_000; i++) {
        ex.execute(othersRan::incrementAndGet); // the global queue, drained before the rings
      }
      List<Runnable> returned = ex.shutdownNow();
      boolean childReturned = returned.contains((Runnable) child.get());
      if (childReturned) {
        child.get().cancel(false);
      }
      TestSupport.await(parentDone, "the parent's wait ends");
      assertEquals(0, inPlaceRuns.get(), "run in place after shutdownNow began");
      assertEquals(1, childRuns.get() + (childReturned ? 1 : 0), "run or returned, once");
      assertEquals(300_001, returned.size() + othersRan.get() + childRuns.get());
      assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
    } finally {
      TestSupport.terminate(ex);
    }
  }

  /**
   * A child run in place by its parent's get() takes shutdownNow's interrupt for itself (it
   * computes until Thread.interrupted()), and the parent then waits on a sibling shutdownNow
   * returned: the parent must still see the interrupt, as each ThreadPoolExecutor task does, or it
   * waits for good and the executor never terminates. Before, it did (5 of 5).
   */
  @Test
  void aChildRunInPlaceThatTakesShutdownNowsInterruptLeavesItToItsParent() throws Exception {
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).build();
    try {
      CountDownLatch childRuns = new CountDownLatch(1);
      AtomicReference<Object> secondOutcome = new AtomicReference<>();
      ex.execute(() -> {
        java.util.concurrent.Future<String> second = ex.submit(() -> "second"); // in the ring
        java.util.concurrent.Future<String> first = ex.submit(() -> {
          childRuns.countDown();
          while (!Thread.interrupted()) {
            Thread.onSpinWait(); // stops when interrupted, and clears the flag
          }
          return "first";
        });
        try {
          first.get(); // runs it here: nothing has started it
          secondOutcome.set(second.get());
        } catch (Exception e) {
          secondOutcome.set(e);
        }
      });
      TestSupport.await(childRuns, "the parent runs its first child in place");
      List<Runnable> returned = ex.shutdownNow();
      assertEquals(1, returned.size(), "the second child, never started");
      assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS), "terminated");
      assertTrue(
          secondOutcome.get() instanceof InterruptedException, "parent: " + secondOutcome.get());
    } finally {
      TestSupport.terminate(ex);
    }
  }

  @Test
  void shutdownNowInterruptsTaskAndTaskStartingAfterSeesInterrupt() throws Exception {
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).maxSpareThreads(0).build();
    try {
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch interrupted = new CountDownLatch(1);
      ex.execute(() -> {
        started.countDown();
        try {
          new CountDownLatch(1).await();
        } catch (InterruptedException e) {
          interrupted.countDown();
        }
      });
      TestSupport.await(started, "task started");
      ex.execute(() -> {});
      List<Runnable> returned = ex.shutdownNow();
      assertEquals(1, returned.size());
      TestSupport.await(interrupted, "running task interrupted by shutdownNow");
      assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
      assertTrue(ex.isTerminated());
    } finally {
      TestSupport.terminate(ex);
    }
  }

  /**
   * Timers falling due while shutdownNow runs: each is run or returned, and none starts after
   * shutdownNow returned except the one the M had already taken (as ThreadPoolExecutor's worker
   * may). Before, shutdownNow drained the rings before the heaps, and timers an M moved in
   * between started after it returned: dozens in some rounds.
   */
  @Test
  void aTimerDueDuringShutdownNowIsReturnedRatherThanStartedAfterIt() throws Exception {
    int timers = 3000;
    for (int round = 0; round < 200; round++) {
      GmpExecutor ex = GmpExecutor.builder().parallelism(1).build();
      try {
        AtomicBoolean returnedYet = new AtomicBoolean();
        AtomicInteger ran = new AtomicInteger();
        AtomicInteger startedAfter = new AtomicInteger();
        Runnable task = () -> {
          ran.incrementAndGet();
          if (returnedYet.get()) {
            startedAfter.incrementAndGet();
          }
        };
        // Deadlines over 1 ms, and shutdownNow somewhere in that millisecond: the M is moving
        // due timers from the heap to its ring when shutdownNow drains them.
        long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5);
        for (int i = 0; i < timers; i++) {
          ex.schedule(task, due + (i % 50) * 20_000L - System.nanoTime(), TimeUnit.NANOSECONDS);
        }
        long at = due + (round % 10) * 100_000L;
        while (System.nanoTime() < at) {
          Thread.onSpinWait();
        }
        List<Runnable> returned = ex.shutdownNow();
        returnedYet.set(true);
        assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS), "round " + round);
        assertEquals(timers, ran.get() + returned.size(), "ran + returned, round " + round);
        assertTrue(
            startedAfter.get() <= 1,
            startedAfter.get() + " timers started after shutdownNow returned, round " + round);
      } finally {
        TestSupport.terminate(ex);
      }
    }
  }

  /**
   * Tasks that a full ring moves to the global queue while shutdownNow drains: returned, not
   * started after it. Two tasks submit until rejected, with both processors theirs, so their
   * rings overflow half a ring at a time. Before, an overflow between the drain of the global
   * queue and that of its ring hid 129 tasks from both (13 rounds of 200 in a user's check).
   */
  @Test
  void tasksMovedBetweenQueuesDuringShutdownNowAreReturnedRatherThanStartedAfterIt()
      throws Exception {
    for (int round = 0; round < 100; round++) {
      GmpExecutor ex = GmpExecutor.create(2);
      try {
        AtomicBoolean returnedYet = new AtomicBoolean();
        AtomicInteger accepted = new AtomicInteger();
        AtomicInteger ran = new AtomicInteger();
        AtomicInteger startedAfter = new AtomicInteger();
        CountDownLatch submitting = new CountDownLatch(2);
        Runnable task = () -> {
          ran.incrementAndGet();
          if (returnedYet.get()) {
            startedAfter.incrementAndGet();
          }
        };
        Runnable submitter = () -> {
          submitting.countDown();
          for (; ; ) {
            try {
              ex.execute(task);
            } catch (RejectedExecutionException e) {
              return;
            }
            accepted.incrementAndGet();
          }
        };
        ex.execute(submitter);
        ex.execute(submitter);
        TestSupport.await(submitting, "both submitters running");
        while (accepted.get() < 2_000) {
          Thread.onSpinWait();
        }
        List<Runnable> returned = ex.shutdownNow();
        returnedYet.set(true);
        assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS), "round " + round);
        // the submitters (2) ran; each task ran or was returned
        assertEquals(accepted.get() + 2, ran.get() + 2 + returned.size(), "round " + round);
        assertTrue(
            startedAfter.get() <= 2, // one taken by each M before the drain, as TPE's workers
            startedAfter.get() + " tasks started after shutdownNow returned, round " + round);
      } finally {
        TestSupport.terminate(ex);
      }
    }
  }

  /**
   * Outside submitters racing shutdownNow: a submitter that claimed an injection slot and had not
   * stored its task yet stopped the drain there, and every task queued behind it (thousands) was
   * neither returned nor started before shutdownNow returned; they all started after it. Allowed
   * after it returns: one task per worker thread (taken before the drain) and one per submitter
   * (a submission racing the shutdown, which a worker took before the submitter could withdraw
   * it, as ThreadPoolExecutor runs one).
   */
  @Test
  void outsideSubmissionsQueuedDuringShutdownNowAreReturnedRatherThanStartedAfterIt()
      throws Exception {
    int submitters = 8;
    for (int round = 0; round < 60; round++) {
      GmpExecutor ex = GmpExecutor.create(2);
      AtomicBoolean returnedYet = new AtomicBoolean();
      AtomicInteger accepted = new AtomicInteger();
      AtomicInteger ran = new AtomicInteger();
      AtomicInteger startedAfter = new AtomicInteger();
      Runnable task = () -> {
        ran.incrementAndGet();
        if (returnedYet.get()) {
          startedAfter.incrementAndGet();
        }
      };
      Thread[] threads = new Thread[submitters];
      for (int i = 0; i < submitters; i++) {
        threads[i] = new Thread(() -> {
          for (; ; ) {
            try {
              ex.execute(task);
            } catch (RejectedExecutionException e) {
              return;
            }
            accepted.incrementAndGet();
          }
        });
        threads[i].start();
      }
      try {
        while (accepted.get() < 20_000) {
          Thread.onSpinWait();
        }
        List<Runnable> returned = ex.shutdownNow();
        returnedYet.set(true);
        for (Thread t : threads) {
          t.join();
        }
        assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS), "round " + round);
        assertEquals(accepted.get(), ran.get() + returned.size(), "round " + round);
        assertTrue(
            startedAfter.get() <= 2 + submitters,
            startedAfter.get() + " tasks started after shutdownNow returned, round " + round);
      } finally {
        TestSupport.terminate(ex);
      }
    }
  }

  /**
   * shutdownNow called at the very end of the caller's stack, a small frame higher each time until
   * it returns (TestSupport#atTheEndOfTheStack): the executor ends whole. Before, the JDK's StackOverflowError out of the scheduler
   * lock's acquisition left the lock held, and the workers, sysmon and the next shutdownNow
   * waited on it for good.
   */
  @Test
  void shutdownNowAtTheEndOfTheStackLeavesTheExecutorWhole() throws Exception {
    GmpExecutor ex = GmpExecutor.create(2);
    AtomicInteger ran = new AtomicInteger();
    for (int i = 0; i < 300; i++) {
      ex.execute(ran::incrementAndGet);
    }
    List<Runnable> returned = TestSupport.atTheEndOfTheStack(ex::shutdownNow);
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS), ex.toString());
    assertEquals(300, ran.get() + returned.size());
  }

  /**
   * The tasks shutdownNow returns are the caller's to run, as ThreadPoolExecutor's: running a
   * returned future runs its task and completes it, with or without a task decorator (the
   * decorated ones are FutureTasks). Before, a returned future's run did nothing and its get()
   * waited for good.
   */
  @Test
  void aReturnedFutureRunByTheCallerRunsAndCompletes() throws Exception {
    for (boolean decorated : new boolean[] {false, true}) {
      GmpExecutor.Builder b = GmpExecutor.builder().parallelism(1).maxSpareThreads(0);
      GmpExecutor ex = decorated ? b.taskDecorator(r -> r).build() : b.build();
      try {
        CountDownLatch running = new CountDownLatch(1);
        ex.execute(() -> { // keeps the only P on the CPU until shutdownNow's interrupt
          running.countDown();
          while (!Thread.currentThread().isInterrupted()) {
            Thread.onSpinWait();
          }
        });
        TestSupport.await(running, "the occupying task runs");
        AtomicInteger ran = new AtomicInteger();
        List<java.util.concurrent.Future<Integer>> futures = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
          int v = i;
          futures.add(ex.submit(() -> {
            ran.incrementAndGet();
            return v;
          }));
        }
        List<Runnable> returned = ex.shutdownNow();
        assertEquals(5, returned.size(), "decorated " + decorated + ": " + returned);
        assertEquals(0, ran.get(), "nothing ran before the caller runs them");
        for (Runnable r : returned) {
          r.run();
          r.run(); // a second run does nothing: each task runs once
        }
        for (int i = 0; i < 5; i++) {
          assertEquals(i, futures.get(i).get(LIVENESS_SECONDS, TimeUnit.SECONDS));
        }
        assertEquals(5, ran.get(), "decorated " + decorated);
        assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
      } finally {
        TestSupport.terminate(ex);
      }
    }
  }

  /**
   * A task that waits on a child's future after shutdownNow returned that child as never
   * started: the wait must not run the child in place (HelpingFuture), or it would have run and
   * been returned. The parent spins instead of blocking so that its P is never handed on (no
   * other thread may run the child), and ignores shutdownNow's interrupt until it calls get().
   */
  @Test
  void aTaskReturnedByShutdownNowIsNotRunByAWaitingParent() throws Exception {
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).maxSpareThreads(0).build();
    try {
      AtomicInteger childRuns = new AtomicInteger();
      AtomicBoolean returnedYet = new AtomicBoolean();
      CountDownLatch submitted = new CountDownLatch(1);
      CountDownLatch parentDone = new CountDownLatch(1);
      AtomicReference<java.util.concurrent.Future<?>> child = new AtomicReference<>();
      AtomicReference<Throwable> getOutcome = new AtomicReference<>();
      AtomicReference<Thread> parent = new AtomicReference<>();
      ex.execute(() -> {
        parent.set(Thread.currentThread());
        child.set(ex.submit(childRuns::incrementAndGet)); // queued on our only P
        submitted.countDown();
        while (!returnedYet.get()) {
          Thread.onSpinWait(); // on the CPU: keeps the P, so no thread can start the child
        }
        try {
          child.get().get();
        } catch (Throwable e) {
          getOutcome.set(e); // the interrupt, or the cancel below
        } finally {
          parentDone.countDown();
        }
      });
      TestSupport.await(submitted, "the parent submitted its child");
      List<Runnable> returned = ex.shutdownNow();
      returnedYet.set(true);
      boolean childReturned = returned.contains((Runnable) child.get());
      // Cancel only once the parent's get has either ended or parked waiting for the child.
      TestSupport.awaitCondition("the parent's get ran or waits", () -> parentDone.getCount() == 0
          || parent.get().getState() == Thread.State.WAITING);
      if (childReturned) {
        child.get().cancel(false); // what a caller of shutdownNow does with returned futures
      }
      TestSupport.await(parentDone, "the parent's wait ends");
      assertTrue(childReturned, "the child had not started: " + returned);
      assertEquals(0, childRuns.get(), "returned by shutdownNow, so never run (" + getOutcome + ")");
      assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
    } finally {
      TestSupport.terminate(ex);
    }
  }

  /**
   * The other order: a parent runs its queued child in place (HelpingFuture) and shutdownNow
   * comes while the child runs there. The child's G is still queued, but the child has started,
   * so it must not be returned.
   */
  @Test
  void aTaskRunInPlaceByItsWaiterIsNotReturnedByShutdownNow() throws Exception {
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).maxSpareThreads(0).build();
    try {
      AtomicInteger childRuns = new AtomicInteger();
      AtomicBoolean returnedYet = new AtomicBoolean();
      CountDownLatch inChild = new CountDownLatch(1);
      CountDownLatch parentDone = new CountDownLatch(1);
      AtomicReference<java.util.concurrent.Future<?>> child = new AtomicReference<>();
      ex.execute(() -> {
        try {
          child.set(ex.submit(() -> {
            inChild.countDown();
            while (!returnedYet.get()) {
              Thread.onSpinWait(); // on the CPU, in the parent's thread: no P is handed on
            }
            childRuns.incrementAndGet();
          }));
          child.get().get(); // not started by anyone: runs it here
        } catch (Exception e) {
          // shutdownNow's interrupt once the child is done: nothing to check here
        } finally {
          parentDone.countDown();
        }
      });
      TestSupport.await(inChild, "the parent runs its child in place");
      List<Runnable> returned = ex.shutdownNow();
      returnedYet.set(true);
      TestSupport.await(parentDone, "the parent's wait ends");
      assertEquals(1, childRuns.get());
      assertTrue(!returned.contains((Runnable) child.get()), "started, yet returned: " + returned);
      assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
    } finally {
      TestSupport.terminate(ex);
    }
  }
}
