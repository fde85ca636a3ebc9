package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * What a thread holds only in a local variable when an Error ends its step (the JVM can raise
 * one anywhere while the heap is full) is given back, not lost: a P taken and not yet placed
 * (P#heldBy, Idle#reclaimHeldLocked), a G taken and not yet started (SchedulingLoop#notStarted).
 * The Error itself cannot be made to land there on demand (every Throwable of a task or a user
 * callback is caught before it reaches these steps), so these tests leave a P or a G in exactly
 * the state such an Error leaves it and run the give-back its thread's way out runs (mexit,
 * sysmon's round and a failed wake-up call Idle#reclaimHeld's locked half or itself; execute
 * calls notStarted). The out-of-memory probe behind them is in docs/design.md, section 4.
 */
class ErrorInTransitTest {

  @Test
  void aProcessorTakenAndNeverPlacedGoesBackOnlyWithItsTaker() throws Exception {
    GmpExecutor ex = GmpExecutor.builder().name("held-p").parallelism(2).build();
    try (var c = TestSupport.closer(ex)) {
      Scheduler s = ex.sched;
      P taken = takeIdleP(s);
      assertSame(Thread.currentThread(), taken.heldBy);
      assertEquals(1, s.idle.npidle);

      // Another thread's give-back leaves it alone: the P is ours, in transit as far as it knows.
      Thread other = new Thread(s.idle::reclaimHeld);
      other.start();
      other.join();
      assertFalse(taken.onIdleList, "given back by a thread that never held it");

      s.idle.reclaimHeld();
      assertTrue(taken.onIdleList);
      assertNull(taken.heldBy);
      assertEquals(2, s.idle.npidle);
      s.idle.reclaimHeld(); // a second look finds nothing: the P is placed
      assertEquals(2, s.idle.npidle);
      TestSupport.runTwoAtOnce(ex); // both Ps run tasks again
    }
  }

  @Test
  void anAcquiredProcessorIsNotHeld() throws Exception {
    GmpExecutor ex = GmpExecutor.builder().name("acquired-p").parallelism(1).build();
    try (var c = TestSupport.closer(ex)) {
      AtomicReference<P> running = new AtomicReference<>();
      ex.submit(() -> running.set(ex.sched.threads.ms()[0].p)).get();
      assertNull(running.get().heldBy, "acquirep clears the taker's mark");
    }
  }

  /**
   * A G that an M took and never started, its thread ending there, goes back on the global queue
   * and runs once, on another M or this one.
   */
  @Test
  void aTaskTakenAndNeverStartedRunsOnceAfterAll() throws Exception {
    GmpExecutor ex = GmpExecutor.builder().name("not-started").parallelism(1).build();
    try (var c = TestSupport.closer(ex)) {
      ex.submit(() -> {}).get(); // an M, idle once this returns
      M m = ex.sched.threads.ms()[0];
      AtomicInteger runs = new AtomicInteger();
      CountDownLatch ran = new CountDownLatch(1);
      G g = new G();
      g.task = () -> {
        runs.incrementAndGet();
        ran.countDown();
      };
      g.setStatus(G.Grunning); // as execute leaves it before the task starts
      SchedulingLoop.notStarted(m, g);
      ex.execute(() -> {}); // wakes an M, which finds the requeued G too
      TestSupport.await(ran, "the requeued task runs");
      Future<?> after = ex.submit(() -> {});
      after.get();
      assertEquals(1, runs.get());
    }
  }

  private static P takeIdleP(Scheduler s) {
    s.lock.lock();
    try {
      P pp = s.idle.pidleget();
      assertTrue(pp != null, "an idle P");
      return pp;
    } finally {
      s.lock.unlock();
    }
  }
}
