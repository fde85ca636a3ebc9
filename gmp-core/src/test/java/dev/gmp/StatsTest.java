package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** stats() counters that must be exact once the executor is quiet, and queue lengths. */
class StatsTest {

  @Test
  void completedTasksCountsEveryTask() {
    try (TestSupport.Closer cex = TestSupport.closer(GmpExecutor.create(2))) {
      GmpExecutor ex = cex.ex();
      int n = 1000;
      CountDownLatch done = new CountDownLatch(n + 100);
      for (int i = 0; i < n; i++) {
        ex.execute(done::countDown);
      }
      ex.execute(() -> {
        for (int i = 0; i < 99; i++) {
          ex.execute(done::countDown);
        }
        done.countDown();
      });
      TestSupport.await(done, "tasks done");
      // n + 1 spawner + 99 children = n + 100 tasks; the count moves after run() returns.
      TestSupport.awaitCondition(
          () -> "completedTasks == " + (n + 100) + ": " + ex.stats(),
          LIVENESS_SECONDS,
          () -> ex.stats().completedTasks() == n + 100);
      GmpStats s = ex.stats();
      assertEquals(0, s.runnableTasks());
      assertEquals(0, s.threadStartFailures());
      assertEquals(2, s.parallelism());
    }
  }

  @Test
  void queueLengthsWhileTheOnlyWorkerIsBusy() {
    // maxSpareThreads 0: sysmon cannot move the queued work elsewhere.
    try (TestSupport.Closer cex = TestSupport.closer(GmpExecutor.builder().parallelism(1).maxSpareThreads(0).build())) {
      GmpExecutor ex = cex.ex();
      CountDownLatch spawned = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      ex.execute(() -> {
        for (int i = 0; i < 7; i++) {
          ex.execute(() -> {}); // runnext + ring of the only P
        }
        spawned.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      TestSupport.await(spawned, "spawned");
      for (int i = 0; i < 5; i++) {
        ex.execute(() -> {});
      }
      GmpStats s = ex.stats();
      assertEquals(5, s.globalQueueLength(), s.toString());
      assertEquals(7, s.localQueueLength(), s.toString());
      assertEquals(12, s.runnableTasks(), s.toString());
      assertEquals(1, s.runningTasks(), s.toString());
      assertEquals(0, s.idleProcessors(), s.toString());
      release.countDown();
      TestSupport.awaitCondition(
          () -> "drained: " + ex.stats(),
          LIVENESS_SECONDS,
          () -> ex.stats().completedTasks() == 13 && ex.stats().idleProcessors() == 1);
    }
  }

  @Test
  void toStringShowsStateAndLiveCountsAsForkJoinPoolDoes() throws Exception {
    // One processor, no spare: five outside tasks wait in the global queue behind a running one.
    GmpExecutor ex = GmpExecutor.builder().name("str").parallelism(1).maxSpareThreads(0).build();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ex.execute(() -> {
      started.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    TestSupport.await(started, "the long task started");
    for (int i = 0; i < 5; i++) {
      ex.execute(() -> {});
    }
    String s = ex.toString();
    assertTrue(s.matches("dev\\.gmp\\.GmpExecutor@\\p{XDigit}+\\[Running, name = str,"
        + " parallelism = 1, size = \\d+, active = 1, running = 1, steals = 0, tasks = 0,"
        + " submissions = 5, completed = 0\\]"), s);
    release.countDown();
    ex.shutdown();
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, java.util.concurrent.TimeUnit.SECONDS));
    assertTrue(ex.toString().matches(".*\\[Terminated, name = str, parallelism = 1, size = 0,"
        + " active = 0, running = 0, steals = 0, tasks = 0, submissions = 0, completed = 6\\]"),
        ex.toString());
  }
  /**
   * completedTasks never goes down between two snapshots, while threads exit (keepAlive 1 ms,
   * spares made by tasks that sleep). An exiting thread's count moves from its slot to the
   * retired total; a snapshot that read the total before and the slot after lost it (44-265 drops
   * in 5 s of a user's poller; Prometheus reads a drop in a counter as a reset). It is read again
   * under the lock when an exit ran meanwhile.
   */
  @Test
  void completedTasksNeverGoesDownWhileThreadsExit() throws Exception {
    try (TestSupport.Closer cex = TestSupport.closer(GmpExecutor.builder().parallelism(2)
        .maxSpareThreads(4).keepAlive(Duration.ofMillis(1)).build())) {
      GmpExecutor ex = cex.ex();
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<String> drop = new AtomicReference<>();
      Thread poller = new Thread(() -> {
        long prev = ex.stats().completedTasks();
        while (!stop.get() && drop.get() == null) {
          long c = ex.stats().completedTasks();
          if (c < prev) {
            drop.set(prev + " -> " + c);
          }
          prev = c;
        }
      });
      poller.start();
      int tasks = 0;
      for (int round = 0; round < 200 && drop.get() == null; round++) {
        CountDownLatch done = new CountDownLatch(53);
        for (int i = 0; i < 50; i++) {
          ex.execute(done::countDown);
        }
        for (int i = 0; i < 3; i++) { // off the CPU with work waiting: a spare, which then exits
          ex.execute(() -> {
            TestSupport.sleepQuietly(2);
            done.countDown();
          });
        }
        tasks += 53;
        TestSupport.await(done, "round " + round);
      }
      stop.set(true);
      poller.join();
      assertNull(drop.get(), "completedTasks went down: " + ex.stats());
      int all = tasks;
      TestSupport.awaitCondition(() -> "completedTasks == " + all + ": " + ex.stats(),
          LIVENESS_SECONDS, () -> ex.stats().completedTasks() == all);
    }
  }

  /**
   * cancelledTimers never goes down between two snapshots, while timers are scheduled and
   * cancelled and processors are retired and added. A retired processor left the sum before its
   * heap's count was handed over, and a heap's removers counted a cancel twice for a moment: the
   * count fell by up to 300,000 and came back (a counter reset to a scraper). Every move now reads
   * low, never high, and a snapshot never returns less than one before it. Exact at the end.
   */
  @Test
  void cancelledTimersNeverGoesDownWhileProcessorsAreRetired() throws Exception {
    try (TestSupport.Closer cex = TestSupport.closer(GmpExecutor.create(4))) {
      GmpExecutor ex = cex.ex();
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<String> drop = new AtomicReference<>();
      Thread poller = new Thread(() -> {
        long prev = ex.stats().cancelledTimers();
        while (!stop.get() && drop.get() == null) {
          long c = ex.stats().cancelledTimers();
          if (c < prev) {
            drop.set(prev + " -> " + c);
          }
          prev = c;
        }
      });
      Thread resizer = new Thread(() -> {
        for (int i = 0; !stop.get(); i++) {
          ex.setParallelism(1 + (i & 3));
          TestSupport.sleepQuietly(1);
        }
      });
      poller.start();
      resizer.start();
      long cancels = 0;
      for (int round = 0; round < 40 && drop.get() == null; round++) {
        List<Future<Long>> counts = new ArrayList<>();
        for (int t = 0; t < 4; t++) { // from tasks: timers land on several processors' heaps
          counts.add(ex.submit(() -> {
            long n = 0;
            for (int i = 0; i < 2_000; i++) {
              if (ex.schedule(() -> { }, 1, TimeUnit.HOURS).cancel(false)) {
                n++;
              }
            }
            return n;
          }));
        }
        for (Future<Long> f : counts) {
          cancels += f.get(LIVENESS_SECONDS, TimeUnit.SECONDS);
        }
      }
      stop.set(true);
      poller.join();
      resizer.join();
      assertNull(drop.get(), "cancelledTimers went down: " + ex.stats());
      long all = cancels;
      TestSupport.awaitCondition(() -> "cancelledTimers == " + all + ": " + ex.stats(),
          LIVENESS_SECONDS, () -> ex.stats().cancelledTimers() == all);
    }
  }
}
