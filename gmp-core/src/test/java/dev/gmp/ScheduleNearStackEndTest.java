package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/**
 * {@code schedule()} from frames near the end of the caller's stack: a StackOverflowError may
 * land at any call on the way into a timer heap. Whatever it interrupts, the heap's lock is given
 * back, no other timer is dropped from the heap, every timer whose {@code schedule} returned
 * runs, and none runs twice. A recursion that schedules from every frame on its way back up
 * tries each point in turn (before the fix, about one run in three left a heap locked).
 */
class ScheduleNearStackEndTest {

  private static final int ROUNDS = 8;
  private static final int MAX_IDS = 1 << 20;

  @Test
  void schedulesNearTheStackEndLoseNoTimerAndLeaveNoHeapLocked() throws Exception {
    GmpExecutor ex = GmpExecutor.builder().parallelism(2).build();
    try (var c = TestSupport.closer(ex)) {
      AtomicIntegerArray runs = new AtomicIntegerArray(MAX_IDS);
      AtomicInteger nextId = new AtomicInteger();
      Queue<Integer> accepted = new ConcurrentLinkedQueue<>();
      for (int round = 0; round < ROUNDS; round++) {
        // A small stack: the dive is short, and the thread's id picks another P's heap.
        Thread diver = new Thread(null, () -> dive(ex, runs, nextId, accepted), "diver-" + round,
            256 * 1024);
        diver.start();
        diver.join(TimeUnit.SECONDS.toMillis(LIVENESS_SECONDS));
        if (diver.isAlive()) {
          fail("round " + round + ": a schedule() never returned (a timer heap left locked?): "
              + ex.stats());
        }
      }
      assertFalse(accepted.isEmpty(), "some schedule() calls returned");
      TestSupport.awaitCondition(
          () -> "every accepted timer runs: " + ex.stats(), LIVENESS_SECONDS,
          () -> accepted.stream().allMatch(id -> runs.get(id) > 0));
      for (int id = 0; id < nextId.get(); id++) {
        assertTrue(runs.get(id) <= 1, "timer " + id + " ran " + runs.get(id) + " times");
      }
      // Every P's heap still takes and fires timers from an ordinary stack.
      int n = 4 * ex.stats().parallelism();
      CountDownLatch fired = new CountDownLatch(n);
      for (int i = 0; i < n; i++) {
        Thread t = new Thread(() -> ex.schedule(fired::countDown, 1, TimeUnit.MILLISECONDS));
        t.start();
        t.join(TimeUnit.SECONDS.toMillis(LIVENESS_SECONDS));
        assertFalse(t.isAlive(), "schedule() from a fresh thread returns: " + ex.stats());
      }
      TestSupport.await(fired, "timers from fresh threads fire");
      assertEquals(0, fired.getCount());
    }
  }

  /** Recurses to the stack's end, then schedules a numbered timer from each frame on the way up. */
  private static void dive(
      GmpExecutor ex, AtomicIntegerArray runs, AtomicInteger nextId, Queue<Integer> accepted) {
    try {
      dive(ex, runs, nextId, accepted);
    } catch (StackOverflowError bottom) {
      // the end: schedule from here up
    }
    try {
      int id = nextId.getAndIncrement();
      if (id < MAX_IDS) {
        ex.schedule(() -> runs.incrementAndGet(id), 1, TimeUnit.MILLISECONDS);
        accepted.add(id);
      }
    } catch (StackOverflowError tooDeep) {
      // this frame's schedule (or its bookkeeping) did not fit: the next frame up tries
    }
  }
}
