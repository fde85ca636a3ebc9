package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A runnext chain inherits its time slice, so without sysmon's preemption it would hold the only
 * processor forever; the global-queue task must still run.
 */
class FairnessTest {
  private static final long BOUND_SECONDS = 5;

  /**
   * With one processor, one outside thread's tasks start in the order submitted, as on a
   * single-thread executor. Go's fairness tick took the global queue's head ahead of the older
   * tasks its last batch had moved to the ring: about 1.6% of 20,000 tasks started out of order.
   */
  @Test
  void oneSubmittersTasksStartInOrderWithOneProcessor() throws Exception {
    int n = 20_000;
    int[] order = new int[n];
    AtomicInteger next = new AtomicInteger();
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(1))) {
      for (int i = 0; i < n; i++) {
        int id = i;
        c.ex().execute(() -> order[next.getAndIncrement()] = id); // one at a time: one P
      }
      c.ex().submit(() -> {}).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS);
    }
    int outOfOrder = 0;
    for (int i = 1; i < n; i++) {
      outOfOrder += order[i] < order[i - 1] ? 1 : 0;
    }
    assertEquals(n, next.get());
    assertEquals(0, outOfOrder, "tasks that started before an older one");
  }

  /**
   * An outside task waits for one demotion of a runnext chain, not two: the demoted chain goes
   * to the global queue behind the outside submissions made before it. It used to go onto the
   * queue's array ahead of those still on its injection side, and so ran again first (a probe:
   * outside tasks waited 20-50 ms behind a chain, two time slices, at every slice length).
   */
  @Test
  void anOutsideTaskWaitsForOneDemotionOfARunnextChain() {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(1))) {
      GmpExecutor ex = c.ex();
      AtomicBoolean stop = new AtomicBoolean();
      CountDownLatch chainRuns = new CountDownLatch(100);
      startChain(ex, stop, chainRuns::countDown);
      try {
        TestSupport.await(chainRuns, "the chain runs");
        for (int i = 0; i < 5; i++) {
          CountDownLatch ran = new CountDownLatch(1);
          AtomicLong at = new AtomicLong();
          // Demotions, not preemption requests: on a loaded machine sysmon can make a second
          // request while the M, holding the first, is off its CPU on its way to this task.
          LongAdder demotions = ex.sched.counters.runnextDemotions;
          ex.execute(() -> {
            at.set(demotions.sum());
            ran.countDown();
          });
          // Read after the submission: a demotion counted before it sent the chain ahead of it,
          // and is not one this task waited for.
          long before = demotions.sum();
          TestSupport.await(ran, BOUND_SECONDS, "the outside task runs beside the chain");
          assertTrue(at.get() - before <= 1,
              "demotions it waited for: " + (at.get() - before) + " (round " + i + ")");
        }
      } finally {
        stop.set(true);
      }
    }
  }

  @Test
  void selfRespawningChainDoesNotStarveOutsideTask() {
    try (TestSupport.Closer cex = TestSupport.closer(GmpExecutor.create(1))) {
      GmpExecutor ex = cex.ex();
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong hops = new AtomicLong();
      CountDownLatch chainRunning = new CountDownLatch(1);
      startChain(ex, stop, () -> {
        hops.incrementAndGet();
        chainRunning.countDown();
      });
      TestSupport.await(chainRunning, "chain started");
      CountDownLatch outsideRan = new CountDownLatch(1);
      ex.execute(outsideRan::countDown);
      try {
        TestSupport.await(
            outsideRan, BOUND_SECONDS, "outside task to run despite the runnext chain");
      } finally {
        stop.set(true);
      }
      assertTrue(hops.get() > 1);
      TestSupport.awaitCondition(
          "chain stops", () -> ex.stats().runnableTasks() == 0 && ex.stats().runningTasks() == 0);
    }
  }

  /**
   * A task that runs {@code hop} and executes itself again until {@code stop}: each run goes to
   * runnext and inherits the slice until sysmon demotes the chain.
   */
  private static void startChain(GmpExecutor ex, AtomicBoolean stop, Runnable hop) {
    ex.execute(new Runnable() {
      @Override
      public void run() {
        hop.run();
        if (!stop.get()) {
          ex.execute(this);
        }
      }
    });
  }

  /**
   * A task that keeps one successor in the local ring (displaced there by a leaf spawned after
   * it) must not run forever ahead of older ring tasks on a processor with no thief. With one
   * processor the owner takes the ring oldest first (Go's order); with two, it pops its own
   * tasks' Gs newest first (RunQueue#popNewest) and the other processor is kept busy by a task
   * that never yields, so only the oldest-first pop on every 61st tick reaches the older tasks.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void olderRingTasksRunWhileANewerOneKeepsRespawning(int parallelism) {
    AtomicBoolean stopHog = new AtomicBoolean();
    try (TestSupport.Closer cex = TestSupport.closer(GmpExecutor.create(parallelism))) {
      GmpExecutor ex = cex.ex();
      try {
        int older = 20;
        CountDownLatch olderRan = new CountDownLatch(older);
        AtomicLong steps = new AtomicLong();
        if (parallelism == 2) {
          TestSupport.hogAProcessor(ex, stopHog); // no thief for the other processor
        }
        ex.execute(
            () -> {
              for (int i = 0; i < older; i++) {
                ex.execute(olderRan::countDown);
              }
              ex.execute(
                  new Runnable() {
                    @Override
                    public void run() {
                      steps.incrementAndGet();
                      if (olderRan.getCount() > 0) {
                        ex.execute(this); // to runnext, then to the ring by the leaf below
                        ex.execute(() -> {});
                      }
                    }
                  });
            });
        TestSupport.await(olderRan, BOUND_SECONDS, "older ring tasks to run beside the respawner");
        assertTrue(steps.get() > 0);
      } finally {
        stopHog.set(true); // before the executor closes: the hog ignores interrupts
      }
      TestSupport.awaitCondition(
          "respawner stops", () -> ex.stats().runnableTasks() == 0 && ex.stats().runningTasks() == 0);
    }
  }

  @Test
  void pairRespawningEachOtherDoesNotStarveOutsideTasks() {
    try (TestSupport.Closer cex = TestSupport.closer(GmpExecutor.create(1))) {
      GmpExecutor ex = cex.ex();
      AtomicBoolean stop = new AtomicBoolean();
      CountDownLatch pairRunning = new CountDownLatch(2);
      Runnable[] pair = new Runnable[2];
      for (int i = 0; i < 2; i++) {
        int me = i;
        pair[i] = () -> {
          pairRunning.countDown();
          if (!stop.get()) {
            ex.execute(pair[1 - me]);
          }
        };
      }
      ex.execute(pair[0]);
      TestSupport.await(pairRunning, "pair started");
      CountDownLatch outsideRan = new CountDownLatch(3);
      for (int i = 0; i < 3; i++) {
        ex.execute(outsideRan::countDown);
      }
      try {
        TestSupport.await(outsideRan, BOUND_SECONDS, "outside tasks run despite the pair");
      } finally {
        stop.set(true);
      }
    }
  }
}
