package dev.gmp;

import static dev.gmp.TestSupport.await;
import static dev.gmp.TestSupport.awaitCondition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/**
 * Go's lockedg path: a blocking call that returns to find its P gone, no P to take and the spare
 * budget spent waits on the global queue locked to its M (its stand-in, G.Locked), and the next
 * M to schedule hands it its P (SchedulingLoop#startlockedm). Here the P is gone because
 * setParallelism retired it during the call, and the budget is 0.
 */
class LockedHandoffTest {

  @Test
  void aCallThatReturnsWithoutAPPastTheBudgetIsHandedTheNextFreeP() throws Exception {
    GmpExecutor ex =
        GmpExecutor.builder().name("locked").parallelism(2).maxSpareThreads(0).build();
    try {
      CountDownLatch[] release = {new CountDownLatch(1), new CountDownLatch(1)};
      AtomicIntegerArray before = new AtomicIntegerArray(2); // the P each call began on
      AtomicIntegerArray after = new AtomicIntegerArray(new int[] {-1, -1}); // and ended on
      CountDownLatch started = new CountDownLatch(2);
      CountDownLatch finished = new CountDownLatch(2);
      for (int i = 0; i < 2; i++) {
        int k = i;
        ex.execute(() -> {
          before.set(k, ThreadTable.currentM().p.id);
          started.countDown();
          try {
            GmpExecutor.blocking(() -> {
              started.await(); // both tasks hold a P at once: neither queues behind the other
              return release[k].await(60, TimeUnit.SECONDS);
            });
          } catch (Exception e) {
            throw new AssertionError(e);
          }
          P pp = ThreadTable.currentM().p;
          after.set(k, pp == null ? -2 : pp.id);
          finished.countDown();
        });
      }
      await(started, "both tasks running");
      awaitCondition("both Ps in a blocking call", () -> {
        for (P pp : ex.sched.procs.all) {
          if (pp.status() != P.Psyscall) {
            return false;
          }
        }
        return true;
      });
      ex.setParallelism(1); // retires P1 under the call that holds it
      int onRetired = before.get(0) == 1 ? 0 : 1;
      int onKept = 1 - onRetired;
      release[onRetired].countDown();
      // Its P is dead, P0 is in the other call (with no work waiting, not to be taken), and the
      // budget is 0: it waits on the global queue, locked to its M.
      awaitCondition(() -> "the returning call queued locked: " + ex.stats(), 10,
          () -> ex.stats().globalQueueLength() == 1);
      assertFalse(finished.await(0, TimeUnit.SECONDS), "it waits for a P");
      release[onKept].countDown(); // P0's call returns, its task ends: its M hands P0 over
      await(finished, "both tasks finish");
      assertEquals(0, after.get(onRetired), "the locked call finished on the handed-over P0");
      assertEquals(0, after.get(onKept));
      assertEquals(0, ex.stats().globalQueueLength());
    } finally {
      ex.shutdownNow();
      ex.awaitTermination(10, TimeUnit.SECONDS);
    }
  }
}
