package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static dev.gmp.TestSupport.await;
import static dev.gmp.TestSupport.awaitCondition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Issue 3: blocking calls, marked or not, must not take a processor out of service. */
class BlockingTest {
  @RegisterExtension final TrackedExecutors tracked = new TrackedExecutors();

  private static void assertOthersRun(GmpExecutor ex, int n, String why) {
    CountDownLatch others = new CountDownLatch(n);
    for (int i = 0; i < n; i++) {
      ex.execute(others::countDown);
    }
    await(others, why + ": " + ex.stats());
  }

  /** The Ms' own view, for failure messages: which M still counts as spare, holding what. */
  static String describeMs(GmpExecutor ex) {
    StringBuilder b = new StringBuilder();
    for (M m : ex.sched.threads.ms()) {
      G g = m.curg(); // read once: the M may finish its task between two reads
      b.append(' ').append(m).append("{spare=").append(m.spare()).append(", p=").append(m.p)
          .append(", curg=").append(g == null ? null : G.statusName(g.status()))
          .append('}');
    }
    return b.toString();
  }

  /**
   * A marked call that returns to find its P in another M's hands finishes its task P-less, as a
   * spare, instead of queueing for the P. Parallelism 1: task A's
   * call loses the P to task B, which then waits for A to get past its call. With the old way A
   * waits for the P B holds, and only sysmon's second retake (B hogs while A's G waits) ends it:
   * two retakes. Here one: the hand-off of A's call.
   */
  @Test
  void aCallThatReturnsToNoProcessorFinishesItsTaskWithoutWaitingForOne() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.builder().parallelism(1).build());
    CountDownLatch bStarted = new CountDownLatch(1);
    AtomicBoolean aPastCall = new AtomicBoolean();
    CountDownLatch both = new CountDownLatch(2);
    ex.execute(() -> {
      try {
        GmpExecutor.blocking(() -> {
          ex.execute(() -> { // B: queued while A blocks, so sysmon hands the P to it
            bStarted.countDown();
            while (!aPastCall.get()) {
              Thread.onSpinWait();
            }
            both.countDown();
          });
          bStarted.await();
          return null;
        });
      } catch (Exception e) {
        throw new AssertionError(e);
      }
      aPastCall.set(true);
      both.countDown();
    });
    await(both, () -> "A past its call while B holds the only P: " + ex.stats() + describeMs(ex));
    awaitCondition(() -> "quiet: " + ex.stats(), LIVENESS_SECONDS,
        () -> ex.stats().spareThreads() == 0 && ex.stats().idleProcessors() == 1);
    assertEquals(1, ex.stats().retakes(), "only sysmon's retake of A's call: " + ex.stats());
    assertEquals(1, ex.stats().handoffs(), "and its hand-off to B: " + ex.stats());
  }

  /**
   * An executor with no sysmon thread, one P and an idle M: two Ms ran at parallelism 2, went
   * idle, then parallelism became 1 (the shrink leaves both Ms).
   */
  private GmpExecutor oneProcessorAndAnIdleM(GmpExecutor.Builder b) {
    GmpExecutor ex = tracked.track(new GmpExecutor(b.parallelism(2).config(), false));
    CountDownLatch both = new CountDownLatch(2);
    CountDownLatch go = new CountDownLatch(1);
    for (int i = 0; i < 2; i++) {
      ex.execute(() -> {
        both.countDown();
        awaitQuietly(go);
      });
    }
    await(both, "two Ms running");
    go.countDown();
    awaitCondition("both Ms idle", () -> ex.stats().idleThreads() == 2);
    ex.setParallelism(1);
    return ex;
  }

  /**
   * Go's entersyscallblock: a marked call that starts while work waits on its P hands the P on at
   * once to an idle M. With no sysmon thread at all, the task queued behind the call can only run
   * if that happened (else it waits for the call, which waits for it, until the liveness timeout).
   * The idle M comes from a shrink: two Ms ran at parallelism 2, then parallelism became 1.
   */
  @Test
  void aMarkedCallWithWorkQueuedBehindItHandsItsProcessorToAnIdleMWithoutSysmon() {
    GmpExecutor ex = oneProcessorAndAnIdleM(GmpExecutor.builder().name("eager"));
    CountDownLatch queuedRan = new CountDownLatch(1);
    AtomicBoolean sawIt = new AtomicBoolean();
    CountDownLatch done = new CountDownLatch(1);
    ex.execute(
        () -> {
          ex.execute(queuedRan::countDown); // this P's runnext: no other P exists
          try {
            sawIt.set(
                GmpExecutor.blocking(() -> queuedRan.await(LIVENESS_SECONDS, TimeUnit.SECONDS)));
          } catch (Exception e) {
            throw new AssertionError(e);
          } finally {
            done.countDown();
          }
        });
    await(done, "the outer task");
    assertTrue(sawIt.get(), "the queued task ran while the marked call blocked: " + ex.stats());
    assertEquals(1, ex.stats().handoffs(), "one hand-off, done by entersyscall itself");
    assertEquals(0, ex.stats().retakes(), "an eager hand-off is no retake");
    assertEquals(2, ex.stats().threadsCreated(), "to the idle M: no thread created for it");
  }

  /**
   * A call that returns to find its P handed on takes the P of another M's marked call when work
   * waits behind it (Retake#takeSyscallPLocked), rather than leaving that P to sysmon. No sysmon
   * here and a spare budget of 1, spent by B's M, so B's call keeps its P: the task queued behind
   * B can run before B's call ends only if A's returning M takes that P.
   */
  @Test
  void aReturningCallTakesTheProcessorOfAnotherBlockedCallWhenWorkWaits() throws Exception {
    // one P, and an idle M for A's eager hand-off
    GmpExecutor ex = oneProcessorAndAnIdleM(GmpExecutor.builder().maxSpareThreads(1).name("take"));
    CountDownLatch releaseA = new CountDownLatch(1);
    CountDownLatch bInside = new CountDownLatch(1);
    CountDownLatch cRan = new CountDownLatch(1);
    CountDownLatch bDone = new CountDownLatch(1);
    Thread[] aThread = new Thread[1];
    Thread[] cThread = new Thread[1];
    Runnable c = () -> {
      cThread[0] = Thread.currentThread();
      cRan.countDown();
    };
    Runnable b = () -> {
      ex.execute(c); // queued on the P that B's call keeps: the budget is spent by A's M
      try {
        GmpExecutor.blocking(() -> {
          bInside.countDown();
          return cRan.await(LIVENESS_SECONDS, TimeUnit.SECONDS);
        });
      } catch (Exception e) {
        throw new AssertionError(e);
      } finally {
        bDone.countDown();
      }
    };
    ex.execute(() -> {
      aThread[0] = Thread.currentThread();
      ex.execute(b); // waits behind A's call: entersyscall hands the P to the idle M for it
      try {
        GmpExecutor.blocking(() -> releaseA.await(LIVENESS_SECONDS, TimeUnit.SECONDS));
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    await(bInside, "B in its call on the handed-off P: " + ex.stats());
    releaseA.countDown();
    await(cRan, () -> "the task behind B's call ran while B blocked: " + ex.stats()
        + describeMs(ex));
    assertSame(aThread[0], cThread[0], "on A's M, which took B's P on its way back");
    await(bDone, "B done");
    assertTrue(ex.stats().peakThreads() <= 2, "no thread beyond the budget: " + ex.stats());
  }

  /**
   * With no idle M the eager hand-off would have to start a thread, which takes longer than a
   * short call: it is left to sysmon (here there is none), so the call keeps its P and nothing
   * is created for it.
   */
  @Test
  void aMarkedCallStartsNoThreadOfItsOwn() throws Exception {
    GmpExecutor ex =
        tracked.track(new GmpExecutor(GmpExecutor.builder().parallelism(1).name("lazy").config(), false));
    CountDownLatch queuedRan = new CountDownLatch(1);
    Future<Boolean> f = ex.submit(() -> {
      ex.execute(queuedRan::countDown);
      return GmpExecutor.blocking(() -> queuedRan.getCount() == 1);
    });
    assertTrue(f.get(LIVENESS_SECONDS, TimeUnit.SECONDS), "the call ran holding its P");
    await(queuedRan, "the queued task runs after the call");
    assertEquals(0, ex.stats().retakes());
    assertEquals(1, ex.stats().threadsCreated());
  }

  private static void awaitQuietly(CountDownLatch l) {
    try {
      l.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void awaitQuiet(GmpExecutor ex) {
    awaitCondition(
        () -> "executor goes quiet: " + ex.stats() + describeMs(ex),
        LIVENESS_SECONDS,
        () -> {
          GmpStats s = ex.stats();
          return s.idleProcessors() == s.parallelism()
              && s.spinningThreads() == 0
              && s.spareThreads() == 0
              && s.runnableTasks() == 0
              && s.runningTasks() == 0
              && s.syscallTasks() == 0
              && s.waitingTasks() == 0;
        });
  }

  @Test
  void markedBlockingCallLetsOtherTasksRun() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.create(1));
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Future<String> blocked = ex.submit(() -> GmpExecutor.blocking(() -> {
      inside.countDown();
      release.await();
      return "done";
    }));
    await(inside, "task inside blocking()");
    awaitCondition(() -> "syscallTasks == 1: " + ex.stats(), LIVENESS_SECONDS,
        () -> ex.stats().syscallTasks() == 1);
    assertOthersRun(ex, 20, "other tasks run while one is inside blocking()");
    assertEquals(1, ex.stats().syscallTasks(), "still blocked: " + ex.stats());
    release.countDown();
    assertEquals("done", blocked.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    awaitQuiet(ex);
    assertTrue(ex.stats().handoffs() + ex.stats().retakes() > 0, ex.stats().toString());
  }

  @Test
  void manyMarkedBlockersDoNotStopOtherWork() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.create(2));
    int blockers = 6;
    CountDownLatch inside = new CountDownLatch(blockers);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger finished = new AtomicInteger();
    for (int i = 0; i < blockers; i++) {
      ex.execute(() -> {
        try {
          GmpExecutor.blocking(() -> {
            inside.countDown();
            release.await();
            return null;
          });
          finished.incrementAndGet();
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      });
    }
    await(inside, "all blockers inside blocking() at once: " + ex.stats());
    // Each blocker is in its call; on a loaded machine sysmon may have found one off the CPU and
    // taken its P just before the call (a class load from the jar), which counts it as waiting.
    awaitCondition(() -> "syscallTasks + waitingTasks == " + blockers + ": " + ex.stats(),
        LIVENESS_SECONDS,
        () -> ex.stats().syscallTasks() + ex.stats().waitingTasks() == blockers);
    assertOthersRun(ex, 50, "other tasks run while 6 tasks block with 2 processors");
    release.countDown();
    awaitCondition("blockers finish", () -> finished.get() == blockers);
    awaitQuiet(ex);
  }

  /**
   * Regression: a blocker whose P was retaken, handed to another M and put back in Psyscall by
   * that M's own blocking call won it back with its fast-path CAS and stayed marked spare: the
   * spare count leaked and the executor never went quiet nor terminated.
   */
  @Test
  void spareAccountingSettlesAfterManyBlockingRounds() throws Exception {
    for (int p = 1; p <= 2; p++) {
      GmpExecutor ex = tracked.track(GmpExecutor.create(p));
      for (int round = 0; round < 15; round++) {
        int blockers = 2 + round % 5;
        CountDownLatch inside = new CountDownLatch(blockers);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch finished = new CountDownLatch(blockers);
        for (int i = 0; i < blockers; i++) {
          ex.execute(() -> {
            try {
              GmpExecutor.blocking(() -> {
                inside.countDown();
                release.await();
                return null;
              });
              GmpExecutor.blocking(() -> null); // a short second call, on whatever P we got
              finished.countDown();
            } catch (Exception e) {
              throw new AssertionError(e);
            }
          });
        }
        await(inside, "round " + round + ": all blockers inside: " + ex.stats());
        assertOthersRun(ex, 5, "round " + round);
        release.countDown();
        await(finished, "round " + round + ": blockers finish");
        awaitQuiet(ex);
      }
      ex.shutdown();
      assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS), ex.stats().toString());
    }
  }

  @Test
  void exceptionsPropagateUnchangedAndInterruptIsKept() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.create(1));
    IOException io = new IOException("io");
    IllegalStateException ise = new IllegalStateException("ise");
    Error err = new AssertionError("err");
    Future<List<Object>> f = ex.submit(() -> {
      List<Object> out = new ArrayList<>();
      for (Throwable t : List.of(io, ise, err)) {
        try {
          GmpExecutor.blocking(() -> {
            if (t instanceof Exception e) {
              throw e;
            }
            throw (Error) t;
          });
        } catch (Throwable caught) {
          out.add(caught);
        }
      }
      // Interrupt set inside the call survives exitsyscall.
      GmpExecutor.blocking(() -> {
        Thread.currentThread().interrupt();
        return null;
      });
      out.add(Thread.interrupted());
      // Interrupt set before the call is seen inside it.
      Thread.currentThread().interrupt();
      out.add(GmpExecutor.blocking(() -> Thread.currentThread().isInterrupted()));
      out.add(Thread.interrupted());
      // Nested blocking() just calls through.
      out.add(GmpExecutor.blocking(() -> GmpExecutor.blocking(() -> "nested")));
      out.add(Thread.currentThread().isInterrupted());
      return out;
    });
    List<Object> out = f.get(LIVENESS_SECONDS, TimeUnit.SECONDS);
    assertSame(io, out.get(0));
    assertSame(ise, out.get(1));
    assertSame(err, out.get(2));
    assertEquals(true, out.get(3), "interrupt raised inside blocking() kept");
    assertEquals(true, out.get(4), "interrupt raised before blocking() seen inside");
    assertEquals(true, out.get(5), "and still set after");
    assertEquals("nested", out.get(6));
    assertEquals(false, out.get(7));
  }

  @Test
  void interruptKeptWhenTheProcessorWasHandedOff() throws Exception {
    // The blocker loses its P (others need it), is interrupted inside the call, and must get
    // a P back with the interrupt status still set.
    GmpExecutor ex = tracked.track(GmpExecutor.create(1));
    CountDownLatch inside = new CountDownLatch(1);
    AtomicReference<Thread> blockerThread = new AtomicReference<>();
    Future<Boolean> f = ex.submit(() -> {
      GmpExecutor.blocking(() -> {
        blockerThread.set(Thread.currentThread());
        inside.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIVENESS_SECONDS);
        while (!Thread.currentThread().isInterrupted() && System.nanoTime() < deadline) {
          Thread.onSpinWait(); // not consuming the interrupt
        }
        return null;
      });
      return Thread.currentThread().isInterrupted();
    });
    await(inside, "inside blocking()");
    assertOthersRun(ex, 10, "others run while the blocker holds no P");
    blockerThread.get().interrupt();
    assertTrue(f.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    awaitQuiet(ex);
  }

  @Test
  void blockingOutsideAWorkerCallsThrough() throws Exception {
    Thread me = Thread.currentThread();
    assertEquals("x", GmpExecutor.blocking(() -> {
      assertSame(me, Thread.currentThread());
      return "x";
    }));
    IOException io = new IOException();
    assertSame(io, assertThrows(IOException.class, () -> GmpExecutor.blocking(() -> {
      throw io;
    })));
    me.interrupt();
    assertTrue(GmpExecutor.blocking(() -> Thread.currentThread().isInterrupted()));
    assertTrue(Thread.interrupted());
  }

  @Test
  void unmarkedLatchAwaitLosesItsProcessor() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.create(1));
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Future<?> blocked = ex.submit(() -> {
      inside.countDown();
      release.await();
      return null;
    });
    await(inside, "blocked task started");
    assertOthersRun(ex, 20, "tasks run while one blocks in CountDownLatch.await");
    release.countDown();
    blocked.get(LIVENESS_SECONDS, TimeUnit.SECONDS);
    awaitQuiet(ex);
    assertTrue(ex.stats().retakes() > 0, ex.stats().toString());
  }

  @Test
  void unmarkedSleepLosesItsProcessor() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.create(1));
    CountDownLatch inside = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    ex.execute(() -> {
      inside.countDown();
      try {
        Thread.sleep(TimeUnit.MINUTES.toMillis(5)); // the behaviour under test; shutdownNow ends it
      } catch (InterruptedException e) {
        interrupted.set(true);
      }
    });
    await(inside, "sleeping task started");
    assertOthersRun(ex, 20, "tasks run while one sleeps");
    ex.shutdownNow();
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS), ex.stats().toString());
    assertTrue(interrupted.get());
  }

  @Test
  void unmarkedMonitorWaitLosesItsProcessor() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.create(1));
    Object lock = new Object();
    CountDownLatch entered = new CountDownLatch(1);
    Future<?> blocked;
    synchronized (lock) {
      blocked = ex.submit(() -> {
        synchronized (lock) {
          entered.countDown();
        }
      });
      awaitCondition("task BLOCKED on the monitor", () -> {
        for (M m : ex.sched.threads.ms()) {
          Thread t = m.thread;
          if (t != null && t.getState() == Thread.State.BLOCKED) {
            return true;
          }
        }
        return false;
      });
      assertOthersRun(ex, 20, "tasks run while one is BLOCKED on a monitor");
    }
    await(entered, "blocked task gets the monitor");
    blocked.get(LIVENESS_SECONDS, TimeUnit.SECONDS);
    awaitQuiet(ex);
  }

  @Test
  void unmarkedFutureGetOnSameExecutorDoesNotDeadlock() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.create(1));
    // With one processor, waiting on a task queued behind us would deadlock unless sysmon
    // hands the processor to another thread.
    Future<String> outer = ex.submit(() -> {
      Future<String> inner = ex.submit(() -> "inner");
      return inner.get(LIVENESS_SECONDS, TimeUnit.SECONDS) + "+outer";
    });
    assertEquals("inner+outer", outer.get(LIVENESS_SECONDS + 5, TimeUnit.SECONDS));
    awaitQuiet(ex);
  }

  /** CPU hogs keep their processors: no retake, no spare, never more than parallelism run. */
  @Test
  void cpuHogsNeverRunBeyondParallelism() throws Exception {
    int p = 2;
    GmpExecutor ex = tracked.track(
        GmpExecutor.builder().parallelism(p).maxSpareThreads(2)
            .timeSlice(Duration.ofMillis(5)).build());
    AtomicBoolean stop = new AtomicBoolean();
    int hogs = 8;
    CountDownLatch done = new CountDownLatch(hogs);
    CountDownLatch twoRunning = new CountDownLatch(p);
    AtomicInteger running = new AtomicInteger();
    for (int i = 0; i < hogs; i++) {
      ex.execute(() -> {
        running.incrementAndGet();
        twoRunning.countDown();
        while (!stop.get()) {
          Thread.onSpinWait();
        }
        running.decrementAndGet();
        done.countDown();
      });
    }
    try {
      await(twoRunning, "two hogs run");
      // Both slices expire (sysmon asks for a preemption the JVM cannot do), then many rounds
      // pass in which sysmon sees the hogs and hands no P away.
      TestSupport.awaitCondition(() -> "slices expire: " + ex.stats(), LIVENESS_SECONDS,
          () -> ex.stats().preemptionRequests() >= p);
      long rounds = ex.stats().sysmonWakeups();
      TestSupport.awaitCondition(() -> "sysmon looks on: " + ex.stats(), LIVENESS_SECONDS,
          () -> ex.stats().sysmonWakeups() >= rounds + 50);
      GmpStats s = ex.stats();
      assertEquals(p, running.get(), "at most P hogs run: " + s);
      assertEquals(0, s.spareThreads(), s.toString());
      assertEquals(0, s.retakes(), s.toString());
      assertTrue(s.threads() <= p + 1, s.toString());
    } finally {
      stop.set(true);
    }
    await(done, "all hogs finish once stopped");
    awaitQuiet(ex);
  }

  /**
   * Computing tasks mixed with tasks that park unmarked for 20-320 us: sysmon retakes the
   * parkers' Ps, and a parker that ends just as its P is retaken must not start the next task on
   * that P (Retake#retakeRunning's claim on the task, M#endTask). Before the claim, a computing
   * task started so ran beside the P's replacement in most rounds at parallelism 1 and 2
   * (RetakeVsTaskEndStress has the exact race).
   */
  @Test
  void aTaskEndingAsItsPIsRetakenStartsNothingOnThatP() throws Exception {
    for (int p : new int[] {1, 2}) {
      for (int round = 0; round < 3; round++) {
        GmpExecutor ex = tracked.track(GmpExecutor.builder().parallelism(p).build());
        int n = 2_000;
        CountDownLatch done = new CountDownLatch(n);
        AtomicInteger computing = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        SplittableRandom random = new SplittableRandom(round);
        for (int i = 0; i < n; i++) {
          boolean compute = (i & 1) == 0;
          long park = 20_000 + random.nextInt(300_000);
          ex.execute(() -> {
            try {
              if (compute) {
                peak.accumulateAndGet(computing.incrementAndGet(), Math::max);
                long end = System.nanoTime() + 200_000; // the workload: 200 us on a CPU
                long x = 0;
                while (System.nanoTime() < end) {
                  x += x * 31 + 7;
                }
                sink = x;
                computing.decrementAndGet();
              } else {
                LockSupport.parkNanos(park); // unmarked: its P is retaken
              }
            } finally {
              done.countDown();
            }
          });
        }
        await(done, () -> "all tasks run: " + ex.stats());
        assertTrue(peak.get() <= p, "computing at once: " + peak + " at parallelism " + p
            + ", round " + round + ": " + ex.stats());
        ex.shutdown();
        assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
      }
    }
  }

  static volatile long sink;

  /**
   * CPU-bound tasks that contend for a lock now and then (a shared monitor and a j.u.c lock, as
   * a logger's appender takes) are caught waiting for it at many of sysmon's looks, while their
   * slices run out; they still run on a CPU nearly all the time, so none loses its P.
   */
  @Test
  void cpuBoundTasksThatContendForALockKeepTheirProcessors() throws Exception {
    int p = 2;
    GmpExecutor ex = tracked.track(
        GmpExecutor.builder().parallelism(p).maxSpareThreads(4)
            .timeSlice(Duration.ofMillis(2)).build());
    AtomicBoolean stop = new AtomicBoolean();
    int hogs = 6;
    CountDownLatch done = new CountDownLatch(hogs);
    CountDownLatch twoRunning = new CountDownLatch(p);
    AtomicInteger running = new AtomicInteger();
    AtomicInteger peak = new AtomicInteger();
    Object monitor = new Object();
    java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
    long[] shared = new long[1];
    for (int i = 0; i < hogs; i++) {
      boolean useMonitor = i % 2 == 0;
      ex.execute(() -> {
        peak.accumulateAndGet(running.incrementAndGet(), Math::max);
        twoRunning.countDown();
        long x = 0;
        while (!stop.get()) {
          for (int k = 0; k < 2_000; k++) {
            x += k * 31L ^ x; // on the CPU most of the time
          }
          if (useMonitor) {
            synchronized (monitor) {
              shared[0] += x;
            }
          } else {
            lock.lock();
            try {
              shared[0] += x;
            } finally {
              lock.unlock();
            }
          }
        }
        running.decrementAndGet();
        done.countDown();
      });
    }
    try {
      await(twoRunning, "two tasks run");
      long rounds = ex.stats().sysmonWakeups();
      TestSupport.awaitCondition(() -> "sysmon looks on: " + ex.stats(), LIVENESS_SECONDS,
          () -> ex.stats().sysmonWakeups() >= rounds + 300 || ex.stats().retakes() != 0);
      GmpStats s = ex.stats();
      assertEquals(0, s.retakes(),
          "detector " + ex.sched.counters.blockRetakes.sum() + ", all: " + s);
      assertEquals(p, peak.get(), "at most P tasks ran: " + s);
    } finally {
      stop.set(true);
    }
    await(done, "all tasks finish once stopped");
    awaitQuiet(ex);
  }

  /**
   * A task waiting for a lock that another task holds while it computes on the other P keeps its
   * P, though it is off the CPU look after look and its slice runs out: once it gets the lock it
   * computes too, and with its P handed on a third task would run beside both. The monitor wait
   * is the slice rule's, the j.u.c lock wait the detector's.
   */
  @Test
  void aWaitForALockHeldByARunningTaskKeepsItsProcessor() throws Exception {
    Object monitor = new Object();
    java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
    waitForARunningHolder(body -> {
      synchronized (monitor) {
        body.run();
      }
    });
    waitForARunningHolder(body -> {
      lock.lock();
      try {
        body.run();
      } finally {
        lock.unlock();
      }
    });
  }

  private void waitForARunningHolder(java.util.function.Consumer<Runnable> locked)
      throws Exception {
    GmpExecutor ex = tracked.track(
        GmpExecutor.builder().parallelism(2).timeSlice(Duration.ofMillis(2)).build());
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch waiterStarted = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(2);
    ex.execute(() -> {
      locked.accept(() -> {
        holding.countDown();
        while (!stop.get()) {
          Thread.onSpinWait(); // the holder computes
        }
      });
      done.countDown();
    });
    await(holding, "the holder has the lock");
    Thread[] waiter = new Thread[1];
    ex.execute(() -> {
      waiter[0] = Thread.currentThread();
      waiterStarted.countDown();
      locked.accept(() -> {});
      done.countDown();
    });
    await(waiterStarted, "the waiter started");
    awaitCondition("the waiter waits for the lock", () -> {
      Thread.State st = waiter[0].getState();
      return st == Thread.State.BLOCKED || st == Thread.State.WAITING;
    });
    AtomicBoolean otherRan = new AtomicBoolean();
    ex.execute(() -> otherRan.set(true)); // waits: only a retake could run it now
    try {
      long rounds = ex.stats().sysmonWakeups();
      TestSupport.awaitCondition(() -> "sysmon looks on: " + ex.stats(), LIVENESS_SECONDS,
          () -> ex.stats().sysmonWakeups() >= rounds + 200 || ex.stats().retakes() != 0);
      assertEquals(0, ex.stats().retakes(), ex.stats().toString());
      assertFalse(otherRan.get(), "the queued task waits for a P");
    } finally {
      stop.set(true);
    }
    await(done, "both finish once the holder stops");
    awaitCondition("the queued task runs after them", otherRan::get);
    awaitQuiet(ex);
  }

  @Test
  void shutdownWhileInsideBlockingTerminatesAfterRelease() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.create(1));
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean completed = new AtomicBoolean();
    ex.execute(() -> {
      try {
        GmpExecutor.blocking(() -> {
          inside.countDown();
          release.await();
          return null;
        });
        completed.set(true);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    await(inside, "inside blocking()");
    ex.execute(() -> {}); // make it hand the P off
    ex.shutdown();
    assertFalse(ex.awaitTermination(20, TimeUnit.MILLISECONDS));
    release.countDown();
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS), ex.stats().toString());
    assertTrue(completed.get());
  }

  @Test
  void shutdownNowInterruptsTaskInsideBlocking() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.create(1));
    CountDownLatch inside = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    ex.execute(() -> {
      try {
        GmpExecutor.blocking(() -> {
          inside.countDown();
          new CountDownLatch(1).await();
          return null;
        });
      } catch (InterruptedException e) {
        interrupted.set(true);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    await(inside, "inside blocking()");
    assertOthersRun(ex, 5, "others run meanwhile");
    ex.shutdownNow();
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS), ex.stats().toString());
    assertTrue(interrupted.get());
  }
}
