package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Nothing under the scheduler lock waits for another thread: a timer heap held by a user thread
 * (its schedule, a cancel's compaction) never keeps the scheduler lock held, and stats() and
 * dump() take no heap lock at all.
 */
class LockDisciplineTest {
  @Test
  void aHeldTimerHeapNeitherHoldsTheSchedulerLockNorStallsStats() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(2))) {
      GmpExecutor ex = c.ex();
      TimerHeap h = ex.sched.procs.all[1].timers;
      CountDownLatch held = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Thread holder = new Thread(() -> {
        h.lock();
        held.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } finally {
          h.unlock();
        }
      }, "heap-holder");
      holder.start();
      TestSupport.await(held, "the heap is held");
      try {
        // stats() and dump() never wait for a heap.
        FutureTask<String> look = new FutureTask<>(() -> ex.stats() + ex.dump());
        new Thread(look, "looker").start();
        look.get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
        // Retiring P1 moves its timers: that waits for the heap, but not under the lock.
        Thread resizer = new Thread(() -> ex.setParallelism(1), "resizer");
        resizer.start();
        TestSupport.awaitCondition("the scheduler lock is free while the resize waits for the heap",
            () -> ex.parallelism() == 1 && resizer.isAlive() && tryLockAndRelease(ex.sched));
      } finally {
        release.countDown();
      }
      holder.join();
      assertEquals(1, ex.submit(() -> 1).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
    }
  }

  private static boolean tryLockAndRelease(Scheduler s) {
    if (!s.lock.tryLock()) {
      return false;
    }
    s.lock.unlock();
    return true;
  }

  /** A full injection side is moved onto the array one batch per lock hold, whatever its size. */
  @Test
  void theInjectionBacklogMovesInBoundedSteps() {
    GlobalQueue q = new GlobalQueue();
    int n = GlobalQueue.INJECT_CAPACITY;
    for (int i = 0; i < n; i++) {
      assertTrue(q.inject(TestSupport.g(i + 1)));
    }
    q.lock.lock();
    try {
      q.drainInjectedLocked();
      assertEquals(RunQueue.SIZE, q.arrayLengthLocked(), "one batch per hold");
      assertEquals(n, q.liveSizeLocked());
    } finally {
      q.lock.unlock();
    }
  }
}
