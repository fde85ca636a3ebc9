package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static dev.gmp.TestSupport.await;
import static dev.gmp.TestSupport.awaitCondition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Card islands (CardIsland): every P's run queue and every M that ran a task store their per-task
 * references in an array of their own, and a P that replaces a retaken one reuses a drained
 * zombie's island rather than allocating 64 KB per retake. What the islands buy is a benchmark
 * (docs/benchmarks.md, "Card islands"); here, that the layout holds and reuse loses nothing.
 */
class CardIslandTest {
  private static final int ISLAND = CardIsland.PAD + RunQueue.LIVE + CardIsland.PAD;

  @RegisterExtension final TrackedExecutors tracked = new TrackedExecutors();

  @Test
  void everyProcessorAndEveryMThatRanATaskHasAnIslandOfItsOwn() throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.builder().parallelism(4).build());
    CountDownLatch all = new CountDownLatch(4);
    CountDownLatch go = new CountDownLatch(1);
    for (int i = 0; i < 4; i++) {
      ex.execute(() -> { // four tasks that wait for each other: four Ms run one each
        all.countDown();
        try {
          go.await(LIVENESS_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    await(all, "four tasks running at once");
    go.countDown();
    Map<G[], String> owners = new IdentityHashMap<>();
    for (P pp : ex.sched.procs.all) {
      G[] island = pp.runq.island();
      assertEquals(ISLAND, island.length, "P" + pp.id + "'s queue is an island");
      assertEquals(null, owners.put(island, "P" + pp.id), "P" + pp.id + " shares its island");
    }
    int ran = 0;
    for (M m : ex.sched.threads.ms()) {
      G[] island = m.curgIslandForTest();
      if (island == CardIsland.UNSTARTED_M) {
        continue; // never ran a task (sysmon's helpers, a spare)
      }
      ran++;
      assertEquals(CardIsland.PAD + 1 + CardIsland.PAD, island.length, "M" + m.id);
      assertEquals(null, owners.put(island, "M" + m.id), "M" + m.id + " shares an island");
    }
    assertTrue(ran >= 4, ran + " Ms with islands, 4 ran tasks at once");
  }

  /**
   * At parallelism 1: a task blocks unmarked until sysmon retakes its P, whose replacement gets a
   * new island; once the task ends its zombie is drained and its island kept; the next retake's
   * replacement P takes that very island, and the tasks queued there all run, once.
   */
  @Test
  void aRetakenProcessorsIslandServesTheNextRetake() throws Exception {
    assumeTrue(Switches.BLOCK_DETECT, "the detector is switched off (-Dgmp.blockDetect=false)");
    GmpExecutor ex =
        tracked.track(
            GmpExecutor.builder().parallelism(1).timeSlice(Duration.ofHours(1)).build());
    Scheduler s = ex.sched;
    assertEquals(0, s.retake.islandsForTest());

    G[] first = s.procs.all[0].runq.island();
    blockUntilRetaken(ex, 1);
    assertNotSame(first, s.procs.all[0].runq.island(), "the replacement P has its own island");
    awaitCondition(
        () -> "the zombie's island kept once its task let go: " + ex.stats(),
        LIVENESS_SECONDS,
        () -> s.retake.islandsForTest() == 1);

    blockUntilRetaken(ex, 2);
    assertSame(first, s.procs.all[0].runq.island(), "the second retake reused the first's island");

    int n = 10_000;
    AtomicIntegerArray runs = new AtomicIntegerArray(n);
    CountDownLatch done = new CountDownLatch(n);
    ex.execute(() -> { // spawns from a task: runnext and the ring of the reused island
      for (int i = 0; i < n; i++) {
        int k = i;
        ex.execute(() -> {
          runs.incrementAndGet(k);
          done.countDown();
        });
      }
    });
    await(done, "every task spawned on the reused island ran");
    List<Integer> wrong = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (runs.get(i) != 1) {
        wrong.add(i);
      }
    }
    assertEquals(List.of(), wrong, "tasks not run exactly once");
  }

  /**
   * A retaken P's queued tasks move to its replacement, but the zombie's island still points at
   * them until it is kept for reuse: by then every slot must be empty, or the pool would keep the
   * tasks (and whatever their futures hold) reachable for as long as the executor lives.
   */
  @Test
  void aKeptIslandHoldsNoTask() throws Exception {
    assumeTrue(Switches.BLOCK_DETECT, "the detector is switched off (-Dgmp.blockDetect=false)");
    GmpExecutor ex =
        tracked.track(
            GmpExecutor.builder().parallelism(1).timeSlice(Duration.ofHours(1)).build());
    Scheduler s = ex.sched;
    G[] first = s.procs.all[0].runq.island();
    int n = 20; // runnext and the ring
    CountDownLatch queued = new CountDownLatch(1);
    CountDownLatch children = new CountDownLatch(n);
    CountDownLatch release = new CountDownLatch(1);
    ex.execute(() -> {
      for (int i = 0; i < n; i++) {
        ex.execute(children::countDown); // into this P's own queue
      }
      queued.countDown();
      try {
        release.await(LIVENESS_SECONDS, TimeUnit.SECONDS); // off the CPU, nobody told
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    await(queued, "the children queued on the blocker's P");
    await(children, "the children ran on the P that replaced the blocker's");
    release.countDown();
    awaitCondition(
        () -> "the zombie's island kept once its task let go: " + ex.stats(),
        LIVENESS_SECONDS,
        () -> s.retake.islandsForTest() == 1);
    List<Integer> held = new ArrayList<>();
    for (int i = 0; i < first.length; i++) {
      if (first[i] != null) {
        held.add(i);
      }
    }
    assertEquals(List.of(), held, "slots of a kept island that still hold a task");
  }

  /** A task that sleeps unmarked until the retake count reaches {@code retakes}, then returns. */
  private static void blockUntilRetaken(GmpExecutor ex, long retakes) throws Exception {
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch ended = new CountDownLatch(1);
    ex.execute(() -> {
      inside.countDown();
      try {
        release.await(LIVENESS_SECONDS, TimeUnit.SECONDS); // off the CPU, nobody told
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        ended.countDown();
      }
    });
    await(inside, "the blocker started");
    CountDownLatch behind = new CountDownLatch(1);
    ex.execute(behind::countDown); // work waiting behind it: what makes sysmon retake
    await(behind, "the task behind the blocked one ran");
    awaitCondition(
        () -> "retake number " + retakes + ": " + ex.stats(),
        LIVENESS_SECONDS,
        () -> ex.sched.counters.blockRetakes.sum() >= retakes);
    release.countDown();
    await(ended, "the blocker returned");
  }
}
