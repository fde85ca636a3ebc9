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
 * budget spent waits on the global queue locked to its M (its stand-in, M#asLocked), and the
 * next M to schedule hands it its P (SchedulingLoop#startlockedm). Here the P is gone because
 * setParallelism retired it during the call, and the budget is 0.
 */
class LockedHandoffTest {

  /**
   * Two tasks, each in a marked blocking call on its own P, parallelism then cut to 1 and the
   * call on the retired P released: it returns to no P and waits, locked, on the global queue.
   */
  private static final class OneCallWaiting implements AutoCloseable {
    final GmpExecutor ex;
    final CountDownLatch[] release = {new CountDownLatch(1), new CountDownLatch(1)};
    final CountDownLatch[] finished = {new CountDownLatch(1), new CountDownLatch(1)};
    final AtomicIntegerArray before = new AtomicIntegerArray(2); // the P each call began on
    final AtomicIntegerArray after = new AtomicIntegerArray(new int[] {-1, -1}); // and ended on
    final int onRetired;
    final int onKept;

    OneCallWaiting(String name) {
      ex = GmpExecutor.builder().name(name).parallelism(2).maxSpareThreads(0).build();
      CountDownLatch started = new CountDownLatch(2);
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
          finished[k].countDown();
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
      onRetired = before.get(0) == 1 ? 0 : 1;
      onKept = 1 - onRetired;
      release[onRetired].countDown();
      // Its P is dead, P0 is in the other call (with no work waiting, not to be taken), and the
      // budget is 0: it waits on the global queue, locked to its M.
      awaitCondition(() -> "the returning call queued locked: " + ex.stats(), 10,
          () -> ex.stats().globalQueueLength() == 1);
    }

    @Override
    public void close() throws InterruptedException {
      release[0].countDown();
      release[1].countDown();
      ex.shutdownNow();
      ex.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aCallThatReturnsWithoutAPPastTheBudgetIsHandedTheNextFreeP() throws Exception {
    try (OneCallWaiting w = new OneCallWaiting("locked")) {
      assertFalse(w.finished[w.onRetired].await(0, TimeUnit.SECONDS), "it waits for a P");
      w.release[w.onKept].countDown(); // P0's call returns, its task ends: its M hands P0 over
      await(w.finished[w.onRetired], "the locked call finishes");
      await(w.finished[w.onKept], "the other task finishes");
      assertEquals(0, w.after.get(w.onRetired), "the locked call finished on the handed-over P0");
      assertEquals(0, w.after.get(w.onKept));
      assertEquals(0, w.ex.stats().globalQueueLength());
    }
  }

  /**
   * A P that appears while a returning call waits for one at the thread cap (setParallelism back
   * up) goes to that call's M: no new M may be made (two Ms, cap 1 + 0), and no M schedules to
   * hand the call its P (the other task is still in its call). Before, the new P idled beside the
   * waiting call until some M scheduled; the long soak saw that for good: every M waiting, a P
   * idle, nothing run for 10 s.
   */
  @Test
  void aPThatNoMCanTakeGoesToTheCallWaitingForOne() throws Exception {
    try (OneCallWaiting w = new OneCallWaiting("locked-cap")) {
      w.ex.setParallelism(2);
      await(w.finished[w.onRetired], () -> "the waiting call runs on the new P: " + w.ex.dump());
      assertEquals(1, w.after.get(w.onRetired), "it finished on the new P1");
      assertEquals(1, w.finished[w.onKept].getCount(), "the other call is still blocked");
      w.release[w.onKept].countDown();
      await(w.finished[w.onKept], "the other task finishes");
      assertEquals(0, w.after.get(w.onKept));
    }
  }
}
