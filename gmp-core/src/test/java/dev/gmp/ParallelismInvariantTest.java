package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Go's one invariant: at most parallelism threads run task code on a CPU at once. A task that
 * runs on a CPU keeps its P; sysmon's time slice only asks for a preemption (which the JVM
 * cannot do), it never hands the P of a running task to another thread.
 */
class ParallelismInvariantTest {
  @Test
  void cpuBoundTasksNeverRunOnMoreThreadsThanParallelism() throws Exception {
    int p = 2;
    int tasks = 12;
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(tasks + 1); // + the warm-up run below
    Runnable cpu = () -> {
      int now = running.incrementAndGet();
      for (int m = most.get(); m < now && !most.compareAndSet(m, now); m = most.get()) {
        // a plain CAS loop: no lambda to link (a cold JVM's first linkage waits on a lock,
        // and a task that waits is, rightly, one whose processor may be handed on)
      }
      long end = System.nanoTime() + 30_000_000;
      long x = 0;
      while (System.nanoTime() < end) {
        x += x * 31 + 7; // CPU work, never blocking
      }
      if (x == 42) {
        System.out.print("");
      }
      running.decrementAndGet();
      done.countDown();
    };
    cpu.run(); // warm: the body's classes are loaded and linked before any worker runs it
    most.set(0);
    CountDownLatch warm = new CountDownLatch(p);
    // A 1 ms slice: each task outlives many slices while others wait behind it.
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().parallelism(p)
        .timeSlice(Duration.ofMillis(1)).build())) {
      GmpExecutor ex = c.ex();
      for (int i = 0; i < p; i++) {
        ex.execute(warm::countDown); // the executor's own paths warm too
      }
      TestSupport.await(warm, "warm-up tasks ran");
      for (int i = 0; i < tasks; i++) {
        ex.execute(cpu);
      }
      TestSupport.await(done, () -> "all tasks ran: " + ex.dump());
      // No P is ever taken from a task for running: every retake must be the detector's verdict
      // that a thread was off the CPU (in a cold, loaded JVM a task's thread can wait a moment
      // for class loading or linkage, and then its P rightly goes on; it finishes as a spare).
      long blockRetakes = ex.sched.counters.blockRetakes.sum();
      GmpStats st = ex.stats();
      assertEquals(blockRetakes, st.retakes(), "no P taken from a running task: " + ex.dump());
      assertTrue(most.get() <= p + blockRetakes, "at most " + p + " CPU-bound tasks at once (plus "
          + blockRetakes + " found off the CPU), saw " + most.get() + ": " + ex.dump());
      assertTrue(st.peakThreads() <= p + 1 + blockRetakes,
          "no thread started for a running task: " + st);
    }
  }

  @Test
  void aTaskOffTheCpuStillGivesItsProcessorAway() throws Exception {
    // The other half of the rule: a task blocked without saying so loses its P to queued work.
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().parallelism(1)
        .timeSlice(Duration.ofMillis(1)).build())) {
      GmpExecutor ex = c.ex();
      CountDownLatch release = new CountDownLatch(1);
      CountDownLatch blocked = new CountDownLatch(1);
      ex.execute(() -> {
        blocked.countDown();
        try {
          release.await(); // unmarked blocking: only the task behind it releases it
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      TestSupport.await(blocked, "the first task blocks");
      ex.execute(release::countDown);
      TestSupport.await(release, () -> "the queued task ran beside the blocked one: " + ex.dump());
    }
  }
}
