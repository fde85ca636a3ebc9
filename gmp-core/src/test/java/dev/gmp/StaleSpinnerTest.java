package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The spinner wakep starts for an outside task may be late (its thread waits for a CPU: on a VM
 * whose host steals CPU, for milliseconds), and Go's rule trusts it: while it is counted, no
 * submission wakes anyone. Idle#wakeAnotherIfStale lets an outside submission that finds it
 * more than Switches#STALE_SPINNER_NANOS late start one more spinner on an idle P.
 */
class StaleSpinnerTest {
  @RegisterExtension final TrackedExecutors tracked = new TrackedExecutors();

  /**
   * The first M's thread is held before it runs (the factory's Runnable waits), so wakep's
   * spinner never arrives; the queued task must still run, on the other P, once a later outside
   * submission sees the spinner late. No sysmon, whose fallback could hide the difference. With
   * the switch at 0 nothing runs until the held thread is released (this test then fails).
   */
  @Test
  void outsideTasksDoNotWaitForASpinnerThatIsLate() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger made = new AtomicInteger();
    ThreadFactory held =
        r -> {
          int n = made.incrementAndGet();
          Runnable body =
              n != 1
                  ? r
                  : () -> {
                    try {
                      release.await();
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                    r.run();
                  };
          Thread t = new Thread(body, "stale-spinner-test-" + n);
          t.setDaemon(true);
          return t;
        };
    GmpExecutor ex =
        tracked.track(
            new GmpExecutor(
                GmpExecutor.builder().parallelism(2).threadFactory(held).config(), false));
    try {
      CountDownLatch ran = new CountDownLatch(1);
      ex.execute(ran::countDown); // wakep counts a spinner: the held thread
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!ran.await(1, TimeUnit.MILLISECONDS)) {
        assertTrue(
            System.nanoTime() < deadline,
            "the task waited 10 s for a spinner that never came: " + ex.stats());
        ex.execute(() -> {}); // each outside submission looks at the spinner's age again
      }
      assertTrue(made.get() >= 2, "ran without a second M? threads made: " + made.get());
    } finally {
      release.countDown();
    }
  }

  /**
   * A spinner that began spinning on its own (an M that ran out of work and is looking, not one
   * that wakep claimed and started) is never stale: it is already looking. An outside submission
   * beside it and an idle P wakes nobody. (The age used to be measured from the last claim, here
   * none at all, so every such submission started one more M: 3-4% of the submissions in a burst
   * loop.) Driven on a scheduler whose M has no thread: the test's thread holds its P.
   */
  @Test
  void aSpinnerLookingOnItsOwnIsNeverStale() {
    TestSupport.CountingFactory made = new TestSupport.CountingFactory();
    Scheduler s =
        new Scheduler(
            new Config(2, 64, 8, 10_000_000L, 60_000_000_000L, "stale-own", made, null, null),
            false);
    M m = TestSupport.mWithP(s, 1);
    s.threads.mcount = 1; // the driven M stands for a running thread (an executor with none starts one)
    s.idle.becomeSpinning(m);
    s.submit(() -> {}); // the test's thread is no M of s: an outside submission
    assertEquals(0, made.made.size(), "an M was started beside a spinner already looking");
    assertEquals(0, s.counters.staleSpinnerWakes.sum());
    assertEquals(1, s.idle.npidle, "the other P stays idle");
    assertEquals(1, s.global.size(), "the task waits for the spinner");
  }
}
