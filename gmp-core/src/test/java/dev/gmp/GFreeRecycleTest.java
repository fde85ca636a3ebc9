package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * With gFree (-Dgmp.gfree=true, the "gfree" surefire execution) a finished task's G object
 * carries the next task. sysmon must not mistake the new task for the old one: here sysmon has
 * decided that task A held its P for a slice and waits for the lock to retake it; meanwhile A
 * ends and task B starts in A's recycled G. Comparing only (M, curg) retook B, which had just
 * started. Driven step by step: no sysmon thread, the test calls Sysmon#retake itself.
 */
class GFreeRecycleTest {

  @Test
  void aFreshTaskInARecycledGIsNotRetakenForItsPredecessor() throws Exception {
    Duration slice = Duration.ofMillis(10);
    GmpExecutor ex =
        new GmpExecutor(
            GmpExecutor.builder().parallelism(1).name("gfree").timeSlice(slice).config(), false);
    Scheduler s = ex.sched;
    CountDownLatch aBlocked = new CountDownLatch(1);
    CountDownLatch releaseA = new CountDownLatch(1);
    CountDownLatch bStarted = new CountDownLatch(1);
    CountDownLatch releaseB = new CountDownLatch(1);
    AtomicReference<G> gOfA = new AtomicReference<>();
    AtomicReference<Thread> threadOfA = new AtomicReference<>();
    AtomicReference<G> gOfB = new AtomicReference<>();
    Runnable b = () -> {
      gOfB.set(ThreadTable.currentM().curg());
      bStarted.countDown();
      await(releaseB);
    };
    Runnable c = () -> ex.execute(b); // runs after A: with gFree, B gets A's G
    ex.execute(() -> {
      gOfA.set(ThreadTable.currentM().curg());
      threadOfA.set(Thread.currentThread());
      ex.execute(c); // waits in runnext: work that only another P could take
      aBlocked.countDown();
      await(releaseA);
    });
    TestSupport.await(aBlocked, "A runs");
    // A waiting at sysmon's first look too, so that the detector's verdict at the next round is
    // certain (a first look at A still running left only the slice rule, a round later).
    TestSupport.awaitCondition("A waits", () -> threadOfA.get().getState() == Thread.State.WAITING);
    long t0 = System.nanoTime();
    s.sysmon.retake(t0); // first sight of A
    long tRetake = t0 + 2 * slice.toNanos();
    if (!Switches.BLOCK_DETECT) {
      // Without the detector the slice rule acts: it samples A's CPU clock at its first look past
      // the slice and retakes at a look a slice later (SysmonRetake#offCpuSince).
      s.procs.all[0].sysmonSchedtick = -1; // no preemption request (below)
      s.sysmon.retake(t0 + slice.toNanos());
      tRetake = t0 + 3 * slice.toNanos();
    }
    long driven = tRetake;
    // Keep this test about the retake: sysmon's preemption request would make the M demote C to
    // the global queue, which needs the lock held below. (sysmonSchedtick is sysmon's own view.)
    s.procs.all[0].sysmonSchedtick = -1;
    Thread sysmon;
    s.lock.lock();
    try {
      // sysmon's next round: A has held the P for a slice; it blocks on the lock to retake it.
      sysmon = new Thread(() -> s.sysmon.retake(driven), "driven-sysmon");
      sysmon.start();
      TestSupport.awaitCondition("sysmon waits for the lock", () -> s.lock.hasQueuedThread(sysmon));
      releaseA.countDown(); // A ends, C runs, B starts (in A's G with gFree), all without the lock
      TestSupport.await(bStarted, "B runs");
    } finally {
      s.lock.unlock();
    }
    sysmon.join(LIVENESS_SECONDS * 1000);
    if (Switches.GFREE) {
      assertSame(gOfA.get(), gOfB.get(), "gFree recycled A's G for B (the case under test)");
    }
    assertEquals(0, ex.stats().retakes(), "B just started: not retaken for A's slice");
    releaseB.countDown();
    TestSupport.terminate(ex);
  }

  private static void await(CountDownLatch l) {
    try {
      l.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
