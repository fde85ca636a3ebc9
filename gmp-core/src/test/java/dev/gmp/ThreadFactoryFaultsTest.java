package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Thread factories that are slow, that make threads which never run, or that throw. */
class ThreadFactoryFaultsTest {
  /** Threads that sleep {@code millis} before running their Runnable (an app server's factory). */
  static final class SlowFactory implements ThreadFactory {
    final long millis;
    final List<Thread> made = new CopyOnWriteArrayList<>();
    final List<String> callers = new CopyOnWriteArrayList<>();
    final AtomicInteger ran = new AtomicInteger(); // threads that reached their Runnable

    SlowFactory(long millis) {
      this.millis = millis;
    }

    @Override
    public Thread newThread(Runnable r) {
      callers.add(Thread.currentThread().getName());
      Thread t = new Thread(() -> {
        TestSupport.sleepQuietly(millis); // the factory's own set-up, before the Runnable
        ran.incrementAndGet();
        r.run();
      }, "slow-" + made.size());
      t.setDaemon(true);
      made.add(t);
      return t;
    }
  }

  /**
   * A factory that starts its threads itself (a common mistake): gmp's start() fails and the M is
   * written off; the thread then runs gmp's Runnable, whose check-in fails. That check-in is no
   * sign that the factory works: the burst's later failures stay unreported (and creation keeps
   * backing off). It reset both, and 300 submissions made 200-416 reports.
   */
  @Test
  void aFailedCheckInDoesNotEndTheBurstOfFailures() throws Exception {
    CountDownLatch firstGate = new CountDownLatch(1);
    CountDownLatch laterGate = new CountDownLatch(1); // opened at the end only
    List<Thread> made = new CopyOnWriteArrayList<>();
    AtomicInteger reports = new AtomicInteger();
    ThreadFactory selfStarting = r -> {
      CountDownLatch gate = made.isEmpty() ? firstGate : laterGate;
      Thread t = new Thread(() -> {
        TestSupport.awaitQuietly(gate);
        r.run(); // gmp's Runnable: its check-in finds the M written off
      });
      t.setDaemon(true);
      made.add(t);
      t.start(); // the mistake: gmp's own start() then fails
      return t;
    };
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).threadFactory(selfStarting)
        .uncaughtExceptionHandler((t, e) -> reports.incrementAndGet()).build();
    try {
      executeQuietly(ex);
      TestSupport.awaitCondition("the first failure reported", () -> reports.get() == 1);
      firstGate.countDown();
      made.get(0).join(TimeUnit.SECONDS.toMillis(TestSupport.LIVENESS_SECONDS));
      assertFalse(made.get(0).isAlive(), "the first thread's check-in failed, and it returned");
      TestSupport.awaitCondition("another factory call", () -> {
        executeQuietly(ex);
        return made.size() >= 2;
      });
      assertEquals(1, reports.get(), "one report for the burst");
    } finally {
      laterGate.countDown();
      ex.shutdownNow();
    }
  }

  private static void executeQuietly(GmpExecutor ex) {
    try {
      ex.execute(() -> {});
    } catch (RejectedExecutionException expected) {
      // no thread could be had
    }
  }

  @Test
  void aSlowFactorysThreadsRunTheirTasks() throws Exception {
    SlowFactory f = new SlowFactory(400); // past the 250 ms check-in watchdog
    // maxThreads 3, which late threads count against (the spare budget does not count them), and
    // a late thread is never written off, so it keeps its place in that count: however the
    // watchdog, the backoff (tested exactly in aDudThatEndsAfterComingLateBacksCreationOffOnce)
    // and stale-spinner wake-ups interleave, the factory is asked at most 3 times. A count over a
    // time window was flaky (4 in 1.4 s).
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().parallelism(2)
        .maxSpareThreads(1).maxThreads(3).threadFactory(f).build())) {
      GmpExecutor ex = c.ex();
      assertEquals(7, ex.submit(() -> 7).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
      TestSupport.sleepQuietly(1_000); // a window to count threads in, not a synchronisation
      GmpStats st = ex.stats();
      assertTrue(f.made.size() <= 3, "threads made, none written off, cap 3: " + f.made.size()
          + " " + st);
      TestSupport.awaitCondition(() -> "every thread made reached its Runnable: " + f.ran + " of "
          + f.made.size(), TestSupport.LIVENESS_SECONDS, () -> f.ran.get() == f.made.size());
      for (String caller : f.callers) {
        assertFalse(caller.endsWith("-sysmon"), "the factory was called on sysmon: " + caller);
      }
    }
  }

  /**
   * A retake hands the P of a task blocked without saying so to a new M, whose factory call is
   * slow. The blocked task's M returns meanwhile: it takes that P back and runs the queued work
   * (Spares#takeLateHandoffLocked). Before, the work waited for the factory: with a 300 ms
   * factory, 5 ms sleeps at parallelism 2 ran at about 16 a second. Here the factory's second
   * call waits on a gate the test opens only after the queued task has run.
   */
  @Test
  void aReturningMRunsQueuedWorkWhileTheFactoryIsInsideASlowCall() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch gate = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    ThreadFactory gated = r -> {
      Thread t = new Thread(r, "gated-" + calls.get());
      t.setDaemon(true);
      if (calls.incrementAndGet() > 1) {
        entered.countDown();
        TestSupport.await(gate, "the test opens the gate");
      }
      return t;
    };
    try (TestSupport.Closer c = TestSupport.closer(
        GmpExecutor.builder().parallelism(1).threadFactory(gated).build())) {
      GmpExecutor ex = c.ex();
      TestSupport.BlockedP b = TestSupport.blockTheOnlyP(ex);
      TestSupport.await(entered, "sysmon retakes the P and a new M's factory call begins");
      // The hand-off is older than the take-back threshold (a time condition, not a hand-shake).
      long since = System.nanoTime();
      while (System.nanoTime() - since <= 2 * Spares.LATE_HANDOFF_NANOS) {
        Thread.onSpinWait();
      }
      b.release().countDown();
      try {
        assertTrue(b.queuedRan().await(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS),
            "the queued task ran while the factory call still waits: " + ex.stats());
      } finally {
        gate.countDown();
      }
    }
  }

  @Test
  void duds_countAgainstMaxThreads_andRetriesBackOff() throws Exception {
    AtomicInteger made = new AtomicInteger();
    CountDownLatch end = new CountDownLatch(1);
    List<Thread> duds = new CopyOnWriteArrayList<>();
    ThreadFactory dud = r -> {
      made.incrementAndGet();
      Thread t = new Thread(() -> { // never runs r
        try {
          end.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "dud-" + made.get());
      t.setDaemon(true);
      duds.add(t);
      return t;
    };
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).maxThreads(3).threadFactory(dud)
        .uncaughtExceptionHandler((t, e) -> {}).build();
    try {
      ex.execute(() -> {});
      TestSupport.sleepQuietly(2_000); // a window to count attempts in, not a synchronisation
      int attempts = made.get();
      GmpStats st = ex.stats();
      // Every dud is still alive (it waits for the end of the test), so each counts against
      // maxThreads: never more than 3 made, however long the executor retries.
      assertTrue(attempts <= 3, "duds made, all alive, with maxThreads 3: " + attempts + " " + st);
      // The last one may be between the factory and its start: counted a moment later.
      assertTrue(st.threads() <= 3 && st.threads() >= attempts - 1,
          "live duds count as threads: " + attempts + " made, " + st);
    } finally {
      ex.shutdownNow();
      assertTrue(ex.awaitTermination(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS),
          "threads that never ran their Runnable do not keep the executor from terminating");
      end.countDown();
      for (Thread t : duds) {
        t.join();
      }
    }
  }

  /**
   * A dud that comes late backs creation off (takeBackFromLate) and, when it ends, is written
   * off: that is one failure, one doubling of the pause. Doubling again at its death made a
   * streak of duds pause creation for the full 4 s after two of them (the long soak: no thread
   * for over 10 s). The factory's second call waits for the test, so nothing else moves the
   * pause meanwhile.
   */
  @Test
  void aDudThatEndsAfterComingLateBacksCreationOffOnce() throws Exception {
    CountDownLatch end = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    List<Thread> made = new CopyOnWriteArrayList<>();
    ThreadFactory factory = r -> {
      Thread t;
      if (made.isEmpty()) {
        t = new Thread(() -> { // a dud: never runs r
          try {
            end.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }, "dud");
      } else {
        try {
          proceed.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        t = new Thread(r, "good-" + made.size());
      }
      t.setDaemon(true);
      made.add(t);
      return t;
    };
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).maxSpareThreads(0)
        .threadFactory(factory).uncaughtExceptionHandler((t, e) -> {}).build();
    try {
      CountDownLatch ran = new CountDownLatch(1);
      ex.execute(ran::countDown); // the first M, whose thread is the dud
      Counters c = ex.sched.counters;
      TestSupport.awaitCondition("the dud comes late", () -> c.lateThreadStarts.sum() == 1);
      assertEquals(Threads.MIN_BACKOFF_NANOS, ex.sched.threads.backoffNanos(), "late: one pause");
      end.countDown(); // it ends without running its Runnable
      TestSupport.awaitCondition("the dud written off",
          () -> ex.stats().threadStartFailures() == 1);
      assertEquals(Threads.MIN_BACKOFF_NANOS, ex.sched.threads.backoffNanos(),
          "its end is the same failure as its lateness: the pause is not doubled again");
      proceed.countDown();
      TestSupport.await(ran, "the task runs on the next thread");
    } finally {
      end.countDown();
      proceed.countDown();
      ex.shutdownNow();
      assertTrue(ex.awaitTermination(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
    }
  }

  /**
   * Two duds asked for at once, before either could be late, are one failed attempt: the pause
   * is the first one, not doubled per dud. Counting each doubled the pause to its 4 s ceiling
   * within one burst of duds (the long soak: an executor whose factory handed out duds for half a
   * second ran nothing for over 10 s). The first factory call waits for the second, so both
   * threads start before the watchdog can find either late.
   */
  @Test
  void dudsMadeTogetherAreOneFailedAttempt() throws Exception {
    CountDownLatch bothAsked = new CountDownLatch(2);
    CountDownLatch end = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    List<Thread> made = new CopyOnWriteArrayList<>();
    ThreadFactory factory = r -> {
      Thread t;
      if (bothAsked.getCount() > 0) {
        bothAsked.countDown();
        TestSupport.awaitQuietly(bothAsked);
        t = new Thread(() -> TestSupport.awaitQuietly(end), "dud"); // never runs r
      } else {
        TestSupport.awaitQuietly(proceed);
        t = new Thread(r, "good-" + made.size());
      }
      t.setDaemon(true);
      made.add(t);
      return t;
    };
    GmpExecutor ex = GmpExecutor.builder().parallelism(2).maxSpareThreads(0)
        .threadFactory(factory).uncaughtExceptionHandler((t, e) -> {}).build();
    Thread second = null;
    try {
      CountDownLatch ran = new CountDownLatch(2);
      // The first M's factory call is this thread's; the second submission, from another
      // thread, finds one M and an idle P and asks for the second.
      second = Thread.ofPlatform().start(() -> {
        TestSupport.awaitCondition("the first M counted", () -> ex.sched.threads.mcount == 1);
        ex.execute(ran::countDown);
      });
      ex.execute(ran::countDown);
      Counters c = ex.sched.counters;
      TestSupport.awaitCondition("both duds come late", () -> c.lateThreadStarts.sum() == 2);
      assertEquals(Threads.MIN_BACKOFF_NANOS, ex.sched.threads.backoffNanos(),
          "two duds of one attempt: one pause");
      end.countDown();
      TestSupport.awaitCondition("both duds written off",
          () -> ex.stats().threadStartFailures() == 2);
      assertEquals(Threads.MIN_BACKOFF_NANOS, ex.sched.threads.backoffNanos(),
          "their ends are the same failure");
      proceed.countDown();
      TestSupport.await(ran, "the tasks run on the next threads");
    } finally {
      end.countDown();
      proceed.countDown();
      ex.shutdownNow();
      assertTrue(ex.awaitTermination(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
      if (second != null) {
        second.join();
      }
    }
  }

  /**
   * A thread stuck before its Runnable (a factory's own prologue waiting on something) counts
   * against maxThreads only, not against the spare budget: with parallelism 1 and no spares,
   * counting it left no room for another thread, and no task ran until it came. When it comes
   * at last, the thread made meanwhile fills the budget, so it leaves at once.
   */
  @Test
  void aStuckThreadDoesNotHoldTheSpareBudget() throws Exception {
    CountDownLatch unstick = new CountDownLatch(1);
    List<Thread> made = new CopyOnWriteArrayList<>();
    ThreadFactory factory = r -> {
      Thread t = made.isEmpty()
          ? new Thread(() -> { // stuck, then runs r as a normal thread would
            TestSupport.awaitQuietly(unstick);
            r.run();
          }, "stuck")
          : new Thread(r, "good-" + made.size());
      t.setDaemon(true);
      made.add(t);
      return t;
    };
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).maxSpareThreads(0)
        .threadFactory(factory).build();
    try {
      CountDownLatch ran = new CountDownLatch(1);
      ex.execute(ran::countDown);
      TestSupport.await(ran, () -> "the task runs on a thread made beside the stuck one: "
          + ex.dump());
      assertEquals(2, made.size(), "one more thread, not more: " + ex.stats());
      unstick.countDown();
      made.get(0).join(TimeUnit.SECONDS.toMillis(TestSupport.LIVENESS_SECONDS));
      assertFalse(made.get(0).isAlive(), "the late thread left: the budget was full");
      GmpStats st = ex.stats();
      assertEquals(1, st.threads(), "threads: " + st);
      assertEquals(1, st.peakThreads(), "peak, not counting the late thread: " + st);
      assertEquals(0, st.threadStartFailures(), "a late thread is not a failure: " + st);
      CountDownLatch again = new CountDownLatch(1);
      ex.execute(again::countDown);
      TestSupport.await(again, "the executor still runs tasks");
    } finally {
      unstick.countDown();
      ex.shutdownNow();
      assertTrue(ex.awaitTermination(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
    }
  }

  /**
   * A thread whose start() is slow (thread creation on an overloaded host, or a factory's own
   * start() override that waits) is still NEW while start() runs: late, not dead. Until
   * 2026-12-06 the watchdog took a thread NEW past the check-in time for one never started,
   * wrote it off and reported a start failure, though it came up and ran its Runnable (found
   * with a 400 ms start(); seen once with the default factory on a loaded machine). Here the
   * second thread's start() waits on a gate that opens only once the watchdog has judged it.
   */
  @Test
  void aThreadInsideASlowStartIsLateNotWrittenOff() throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<Thread> made = new CopyOnWriteArrayList<>();
    ThreadFactory factory = r -> {
      boolean slow = made.size() == 1;
      Thread t = new Thread(r, "t-" + made.size()) {
        @Override
        public void start() {
          if (slow) {
            TestSupport.awaitQuietly(gate);
          }
          super.start();
        }
      };
      t.setDaemon(true);
      made.add(t);
      return t;
    };
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).threadFactory(factory)
        .uncaughtExceptionHandler((t, e) -> {}).build();
    try {
      assertEquals(1, ex.submit(() -> 1).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
      // A marked call that waits, with a task queued behind it: its P goes to a new M, whose
      // thread is the slow one.
      ex.execute(() -> {
        try {
          GmpExecutor.blocking(
              () -> release.await(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      Future<Integer> queued = ex.submit(() -> 2);
      Counters c = ex.sched.counters;
      TestSupport.awaitCondition(() -> "the watchdog judges the slow thread: " + ex.dump(),
          TestSupport.LIVENESS_SECONDS,
          () -> c.lateThreadStarts.sum() != 0 || ex.stats().threadStartFailures() != 0);
      assertEquals(0, ex.stats().threadStartFailures(), () -> "written off: " + ex.stats());
      assertEquals(1, c.lateThreadStarts.sum());
      gate.countDown();
      assertEquals(2, queued.get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
      made.get(1).join(TimeUnit.SECONDS.toMillis(TestSupport.LIVENESS_SECONDS));
      assertEquals(0, ex.stats().threadStartFailures(), () -> "after it came: " + ex.stats());
    } finally {
      gate.countDown();
      release.countDown();
      ex.shutdownNow();
      assertTrue(ex.awaitTermination(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
    }
  }

  /**
   * While no thread has checked in, a failure pauses creation for at most 250 ms, however long
   * the backoff has grown: nothing runs until a thread comes, so a longer pause only delays the
   * work. Here a stuck thread, then two factory failures: the backoff is 1 s, the pause 250 ms;
   * once a thread checks in, both are gone.
   */
  @Test
  void withNoThreadCheckedInTheFailurePauseStaysShort() throws Exception {
    CountDownLatch unstick = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    List<Thread> made = new CopyOnWriteArrayList<>();
    ThreadFactory factory = r -> {
      int n = calls.incrementAndGet();
      if (n == 2 || n == 3) {
        throw new IllegalStateException("no thread today (" + n + ")");
      }
      Thread t;
      if (n == 1) {
        t = new Thread(() -> TestSupport.awaitQuietly(unstick), "stuck"); // never runs r
      } else {
        TestSupport.awaitQuietly(proceed);
        t = new Thread(r, "good-" + n);
      }
      t.setDaemon(true);
      made.add(t);
      return t;
    };
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).threadFactory(factory)
        .uncaughtExceptionHandler((t, e) -> {}).build();
    try {
      CountDownLatch ran = new CountDownLatch(1);
      ex.execute(ran::countDown);
      TestSupport.awaitCondition("the factory asked a fourth time", () -> calls.get() == 4);
      Threads th = ex.sched.threads;
      assertEquals(4 * Threads.MIN_BACKOFF_NANOS, th.backoffNanos(),
          "late, then two failures: the backoff doubled twice");
      assertEquals(Threads.MIN_BACKOFF_NANOS, th.pauseNanos(), "no thread has checked in");
      proceed.countDown();
      TestSupport.await(ran, "the task runs on the fourth thread");
      assertEquals(0, th.backoffNanos(), "a check-in ends the backoff");
    } finally {
      unstick.countDown();
      proceed.countDown();
      ex.shutdownNow();
      assertTrue(ex.awaitTermination(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
      for (Thread t : made) {
        t.join();
      }
    }
  }

  /**
   * An idle M past its keepAlive stays while the other Ms are only starting: they may never run.
   * Here the one good thread blocks in a call, its P goes to a new thread that is a dud, and the
   * call returns: that M parks with no P. Counting the dud as an M that can run let it leave at
   * its keepAlive, so when the dud was found late nobody was left to take the P (the long soak:
   * 20k tasks queued for 10 s behind a line of duds). Now it takes the P back and runs the task.
   */
  @Test
  void anIdleThreadOutlivesItsKeepAliveWhileTheOthersAreOnlyStarting() throws Exception {
    CountDownLatch end = new CountDownLatch(1);
    List<Thread> made = new CopyOnWriteArrayList<>();
    ThreadFactory factory = r -> {
      Thread t = made.isEmpty()
          ? new Thread(r, "good")
          : new Thread(() -> TestSupport.awaitQuietly(end), "dud-" + made.size());
      t.setDaemon(true);
      made.add(t);
      return t;
    };
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).keepAlive(Duration.ofMillis(10))
        .threadFactory(factory).uncaughtExceptionHandler((t, e) -> {}).build();
    try {
      CountDownLatch inCall = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      ex.execute(() -> {
        try {
          GmpExecutor.blocking(() -> {
            inCall.countDown();
            return release.await(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
          });
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      });
      TestSupport.await(inCall, "the good thread in its call");
      CountDownLatch ran = new CountDownLatch(1);
      ex.execute(ran::countDown); // waits behind the call: its P goes to a new thread, a dud
      TestSupport.awaitCondition("a thread made for the P", () -> made.size() == 2);
      release.countDown(); // the call returns to no P, finishes, and the good thread parks
      TestSupport.await(ran, () -> "the good thread runs the task once the dud is late: "
          + ex.dump());
      assertTrue(made.get(0).isAlive(), "the good thread stayed");
    } finally {
      end.countDown();
      ex.shutdownNow();
      assertTrue(ex.awaitTermination(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
      for (Thread t : made) {
        t.join();
      }
    }
  }

  @Test
  void aThrowingFactoryRejectsTheTaskAndReportsOncePerBurst() throws Exception {
    ConcurrentLinkedQueue<Throwable> reported = new ConcurrentLinkedQueue<>();
    IllegalStateException boom = new IllegalStateException("no threads today");
    GmpExecutor ex = GmpExecutor.builder().parallelism(2)
        .uncaughtExceptionHandler((t, e) -> reported.add(e))
        .threadFactory(r -> {
          throw boom;
        }).build();
    try {
      AtomicInteger ran = new AtomicInteger();
      for (int i = 0; i < 3; i++) {
        RejectedExecutionException e =
            assertThrows(RejectedExecutionException.class, () -> ex.execute(ran::incrementAndGet));
        assertSame(boom, e.getCause());
      }
      assertThrows(RejectedExecutionException.class, () -> ex.submit(() -> 1));
      RejectedExecutionException se = assertThrows(RejectedExecutionException.class,
          () -> ex.schedule(ran::incrementAndGet, 1, TimeUnit.MILLISECONDS));
      assertSame(boom, se.getCause());
      assertEquals(0, ex.stats().runnableTasks(), "nothing queued: " + ex.stats());
      assertEquals(0, ex.stats().pendingTimers(), "no timer armed: " + ex.stats());
      assertEquals(1, reported.size(), "one report per burst: " + reported);
      assertSame(boom, reported.peek().getCause());
      assertEquals(0, ran.get());
    } finally {
      ex.shutdown();
      assertTrue(ex.awaitTermination(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
    }
  }

  /**
   * Without a handler of the executor's own, a start failure is logged as a warning (on the
   * dev.gmp.GmpExecutor System.Logger) rather than passed to the calling thread's handler, whose
   * default prints "Exception in thread" for a caller that has its RejectedExecutionException
   * and carries on.
   */
  @Test
  void withoutAHandlerAStartFailureIsNotPassedToTheCallersHandler() throws Exception {
    List<Throwable> toCaller = new CopyOnWriteArrayList<>();
    Thread me = Thread.currentThread();
    me.setUncaughtExceptionHandler((t, e) -> toCaller.add(e));
    IllegalStateException boom = new IllegalStateException("no threads today");
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).threadFactory(r -> {
      throw boom;
    }).build();
    try {
      for (int i = 0; i < 2; i++) {
        RejectedExecutionException e =
            assertThrows(RejectedExecutionException.class, () -> ex.execute(() -> {}));
        assertSame(boom, e.getCause());
      }
      assertEquals(List.of(), toCaller, "nothing for the caller's own handler");
    } finally {
      me.setUncaughtExceptionHandler(null);
      ex.shutdown();
      assertTrue(ex.awaitTermination(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
    }
  }

  @Test
  void aFactoryReturningNullIsTheSame() {
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).threadFactory(r -> null)
        .uncaughtExceptionHandler((t, e) -> {}).build();
    try {
      RejectedExecutionException e =
          assertThrows(RejectedExecutionException.class, () -> ex.execute(() -> {}));
      assertInstanceOf(IllegalStateException.class, e.getCause());
      assertTrue(e.getCause().getMessage().contains("null"), e.getCause().getMessage());
    } finally {
      ex.shutdownNow();
    }
  }

  @Test
  void aFactoryThatRecoversRunsLaterTasks() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    ThreadFactory firstFails = r -> {
      if (calls.incrementAndGet() == 1) {
        throw new IllegalStateException("first call fails");
      }
      Thread t = new Thread(r, "recovered");
      t.setDaemon(true);
      return t;
    };
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().parallelism(1)
        .uncaughtExceptionHandler((t, e) -> {}).threadFactory(firstFails).build())) {
      GmpExecutor ex = c.ex();
      assertThrows(RejectedExecutionException.class, () -> ex.execute(() -> {}));
      // No thread at all: the next submission tries again at once, backoff or not.
      assertEquals(3, ex.submit(() -> 3).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
    }
  }
}
