package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** sysmon survives its environment: interrupts, a round that throws, and idle periods. */
class SysmonRobustnessTest {
  @Test
  void anInterruptedSysmonKeepsSleeping() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(2))) {
      GmpExecutor ex = c.ex();
      TestSupport.startThenAwaitSysmonDeepSleep(ex);
      Thread sysmon = ex.sched.sysmon.thread();
      long before = ex.sched.counters.sysmonWakeups;
      for (int i = 0; i < 5; i++) {
        sysmon.interrupt();
      }
      TestSupport.awaitCondition("sysmon cleared its interrupt", () -> !sysmon.isInterrupted());
      TestSupport.sleepQuietly(300); // a window to count rounds in, not a synchronisation
      long rounds = ex.sched.counters.sysmonWakeups - before;
      // Parked in its deep sleep: a few rounds at most. An interrupt left set ends every park at
      // once: tens of thousands of rounds in the window, however busy the machine is.
      assertTrue(rounds < 100, "sysmon rounds in 300 ms after interrupts: " + rounds);
      assertTrue(sysmon.isAlive());
      assertEquals(2, ex.submit(() -> 2).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
    }
  }

  @Test
  void interruptingEveryThreadLeavesAWorkingExecutor() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().parallelism(2)
        .name("interrupted").build())) {
      GmpExecutor ex = c.ex();
      CountDownLatch warm = new CountDownLatch(20);
      for (int i = 0; i < 20; i++) {
        ex.execute(warm::countDown);
      }
      TestSupport.await(warm, "warm-up");
      for (Thread t : Thread.getAllStackTraces().keySet()) {
        if (t.getName().startsWith("interrupted-")) {
          t.interrupt(); // as ThreadGroup.interrupt or a container's leaked-thread cleanup does
        }
      }
      // A task that blocks without saying so still loses its P: the detector's /proc reads work.
      CountDownLatch release = new CountDownLatch(1);
      AtomicBoolean interruptedTask = new AtomicBoolean();
      ex.execute(() -> {
        try {
          release.await();
        } catch (InterruptedException e) {
          interruptedTask.set(true);
        }
      });
      ex.execute(() -> {
        try {
          release.await();
        } catch (InterruptedException e) {
          interruptedTask.set(true);
        }
      });
      ex.execute(release::countDown);
      TestSupport.await(release, () -> "the releasing task ran: " + ex.dump());
      assertFalse(interruptedTask.get(), "a stale interrupt reached a later task");
    }
  }

  @Test
  void aRoundThatThrowsIsReportedAndSysmonGoesOn() throws Exception {
    ConcurrentLinkedQueue<Throwable> reported = new ConcurrentLinkedQueue<>();
    AtomicInteger calls = new AtomicInteger();
    GmpExecutor.Builder b = GmpExecutor.builder()
        .uncaughtExceptionHandler((t, e) -> reported.add(e))
        .availableProcessors(() -> {
          if (calls.incrementAndGet() == 2) { // build() reads it once; sysmon's first look throws
            throw new AssertionError("a round that throws");
          }
          return 2;
        });
    try (TestSupport.Closer c = TestSupport.closer(b.build())) {
      GmpExecutor ex = c.ex();
      ex.submit(() -> 1).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
      TestSupport.awaitCondition("the failure was reported", () -> !reported.isEmpty());
      assertEquals("a round that throws", reported.peek().getMessage());
      long rounds = ex.sched.counters.sysmonWakeups;
      assertTrue(ex.sched.sysmon.thread().isAlive(), "sysmon survived the round");
      // Still at work: it retakes the P of a task blocked without saying so.
      CountDownLatch release = new CountDownLatch(1);
      ex.setParallelism(1);
      ex.execute(() -> {
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      ex.execute(release::countDown);
      TestSupport.await(release, "sysmon retook the blocked task's P");
      assertTrue(ex.sched.counters.sysmonWakeups > rounds);
    }
  }

  /**
   * After an idle period sysmon sleeps until work waits that no idle P can take. A task that
   * blocks without saying so at parallelism 1 holds the only P: the task queued behind it finds
   * no idle P, and its wakep must wake sysmon, the blocked task's only witness, which retakes the
   * P for it. (A task that merely starts after the idle period does not wake sysmon.)
   */
  @Test
  void aTaskBlockedAfterAnIdlePeriodIsRetakenForTheTaskBehindIt() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(1))) {
      GmpExecutor ex = c.ex();
      TestSupport.startThenAwaitSysmonDeepSleep(ex);
      CountDownLatch blocked = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      ex.execute(() -> {
        blocked.countDown();
        try {
          release.await(); // blocks unmarked; only the task queued behind releases it
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      TestSupport.await(blocked, "the first task started");
      ex.execute(release::countDown);
      TestSupport.await(release, () -> "the queued task ran: " + ex.dump());
      assertTrue(ex.stats().retakes() >= 1, () -> "the blocked task's P was retaken: " + ex.stats());
    }
  }
}
