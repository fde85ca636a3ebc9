package dev.gmp;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The scheduler lock (Go's sched.lock): a ReentrantLock whose {@link #lock} never queues a virtual
 * thread. A virtual thread of ours that parked in the lock's queue would wait for a carrier, while
 * the Ms that carry our threads queue behind it on the same lock, each holding its P: with every
 * P so held, nothing could ever run it, and the executor stopped for good (setParallelism called
 * in a loop from one of our virtual threads). A virtual thread spins on tryLock instead, which
 * barges past the queue, and after a while yields its carrier (it unmounts, out of the queue), so
 * that a holder waiting for a carrier gets one. Platform threads lock as before.
 */
final class SchedLock extends ReentrantLock {
  /** Spins before a virtual thread yields its carrier, between tries. */
  private static final int SPINS = 100;

  @Override
  public void lock() {
    if (!Thread.currentThread().isVirtual()) {
      super.lock();
      return;
    }
    for (int spins = 0; !tryLock(); spins++) {
      if (spins < SPINS) {
        Thread.onSpinWait();
      } else {
        Thread.yield(); // unmounts (unless pinned): our carrier's P may be the one a holder needs
      }
    }
  }
}
