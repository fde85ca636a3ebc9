package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.junit.jupiter.api.Test;

/**
 * Which parks the detector asks the JVM about (BlockDetector#ownable): a lock's waiters, whose
 * owner may be another running task, but not a latch's or a semaphore's, which have no owner.
 */
class WaitBlockerTest {

  @Test
  void locksHaveOwnersLatchesAndSemaphoresDoNot() throws Exception {
    ReentrantLock lock = new ReentrantLock();
    lock.lock();
    try {
      assertTrue(BlockDetector.ownable(blockerOf(lock::lock, lock::unlock)), "ReentrantLock");
    } finally {
      lock.unlock();
    }
    ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
    rw.writeLock().lock();
    try {
      assertTrue(BlockDetector.ownable(blockerOf(() -> rw.readLock().lock(),
          () -> rw.readLock().unlock())), "ReentrantReadWriteLock");
    } finally {
      rw.writeLock().unlock();
    }
    CountDownLatch latch = new CountDownLatch(1);
    assertFalse(BlockDetector.ownable(blockerOf(() -> {
      try {
        latch.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, () -> { })), "CountDownLatch");
    latch.countDown();
    Semaphore sem = new Semaphore(0);
    assertFalse(BlockDetector.ownable(blockerOf(sem::acquireUninterruptibly, sem::release)),
        "Semaphore");
    sem.release();
    assertFalse(BlockDetector.ownable(null), "a plain park");
    assertFalse(BlockDetector.ownable(new Object()), "any other blocker");
  }

  /**
   * Starts a thread that runs {@code waitFor}, then {@code after}, and returns the blocker it
   * parks on (the thread is released by the caller's unlock, count-down or release).
   */
  private static Object blockerOf(Runnable waitFor, Runnable after) throws InterruptedException {
    Thread t = new Thread(() -> {
      waitFor.run();
      after.run();
    });
    t.setDaemon(true);
    t.start();
    Object b;
    while ((b = LockSupport.getBlocker(t)) == null) {
      if (!t.isAlive()) {
        throw new AssertionError("the thread never parked");
      }
      Thread.onSpinWait();
    }
    return b;
  }
}
