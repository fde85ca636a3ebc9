package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.Test;

/**
 * Outside work wakes a spinner per queued G, as far as Ps are idle (Idle#wakeForInjected, Go's
 * injectglist): a burst's second M is woken by the submitter, not by the first M after it
 * arrives. Driven on a scheduler without sysmon whose one M has no thread (the test's thread
 * holds its P and spins); the factory's threads never run, so each wake-up shows as one factory
 * call and nothing is taken off the queue.
 */
class WakeForInjectedTest {
  @Test
  void outsideTasksWakeASpinnerEachWhilePsAreIdle() {
    List<Runnable> asked = new CopyOnWriteArrayList<>();
    ThreadFactory never =
        r -> {
          asked.add(r);
          Thread t = new Thread(() -> {}, "never-runs-" + asked.size());
          t.setDaemon(true);
          return t;
        };
    Scheduler s =
        new Scheduler(
            new Config(2, 64, 8, 10_000_000L, 60_000_000_000L, "inject-wake", never, null, null),
            false);
    M m = TestSupport.mWithP(s, 1);
    s.threads.mcount = 1; // the driven M stands for a running thread
    s.idle.becomeSpinning(m);

    s.submit(() -> {}); // one G, one spinner looking: as wakep, nobody more
    assertEquals(0, asked.size(), "a spinner already looks for the only queued task");

    s.submit(() -> {}); // two Gs, one spinner, the other P idle: one more spinner on it
    assertEquals(1, asked.size(), "the second queued task woke nobody");
    assertEquals(2, s.idle.nmspinning());
    assertEquals(0, s.idle.npidle, "the woken spinner holds the idle P");

    s.submit(() -> {}); // no P idle: nobody, however many Gs wait
    s.submit(() -> {});
    assertEquals(1, asked.size(), "a wake-up with no idle P");
    assertEquals(4, s.global.size(), "every task still queued");
  }
}
