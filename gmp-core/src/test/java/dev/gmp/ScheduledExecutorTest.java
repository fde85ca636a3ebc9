package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static dev.gmp.TestSupport.awaitCondition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.params.ParameterizedTest;

/** ScheduledExecutorService semantics (ScheduledThreadPoolExecutor's, default policies). */
class ScheduledExecutorTest {
  private static final Runnable NOOP = () -> {};

  @Test
  void isAScheduledExecutorService() {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(1))) {
      assertInstanceOf(ScheduledExecutorService.class, c.ex());
    }
  }

  /**
   * A periodic task's future is a Runnable: a caller that runs it (itself, or through execute)
   * runs it once and leaves its one schedule. That run re-armed it too, so the task sat in a heap
   * twice: it ran at twice its rate for good and pendingTimers grew after cancel.
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aPeriodicTaskRunByACallerKeepsItsOneSchedule(boolean fixedRate) throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(1))) {
      GmpExecutor ex = c.ex();
      AtomicInteger runs = new AtomicInteger();
      ScheduledFuture<?> f = fixedRate
          ? ex.scheduleAtFixedRate(runs::incrementAndGet, 1, 1, TimeUnit.HOURS)
          : ex.scheduleWithFixedDelay(runs::incrementAndGet, 1, 1, TimeUnit.HOURS);
      ((Runnable) f).run();
      assertEquals(1, runs.get());
      ex.execute((Runnable) f);
      awaitCondition("run through execute", () -> runs.get() == 2);
      assertEquals(1, ex.stats().pendingTimers(), "one schedule: " + ex.stats());
      assertFalse(f.isDone());
      long delay = f.getDelay(TimeUnit.MINUTES);
      assertTrue(delay >= 58 && delay <= 60, "still due in an hour: " + delay);
      f.cancel(false);
      awaitCondition(() -> "none left: " + ex.stats(), LIVENESS_SECONDS,
          () -> ex.stats().pendingTimers() == 0);
    }
  }

  /**
   * A pending timer that its caller's own run() finished (a periodic task that threw, a one-shot
   * run early) never fires into anything: it does not hold termination up until its deadline (an
   * hour here). It did: shutdown's sweep cancels only what it can cancel, and the entry stayed
   * live in its heap.
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aTimerItsCallerFinishedDoesNotHoldUpTermination(boolean periodic) throws Exception {
    GmpExecutor ex = GmpExecutor.create(1);
    ScheduledFuture<?> f = periodic
        ? ex.scheduleAtFixedRate(() -> {
            throw new IllegalStateException("stop");
          }, 1, 1, TimeUnit.HOURS)
        : ex.schedule(() -> {}, 1, TimeUnit.HOURS);
    ((Runnable) f).run();
    assertTrue(f.isDone() && !f.isCancelled());
    ex.shutdown();
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS), ex.stats().toString());
    assertEquals(0, ex.stats().pendingTimers());
  }

  @Test
  void aDelayOfZeroOrLessRunsAtOnce() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(2))) {
      ScheduledFuture<String> a = c.ex().schedule(() -> "zero", 0, TimeUnit.SECONDS);
      ScheduledFuture<String> b = c.ex().schedule(() -> "negative", -5, TimeUnit.DAYS);
      assertEquals("zero", a.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      assertEquals("negative", b.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      assertTrue(a.getDelay(TimeUnit.NANOSECONDS) <= 0);
    }
  }

  /**
   * A negative delay is no delay, as ScheduledThreadPoolExecutor takes it: a fixed-rate task whose
   * first run was due 10 s ago runs once now and then at its rate (it ran 11 times at once), and
   * a delay near Long.MIN_VALUE does not wrap getDelay to the far future.
   */
  @Test
  void aNegativeDelayIsNoDelay() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(1))) {
      AtomicInteger runs = new AtomicInteger();
      CountDownLatch first = new CountDownLatch(1);
      ScheduledFuture<?> p = c.ex().scheduleAtFixedRate(() -> {
        runs.incrementAndGet();
        first.countDown();
      }, -10, 1, TimeUnit.DAYS);
      TestSupport.await(first, "the first run");
      // A catch-up run would be queued by the time this one has run.
      c.ex().submit(() -> {}).get(LIVENESS_SECONDS, TimeUnit.SECONDS);
      assertEquals(1, runs.get(), "runs of a task due 10 days ago, at a rate of 1 a day");
      assertTrue(p.getDelay(TimeUnit.HOURS) >= 23, "next run a day later: " + p);
      p.cancel(false);
      ScheduledFuture<String> f = c.ex().schedule(() -> "x", Long.MIN_VALUE, TimeUnit.NANOSECONDS);
      assertEquals("x", f.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      assertTrue(f.getDelay(TimeUnit.NANOSECONDS) <= 0, "due, not in the future: " + f);
    }
  }

  /**
   * ScheduledThreadPoolExecutor's rule: tasks scheduled for the same time start in the order
   * they were scheduled. A delay of zero from a task took runnext, so the last one ran first.
   */
  @Test
  void dueTimersScheduledFromATaskStartInTheOrderScheduled() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(1))) {
      List<Integer> order = java.util.Collections.synchronizedList(new ArrayList<>());
      c.ex().submit(() -> {
        for (int i = 0; i < 8; i++) {
          int id = i;
          c.ex().schedule(() -> order.add(id), i % 2 == 0 ? 0 : -1, TimeUnit.SECONDS);
        }
      }).get(LIVENESS_SECONDS, TimeUnit.SECONDS);
      c.ex().schedule(() -> {}, 0, TimeUnit.SECONDS).get(LIVENESS_SECONDS, TimeUnit.SECONDS);
      assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7), order);
    }
  }

  @Test
  void badArgumentsAreRejectedWithTheirNames() {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(1))) {
      GmpExecutor ex = c.ex();
      assertThrows(NullPointerException.class, () -> ex.schedule((Runnable) null, 1, TimeUnit.SECONDS));
      assertThrows(NullPointerException.class, () -> ex.schedule((Callable<?>) null, 1, TimeUnit.SECONDS));
      assertThrows(NullPointerException.class, () -> ex.schedule(NOOP, 1, null));
      assertThrows(NullPointerException.class, () -> ex.schedule(() -> 1, 1, null));
      assertThrows(NullPointerException.class, () -> ex.scheduleAtFixedRate(null, 1, 1, TimeUnit.SECONDS));
      assertThrows(NullPointerException.class, () -> ex.scheduleAtFixedRate(NOOP, 1, 1, null));
      assertThrows(NullPointerException.class, () -> ex.scheduleWithFixedDelay(null, 1, 1, TimeUnit.SECONDS));
      assertThrows(NullPointerException.class, () -> ex.scheduleWithFixedDelay(NOOP, 1, 1, null));
      IllegalArgumentException rate =
          assertThrows(IllegalArgumentException.class, () -> ex.scheduleAtFixedRate(NOOP, 1, 0, TimeUnit.SECONDS));
      assertTrue(rate.getMessage().contains("period"), rate.getMessage());
      assertThrows(IllegalArgumentException.class, () -> ex.scheduleAtFixedRate(NOOP, 1, -1, TimeUnit.SECONDS));
      IllegalArgumentException delay =
          assertThrows(IllegalArgumentException.class, () -> ex.scheduleWithFixedDelay(NOOP, 1, 0, TimeUnit.SECONDS));
      assertTrue(delay.getMessage().contains("delay"), delay.getMessage());
      assertThrows(IllegalArgumentException.class, () -> ex.scheduleWithFixedDelay(NOOP, 1, -3, TimeUnit.SECONDS));
      assertEquals(0, ex.stats().pendingTimers());
    }
  }

  /**
   * At parallelism 1 timers fire in deadline order, however they were scheduled. Each timer's
   * own deadline is read back (white box), so the check assumes nothing about how long
   * scheduling took; a round counts only if every timer was in the heap before the first
   * deadline (a scheduler descheduled between computing a deadline and adding the timer could
   * add one already overdue, for any executor) and no task lost its P to sysmon (which makes two
   * workers run timer tasks at once); up to five rounds are tried for that.
   */
  @Test
  void manyTimersFireInDeadlineOrderAtParallelismOne() throws Exception {
    for (boolean fromTask : new boolean[] {true, false}) {
      boolean checked = false;
      for (int round = 0; round < 5 && !checked; round++) {
        checked = deadlineOrderRound(fromTask, false);
      }
      assertTrue(checked, "fromTask=" + fromTask + ": no round scheduled all before the first fired");
    }
  }

  /**
   * The same at parallelism 2 with the other processor held by a task that never yields: the
   * timers a processor fires together keep deadline order, though its owner takes the Gs its own
   * tasks push newest first (RunQueue#popNewest, RunQueue#keepOrder).
   */
  @Test
  void timersFiredTogetherRunInDeadlineOrderBesideABusyProcessor() throws Exception {
    boolean checked = false;
    for (int round = 0; round < 5 && !checked; round++) {
      checked = deadlineOrderRound(true, true);
    }
    assertTrue(checked, "no round scheduled all before the first fired");
  }

  private static boolean deadlineOrderRound(boolean fromTask, boolean hog) throws Exception {
    int n = 300;
    AtomicBoolean stopHog = new AtomicBoolean();
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(hog ? 2 : 1))) {
      GmpExecutor ex = c.ex();
      try {
        if (hog) {
          TestSupport.hogAProcessor(ex, stopHog); // one worker runs the timer tasks
        }
        return deadlineOrderChecked(ex, n, fromTask);
      } finally {
        stopHog.set(true); // before the executor closes: the hog ignores interrupts
      }
    }
  }

  private static boolean deadlineOrderChecked(GmpExecutor ex, int n, boolean fromTask)
      throws Exception {
    ScheduledTask<?>[] timers = new ScheduledTask<?>[n];
    List<Integer> order = new ArrayList<>(); // written only by the one worker
    CountDownLatch done = new CountDownLatch(n);
    long[] scheduledBy = new long[1];
    CountDownLatch scheduled = new CountDownLatch(1);
    Runnable scheduleAll = () -> {
      for (int i = 0; i < n; i++) {
        int id = i;
        long delayMicros = 50_000 + ((i * 7919L) % n) * 50; // a permutation, 50 us apart
        timers[i] = (ScheduledTask<?>) ex.schedule(() -> {
          order.add(id);
          done.countDown();
        }, delayMicros, TimeUnit.MICROSECONDS);
      }
      scheduledBy[0] = Timers.now();
      scheduled.countDown();
    };
    if (fromTask) {
      ex.execute(scheduleAll);
    } else {
      scheduleAll.run();
    }
    TestSupport.await(scheduled, "scheduling");
    TestSupport.await(done, "all timers");
    long first = Long.MAX_VALUE;
    for (ScheduledTask<?> t : timers) {
      first = Math.min(first, t.when);
    }
    if (scheduledBy[0] >= first || ex.stats().retakes() != 0) {
      // Scheduling overran the first deadline, or a timer task stalled (descheduled on a busy
      // machine) long enough for sysmon to retake the P, so two Ms ran timer tasks side by
      // side: this round proves nothing about the firing order.
      return false;
    }
    for (int i = 1; i < n; i++) {
      ScheduledTask<?> a = timers[order.get(i - 1)];
      ScheduledTask<?> b = timers[order.get(i)];
      assertTrue(a.when <= b.when,
          "fromTask=" + fromTask + ": fired out of deadline order at " + i + ": " + order);
    }
    return true;
  }

  @Test
  void getDelayAndCompareToFollowTheDeadline() {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(1))) {
      ScheduledFuture<?> soon = c.ex().schedule(NOOP, 1, TimeUnit.HOURS);
      ScheduledFuture<?> later = c.ex().schedule(NOOP, 2, TimeUnit.HOURS);
      long d = soon.getDelay(TimeUnit.MINUTES);
      assertTrue(d > 50 && d <= 60, "delay " + d);
      assertTrue(soon.compareTo(later) < 0);
      assertTrue(later.compareTo(soon) > 0);
      assertEquals(0, soon.compareTo(soon));
      assertFalse(soon.isDone());
      soon.cancel(false);
      later.cancel(false);
    }
  }

  @Test
  void cancelBeforeItFiresMeansItNeverRunsAndGetThrows() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(2))) {
      AtomicInteger ran = new AtomicInteger();
      ScheduledFuture<?> f = c.ex().schedule(ran::incrementAndGet, 200, TimeUnit.MILLISECONDS);
      assertTrue(f.cancel(false));
      assertTrue(f.isCancelled());
      assertTrue(f.isDone());
      assertThrows(CancellationException.class, f::get);
      // A later timer firing proves the executor went past the cancelled one's deadline.
      c.ex().schedule(NOOP, 300, TimeUnit.MILLISECONDS).get(LIVENESS_SECONDS, TimeUnit.SECONDS);
      assertEquals(0, ran.get());
      assertEquals(1, c.ex().stats().cancelledTimers());
    }
  }

  @Test
  void aPeriodicTaskThatThrowsStopsAndItsFutureCompletesExceptionally() throws Exception {
    for (boolean fixedRate : new boolean[] {true, false}) {
      try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(2))) {
        AtomicInteger runs = new AtomicInteger();
        Runnable r = () -> {
          if (runs.incrementAndGet() == 3) {
            throw new IllegalStateException("third run");
          }
        };
        ScheduledFuture<?> f = fixedRate
            ? c.ex().scheduleAtFixedRate(r, 1, 1, TimeUnit.MILLISECONDS)
            : c.ex().scheduleWithFixedDelay(r, 1, 1, TimeUnit.MILLISECONDS);
        ExecutionException e =
            assertThrows(ExecutionException.class, () -> f.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertTrue(f.isDone());
        assertFalse(f.isCancelled());
        // Another timer well past the next period: the failed task must not have run again.
        c.ex().schedule(NOOP, 30, TimeUnit.MILLISECONDS).get(LIVENESS_SECONDS, TimeUnit.SECONDS);
        assertEquals(3, runs.get());
        assertEquals(0, c.ex().stats().pendingTimers());
      }
    }
  }

  /** A run longer than the period: runs queue up behind each other, never side by side. */
  @Test
  void aPeriodicTaskNeverRunsConcurrentlyWithItself() throws Exception {
    for (boolean fixedRate : new boolean[] {true, false}) {
      try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(4))) {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        CountDownLatch runs = new CountDownLatch(20);
        Runnable r = () -> {
          if (inside.incrementAndGet() != 1) {
            overlaps.incrementAndGet();
          }
          long end = System.nanoTime() + 2_000_000; // busy 2 ms, period 100 us
          while (System.nanoTime() < end) {
            Thread.onSpinWait();
          }
          inside.decrementAndGet();
          runs.countDown();
        };
        ScheduledFuture<?> f = fixedRate
            ? c.ex().scheduleAtFixedRate(r, 0, 100, TimeUnit.MICROSECONDS)
            : c.ex().scheduleWithFixedDelay(r, 0, 100, TimeUnit.MICROSECONDS);
        TestSupport.await(runs, "20 runs");
        f.cancel(false);
        assertEquals(0, overlaps.get(), "fixedRate=" + fixedRate);
      }
    }
  }

  /**
   * Fixed rate: each scheduled time is the previous plus the period, however long a run takes.
   * Fixed delay: each is at least the delay after the previous run ended. Read off the timer's
   * own deadline inside each run (white box), so no wall-clock bound is needed.
   */
  @Test
  void fixedRateCountsFromTheScheduleFixedDelayFromTheEndOfARun() throws Exception {
    long period = TimeUnit.MILLISECONDS.toNanos(2);
    for (boolean fixedRate : new boolean[] {true, false}) {
      try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(2))) {
        long[] when = new long[8];
        long[] ended = new long[8];
        AtomicInteger k = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(1);
        AtomicReference<ScheduledTask<?>> self = new AtomicReference<>();
        Runnable r = () -> {
          ScheduledTask<?> t;
          while ((t = self.get()) == null) {
            Thread.onSpinWait(); // the first run may start before schedule returns
          }
          int i = k.getAndIncrement();
          if (i >= when.length) {
            t.cancel(false);
            done.countDown();
            return;
          }
          when[i] = t.when;
          long end = System.nanoTime() + 3_000_000; // longer than the period
          while (System.nanoTime() < end) {
            Thread.onSpinWait();
          }
          ended[i] = Timers.now();
        };
        ScheduledFuture<?> f = fixedRate
            ? c.ex().scheduleAtFixedRate(r, 1, period, TimeUnit.NANOSECONDS)
            : c.ex().scheduleWithFixedDelay(r, 1, period, TimeUnit.NANOSECONDS);
        self.set((ScheduledTask<?>) f);
        TestSupport.await(done, "the runs");
        for (int i = 1; i < when.length; i++) {
          if (fixedRate) {
            assertEquals(when[i - 1] + period, when[i], "run " + i);
          } else {
            assertTrue(when[i] >= ended[i - 1] + period, "run " + i + " rescheduled too early");
          }
        }
      }
    }
  }

  @Test
  void afterShutdownNewTimersAreRejectedFromOutsideAndFromTasks() throws Exception {
    GmpExecutor ex = GmpExecutor.create(2);
    CountDownLatch inTask = new CountDownLatch(1);
    CountDownLatch shut = new CountDownLatch(1);
    AtomicReference<Throwable> fromTask = new AtomicReference<>();
    ex.execute(() -> {
      inTask.countDown();
      try {
        shut.await();
        ex.schedule(NOOP, 1, TimeUnit.SECONDS);
      } catch (Throwable e) {
        fromTask.set(e);
      }
    });
    TestSupport.await(inTask, "task started");
    ex.shutdown();
    shut.countDown();
    assertThrows(java.util.concurrent.RejectedExecutionException.class,
        () -> ex.schedule(NOOP, 1, TimeUnit.SECONDS));
    assertThrows(java.util.concurrent.RejectedExecutionException.class,
        () -> ex.scheduleAtFixedRate(NOOP, 1, 1, TimeUnit.SECONDS));
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertInstanceOf(java.util.concurrent.RejectedExecutionException.class, fromTask.get());
  }

  @Test
  void shutdownRunsDelayedOneShotsCancelsPeriodicThenTerminates() throws Exception {
    GmpExecutor ex = GmpExecutor.create(2);
    AtomicInteger periodicRuns = new AtomicInteger();
    CountDownLatch periodicStarted = new CountDownLatch(1);
    ScheduledFuture<?> periodic = ex.scheduleAtFixedRate(() -> {
      periodicRuns.incrementAndGet();
      periodicStarted.countDown();
    }, 0, 1, TimeUnit.MILLISECONDS);
    ScheduledFuture<String> outside = ex.schedule(() -> "outside", 100, TimeUnit.MILLISECONDS);
    ScheduledFuture<?> inner = ex.submit(() -> ex.schedule(() -> "inside", 150, TimeUnit.MILLISECONDS))
        .get(LIVENESS_SECONDS, TimeUnit.SECONDS);
    TestSupport.await(periodicStarted, "periodic ran once");
    ex.shutdown();
    assertTrue(ex.isShutdown());
    assertTrue(periodic.isCancelled() || awaitCancelled(periodic));
    assertEquals("outside", outside.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertEquals("inside", inner.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
    int runs = periodicRuns.get();
    assertTrue(periodic.isCancelled());
    assertEquals(runs, periodicRuns.get());
  }

  /** A periodic run in flight at shutdown is cancelled when it would be re-armed. */
  private static boolean awaitCancelled(ScheduledFuture<?> f) {
    awaitCondition("periodic task cancelled by shutdown", f::isCancelled);
    return true;
  }

  @Test
  void shutdownNowReturnsPendingDelayedTasksAndAcceptedEqualsRanPlusReturned() throws Exception {
    GmpExecutor ex = GmpExecutor.create(2);
    AtomicInteger ran = new AtomicInteger();
    List<ScheduledFuture<?>> far = new ArrayList<>();
    int accepted = 0;
    for (int i = 0; i < 50; i++) {
      far.add(ex.schedule(ran::incrementAndGet, 1, TimeUnit.HOURS));
      ex.schedule(ran::incrementAndGet, 0, TimeUnit.SECONDS);
      accepted += 2;
    }
    ScheduledFuture<?> farFromTask = ex.submit(() -> ex.schedule(ran::incrementAndGet, 1, TimeUnit.HOURS))
        .get(LIVENESS_SECONDS, TimeUnit.SECONDS);
    accepted++;
    List<Runnable> returned = ex.shutdownNow();
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
    for (ScheduledFuture<?> f : far) {
      assertTrue(returned.contains(f), "pending delayed task not returned");
    }
    assertTrue(returned.contains(farFromTask), "pending timer of a P's heap not returned");
    assertEquals(accepted, ran.get() + returned.size());
    assertEquals(0, ex.stats().pendingTimers());
  }

  @Test
  void timersFireWhileEveryWorkerIsParked() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(2))) {
      GmpExecutor ex = c.ex();
      ex.submit(NOOP).get(); // start the workers
      awaitAllParked(ex);
      assertEquals("outside", ex.schedule(() -> "outside", 20, TimeUnit.MILLISECONDS)
          .get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      // From a task that then ends: its M parks too, and the timer still fires.
      ScheduledFuture<String> f = ex.submit(() -> ex.schedule(() -> "inside", 30, TimeUnit.MILLISECONDS))
          .get(LIVENESS_SECONDS, TimeUnit.SECONDS);
      assertEquals("inside", f.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    }
  }

  /**
   * The timer sleeper woken for outside work hands its role on: a pending timer fires while the
   * woken M runs a long task and the other P idles. The sleeper was woken as the counted spinner,
   * so its hand-on (a wakep) started nobody, and the timer waited for sysmon's next look, up to
   * its 1 s deep sleep (a probe: 750-770 ms late where ForkJoinPool and STPE were 0-5 ms). Here
   * there is no sysmon: without the hand-on the long task waits for the timer for good.
   */
  @Test
  void aTimerFiresWhileTheSleeperItsWakeTookRunsALongTask() throws Exception {
    GmpExecutor ex = new GmpExecutor(GmpExecutor.builder().parallelism(2).config(), false);
    try {
      CountDownLatch fired = new CountDownLatch(1);
      ScheduledFuture<?> timer = ex.schedule(fired::countDown, 100, TimeUnit.MILLISECONDS);
      // The first M starts for the timer, finds nothing to run and parks as its sleeper.
      awaitCondition("the only M sleeps for the timer", () -> {
        M holder = ex.sched.timers.sleeper.holder;
        return holder != null && ex.stats().threads() == 1 && !timer.isDone();
      });
      Future<Boolean> longTask = ex.submit(() -> { // wakes the sleeper, the only idle M
        return fired.await(LIVENESS_SECONDS, TimeUnit.SECONDS); // on the CPU for good otherwise
      });
      assertTrue(longTask.get(2 * LIVENESS_SECONDS, TimeUnit.SECONDS), "the timer fired meanwhile");
    } finally {
      TestSupport.terminate(ex);
    }
  }

  /**
   * The sleeper takes an idle P to fire a due timer, giving its role up; a later timer is still
   * pending. Someone must sleep for it while the fired task runs: here the other P idles, so an
   * M that takes that P. Before, nobody did: the later timer waited until the fired task ended
   * (43-326 ms late after a 1 s task, p=2 and 4). No sysmon here: without the hand-on the first
   * task waits for the second timer for good.
   */
  @Test
  void aTimerPendingWhenTheSleeperTakesAProcessorForAnotherStillFires() throws Exception {
    GmpExecutor ex = new GmpExecutor(GmpExecutor.builder().parallelism(2).config(), false);
    try {
      CountDownLatch secondFired = new CountDownLatch(1);
      ScheduledFuture<Boolean> first = ex.schedule(
          () -> secondFired.await(LIVENESS_SECONDS, TimeUnit.SECONDS), 50, TimeUnit.MILLISECONDS);
      ex.schedule(secondFired::countDown, 100, TimeUnit.MILLISECONDS);
      assertTrue(first.get(2 * LIVENESS_SECONDS, TimeUnit.SECONDS),
          "the second timer fired while the first one's task ran: " + ex.dump());
    } finally {
      TestSupport.terminate(ex);
    }
  }

  /**
   * The same at parallelism 1, where no P idles: the fired task holds the only P, and if it
   * blocks unmarked, only sysmon can hand that P on for the pending timer, so the fire ends
   * sysmon's deep sleep. Before, sysmon slept on: a second timer due while the first one's task
   * slept 1 s unmarked came 0.4-0.9 s late (a user's check). Driven by sysmon's own state.
   */
  @Test
  void aTimerPendingWhenTheSleeperTakesTheOnlyProcessorEndsSysmonsDeepSleep() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(1))) {
      GmpExecutor ex = c.ex();
      TestSupport.startThenAwaitSysmonDeepSleep(ex);
      ScheduledFuture<Boolean> first =
          ex.schedule(() -> ex.sched.sysmon.waiting, 50, TimeUnit.MILLISECONDS);
      ScheduledFuture<?> second = ex.schedule(() -> {}, 1, TimeUnit.HOURS);
      assertFalse(first.get(LIVENESS_SECONDS, TimeUnit.SECONDS),
          "sysmon awake while the first timer's task ran, the second pending");
      second.cancel(false);
    }
  }

  /**
   * The sleeper woken for outside work gives its role up; when the work takes every P (one task
   * per P, here each on a latch, as a task blocked unmarked), the pending timer can only be
   * reached through sysmon, so the last P's taking ends sysmon's deep sleep: at parallelism 1 the
   * sleeper's own wake (its hand-on), at 2 the spinner that takes the second task. Before, sysmon
   * slept on, and a timer due while such tasks slept came up to its deep sleep's second late
   * (300-400 ms in half of the rounds of a user's check). Driven by sysmon's own state.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void outsideWorkTakingEveryProcessorFromThePendingTimersSleeperEndsSysmonsDeepSleep(
      int parallelism) throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(parallelism))) {
      GmpExecutor ex = c.ex();
      if (parallelism == 2) {
        TestSupport.runTwoAtOnce(ex); // both Ms made: no thread start (which wakes sysmon) below
      }
      ScheduledFuture<?> pending = ex.schedule(() -> {}, 1, TimeUnit.HOURS);
      awaitCondition(() -> "a sleeper for the timer, sysmon in its deep sleep: " + ex.dump(),
          LIVENESS_SECONDS,
          () -> ex.sched.timers.sleeper.holder != null && ex.sched.sysmon.waiting
              && ex.stats().idleProcessors() == parallelism);
      CountDownLatch allStarted = new CountDownLatch(parallelism);
      CountDownLatch release = new CountDownLatch(1);
      AtomicInteger sawSysmonAsleep = new AtomicInteger();
      List<Future<?>> tasks = new ArrayList<>();
      for (int i = 0; i < parallelism; i++) {
        tasks.add(ex.submit(() -> {
          allStarted.countDown();
          allStarted.await(LIVENESS_SECONDS, TimeUnit.SECONDS); // every P taken
          if (ex.sched.sysmon.waiting) {
            sawSysmonAsleep.incrementAndGet();
          }
          return release.await(LIVENESS_SECONDS, TimeUnit.SECONDS);
        }));
      }
      TestSupport.await(allStarted, "every P runs one of the tasks");
      release.countDown();
      for (Future<?> f : tasks) {
        f.get(LIVENESS_SECONDS, TimeUnit.SECONDS);
      }
      assertEquals(0, sawSysmonAsleep.get(), "tasks that saw sysmon in its deep sleep");
      pending.cancel(false);
    }
  }

  /**
   * A task that waits, unmarked, on a timer of its own executor whose every P such tasks hold: the
   * timer is due on a P whose task is off the CPU, so sysmon hands that P on. It used to count
   * only queued tasks as work waiting, so the timer never fired and the waits never ended
   * (ForkJoinPool: fired after 52 ms).
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void aTaskWaitingUnmarkedOnItsOwnExecutorsTimerGetsIt(int parallelism) throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(parallelism))) {
      GmpExecutor ex = c.ex();
      for (boolean join : new boolean[] {false, true}) {
        List<Future<String>> waits = new ArrayList<>();
        for (int i = 0; i < parallelism; i++) { // one per P: nothing else is queued
          waits.add(ex.submit(() -> {
            if (!join) {
              return ex.schedule(() -> "fired", 50, TimeUnit.MILLISECONDS).get();
            }
            CompletableFuture<String> cf = new CompletableFuture<>();
            ex.schedule(() -> cf.complete("fired"), 50, TimeUnit.MILLISECONDS); // a timeout
            return cf.join();
          }));
        }
        for (Future<String> w : waits) {
          assertEquals("fired", w.get(LIVENESS_SECONDS, TimeUnit.SECONDS), "join " + join);
        }
      }
    }
  }

  private static void awaitAllParked(GmpExecutor ex) {
    awaitCondition(() -> "every worker parked: " + ex.stats(), LIVENESS_SECONDS, () -> {
      GmpStats st = ex.stats();
      return st.idleProcessors() == st.parallelism() && st.idleThreads() == st.threads();
    });
  }

  /** 200k timers from 8 tasks on 4 Ps, random delays: each fires exactly once. */
  @Test
  void twoHundredThousandTimersFromManyProcessorsEachFireOnce() throws Exception {
    int tasks = 8;
    int per = 25_000;
    int n = tasks * per;
    java.util.concurrent.atomic.AtomicIntegerArray fired = new java.util.concurrent.atomic.AtomicIntegerArray(n);
    CountDownLatch done = new CountDownLatch(n);
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(4))) {
      GmpExecutor ex = c.ex();
      for (int t = 0; t < tasks; t++) {
        int base = t * per;
        ex.execute(() -> {
          java.util.SplittableRandom rnd = new java.util.SplittableRandom(base);
          for (int i = 0; i < per; i++) {
            int id = base + i;
            ex.schedule(() -> {
              fired.incrementAndGet(id);
              done.countDown();
            }, rnd.nextInt(1, 50_000), TimeUnit.MICROSECONDS);
          }
        });
      }
      assertTrue(done.await(60, TimeUnit.SECONDS), "timers left: " + done.getCount() + " " + ex.stats());
      for (int i = 0; i < n; i++) {
        assertEquals(1, fired.get(i), "timer " + i);
      }
      awaitCondition("fired count", () -> ex.stats().firedTimers() == n);
      assertEquals(0, ex.stats().pendingTimers());
    }
  }

  /** Timers on Ps that a shrink retires move to a live P (Go's moveTimers) and still fire. */
  @Test
  void timersSurviveAParallelismShrink() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(4))) {
      GmpExecutor ex = c.ex();
      java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(4);
      CountDownLatch done = new CountDownLatch(40);
      CountDownLatch armed = new CountDownLatch(4);
      for (int t = 0; t < 4; t++) {
        ex.execute(() -> {
          try {
            together.await(); // four tasks at once: one on each P
          } catch (Exception e) {
            throw new AssertionError(e);
          }
          for (int i = 0; i < 10; i++) {
            ex.schedule(done::countDown, 300, TimeUnit.MILLISECONDS);
          }
          armed.countDown();
        });
      }
      TestSupport.await(armed, "timers armed");
      for (P p : ex.sched.procs.all) {
        assertEquals(10, p.timers.size(), "each P holds its task's timers");
      }
      ex.setParallelism(1);
      assertEquals(40, ex.sched.procs.all[0].timers.size() + firedSoFar(ex));
      TestSupport.await(done, "every timer fired after the shrink");
      assertEquals(0, ex.stats().pendingTimers());
    }
  }

  private static int firedSoFar(GmpExecutor ex) {
    return (int) ex.stats().firedTimers();
  }

  /** The timeout pattern: schedule, cancel at once, 200k times; nothing stays behind. */
  @Test
  void cancelledTimersAreReleasedAndHeapsStayBounded() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(2))) {
      GmpExecutor ex = c.ex();
      int n = 200_000;
      CountDownLatch done = new CountDownLatch(4);
      for (int t = 0; t < 4; t++) {
        ex.execute(() -> {
          for (int i = 0; i < n / 4; i++) {
            ex.schedule(NOOP, 1, TimeUnit.HOURS).cancel(false);
          }
          done.countDown();
        });
      }
      TestSupport.await(done, "schedule+cancel");
      int held = 0;
      for (P p : ex.sched.procs.all) {
        held += p.timers.size();
      }
      assertTrue(held <= 2 * (TimerHeap.MIN_COMPACT + 1), "cancelled entries kept: " + held);
      assertEquals(0, ex.stats().pendingTimers());
      assertEquals(n, ex.stats().cancelledTimers());

      // The task a cancelled timer held is unreachable at once, though the future is not.
      List<java.lang.ref.WeakReference<Object>> ref = new ArrayList<>();
      ScheduledFuture<?> f = scheduleHolding(ex, ref);
      f.cancel(false);
      awaitCondition("the cancelled timer's task collected", () -> {
        System.gc();
        return ref.get(0).get() == null;
      });
      assertTrue(f.isCancelled());
    }
  }

  private static ScheduledFuture<?> scheduleHolding(
      GmpExecutor ex, List<java.lang.ref.WeakReference<Object>> ref) {
    byte[] big = new byte[1 << 20];
    ref.add(new java.lang.ref.WeakReference<>(big));
    return ex.schedule(() -> big.hashCode(), 1, TimeUnit.HOURS);
  }

  @Test
  void aTaskDecoratorWrapsScheduledRunnablesOnceWhenScheduled() throws Exception {
    AtomicInteger wrapped = new AtomicInteger();
    AtomicInteger decoratedRuns = new AtomicInteger();
    GmpExecutor ex = GmpExecutor.builder().parallelism(2).taskDecorator(r -> {
      wrapped.incrementAndGet();
      return () -> {
        decoratedRuns.incrementAndGet();
        r.run();
      };
    }).build();
    try (TestSupport.Closer c = TestSupport.closer(ex)) {
      CountDownLatch three = new CountDownLatch(3);
      ScheduledFuture<?> p = ex.scheduleWithFixedDelay(three::countDown, 0, 1, TimeUnit.MILLISECONDS);
      TestSupport.await(three, "three periodic runs");
      p.cancel(false);
      ex.schedule(() -> {}, 1, TimeUnit.MILLISECONDS).get(LIVENESS_SECONDS, TimeUnit.SECONDS);
      assertEquals(2, wrapped.get(), "one wrap per scheduled Runnable, not per run");
      assertTrue(decoratedRuns.get() >= 4, "every run goes through the wrapper: " + decoratedRuns);
      assertEquals("v", ex.schedule(() -> "v", 1, TimeUnit.MILLISECONDS).get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      assertEquals(3, wrapped.get(), "schedule(Callable) is decorated too, once");
    }
  }

  @Test
  void theDumpShowsEachProcessorsPendingTimers() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(1))) {
      GmpExecutor ex = c.ex();
      ScheduledFuture<?> f = ex.submit(() -> ex.schedule(NOOP, 1, TimeUnit.HOURS)).get();
      assertTrue(ex.dump().contains(" timers=1"), ex.dump());
      f.cancel(false);
      assertTrue(ex.dump().contains(" timers=0"), ex.dump());
    }
  }

  @Test
  void statsCountPendingFiredAndCancelledTimers() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(2))) {
      GmpExecutor ex = c.ex();
      ScheduledFuture<?> a = ex.submit(() -> ex.schedule(NOOP, 1, TimeUnit.HOURS)).get();
      ScheduledFuture<?> b = ex.submit(() -> ex.schedule(NOOP, 1, TimeUnit.HOURS)).get();
      assertEquals(2, ex.stats().pendingTimers());
      ex.schedule(NOOP, 1, TimeUnit.MILLISECONDS).get(LIVENESS_SECONDS, TimeUnit.SECONDS);
      a.cancel(false);
      GmpStats st = ex.stats();
      assertEquals(1, st.pendingTimers());
      assertEquals(1, st.firedTimers());
      assertEquals(1, st.cancelledTimers());
      b.cancel(false);
    }
  }
  /**
   * A timer added while every P is busy ends sysmon's deep sleep: the task that added it may
   * wait for it unmarked (schedule(...).get()), and only sysmon's retake can then free the P the
   * timer needs. Before, sysmon slept on through the start of a task after an idle period, and
   * such a get() of a 50 ms timer took 0.5-1 s (a user's check at parallelism 1). Driven by
   * sysmon's own state, no timing: asleep before the task, awake right after its schedule().
   */
  @Test
  void aTimerAddedWhileEveryProcessorIsBusyWakesSysmon() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(1))) {
      GmpExecutor ex = c.ex();
      TestSupport.startThenAwaitSysmonDeepSleep(ex);
      AtomicBoolean asleepAfter = new AtomicBoolean(true);
      ex.submit(() -> {
        ScheduledFuture<?> t = ex.schedule(() -> {}, 1, TimeUnit.HOURS); // no sleeper: one M
        asleepAfter.set(ex.sched.sysmon.waiting);
        t.cancel(false);
      }).get(LIVENESS_SECONDS, TimeUnit.SECONDS);
      assertFalse(asleepAfter.get(), "the timer's add ended sysmon's deep sleep");
    }
  }
}
