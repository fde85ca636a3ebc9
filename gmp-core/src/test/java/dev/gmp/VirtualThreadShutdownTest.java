package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static dev.gmp.TestSupport.await;
import static dev.gmp.TestSupport.terminate;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Nothing stranded: a virtual thread's continuation is never rejected nor returned, the
 * executor terminates only once every thread it started has terminated, shutdownNow interrupts
 * them, and the full-injection-ring fallback loses nothing.
 */
class VirtualThreadShutdownTest {

  private static void join(Thread t) throws InterruptedException {
    assertTrue(t.join(Duration.ofSeconds(LIVENESS_SECONDS)), t + " did not finish");
  }

  @Test
  void shutdownLetsStartedThreadsFinishAndTheirChildrenStart() throws Exception {
    GmpExecutor ex = GmpExecutor.create(2);
    Thread.Builder.OfVirtual b = ex.virtualThreadBuilder();
    CountDownLatch parked = new CountDownLatch(10);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger done = new AtomicInteger();
    List<Thread> parents = new ArrayList<>();
    List<Thread> children = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int i = 0; i < 10; i++) {
      parents.add(b.start(() -> {
        parked.countDown();
        try {
          release.await(); // parked across shutdown(); woken from outside after it
          Thread.sleep(1); // a timed park after shutdown: the unparker's wake-up is accepted
        } catch (InterruptedException e) {
          throw new AssertionError(e);
        }
        children.add(b.start(done::incrementAndGet)); // a start after shutdown, from inside
        done.incrementAndGet();
      }));
    }
    await(parked, "every parent is about to park");
    ex.shutdown();
    assertTrue(ex.isShutdown());
    assertFalse(ex.awaitTermination(0, TimeUnit.SECONDS), "live virtual threads keep it open");
    release.countDown();
    for (Thread t : parents) {
      join(t);
    }
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS), ex.dump());
    assertEquals(10, children.size());
    for (Thread t : children) {
      join(t);
    }
    assertEquals(20, done.get());
    assertEquals(0, ex.stats().virtualThreads());
  }

  @Test
  void shutdownNowInterruptsThreadsAndReturnsNoContinuation() throws Exception {
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).maxSpareThreads(0).build();
    Thread.Builder.OfVirtual b = ex.virtualThreadBuilder();
    // A hog holds the only processor (no spare budget: sysmon cannot retake it), so the threads
    // started next stay queued: shutdownNow must keep their continuations, not return them.
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch hogging = new CountDownLatch(1);
    Thread hog = b.start(() -> {
      hogging.countDown();
      while (!stop.get()) {
        Thread.onSpinWait();
      }
    });
    await(hogging, "the hog runs");
    AtomicInteger interruptedWhenRun = new AtomicInteger();
    List<Thread> queued = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      queued.add(b.start(() -> {
        if (Thread.currentThread().isInterrupted()) {
          interruptedWhenRun.incrementAndGet();
        }
      }));
    }
    List<Runnable> returned = ex.shutdownNow();
    assertEquals(List.of(), returned, "continuations of started threads are never returned");
    stop.set(true);
    join(hog);
    for (Thread t : queued) {
      join(t);
    }
    assertEquals(50, interruptedWhenRun.get(), "shutdownNow interrupted every live thread");
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS), ex.dump());
  }

  @Test
  void shutdownNowWakesParkedAndSleepingThreads() throws Exception {
    GmpExecutor ex = GmpExecutor.create(2);
    Thread.Builder.OfVirtual b = ex.virtualThreadBuilder();
    CountDownLatch blocked = new CountDownLatch(20);
    AtomicInteger interrupted = new AtomicInteger();
    List<Thread> ts = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      boolean sleeper = i % 2 == 0;
      ts.add(b.start(() -> {
        blocked.countDown();
        try {
          if (sleeper) {
            Thread.sleep(TimeUnit.DAYS.toMillis(1));
          } else {
            new CountDownLatch(1).await();
          }
        } catch (InterruptedException e) {
          interrupted.incrementAndGet();
        }
      }));
    }
    await(blocked, "every thread is about to block");
    ex.shutdownNow();
    for (Thread t : ts) {
      join(t);
    }
    assertEquals(20, interrupted.get());
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS), ex.dump());
  }

  @Test
  void aStartAfterTerminationIsRefusedAndTheThreadEnds() throws Exception {
    GmpExecutor ex = GmpExecutor.create(1);
    Thread.Builder.OfVirtual b = ex.virtualThreadBuilder();
    join(b.start(() -> {}));
    ex.shutdown();
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
    AtomicBoolean ran = new AtomicBoolean();
    Thread t = b.unstarted(() -> ran.set(true));
    assertThrows(RejectedExecutionException.class, t::start);
    assertEquals(Thread.State.TERMINATED, t.getState(), "terminated, not stranded");
    join(t);
    assertFalse(ran.get());
    assertEquals(0, ex.stats().virtualThreads());
  }

  /**
   * More continuations than the injection ring holds (16K), queued while the only processor is
   * held and the executor is shut down: the overflow goes through the locked path, nothing is
   * rejected, everything runs.
   */
  @Test
  void aFullInjectionRingNeverRejectsAContinuation() throws Exception {
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).maxSpareThreads(0).build();
    Thread.Builder.OfVirtual b = ex.virtualThreadBuilder();
    int n = GlobalQueue.INJECT_CAPACITY + 4_000;
    AtomicInteger arrived = new AtomicInteger();
    AtomicBoolean released = new AtomicBoolean();
    List<Thread> ts = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ts.add(b.start(() -> {
        arrived.incrementAndGet();
        while (!released.get()) {
          LockSupport.park();
        }
      }));
    }
    TestSupport.awaitCondition(() -> "all parked: " + ex.stats(), LIVENESS_SECONDS,
        () -> arrived.get() == n && ex.stats().parkedVirtualThreads() == n);
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch hogging = new CountDownLatch(1);
    Thread hog = b.start(() -> {
      hogging.countDown();
      while (!stop.get()) {
        Thread.onSpinWait();
      }
    });
    await(hogging, "the hog holds the only processor");
    released.set(true);
    for (Thread t : ts) {
      LockSupport.unpark(t); // n outside resumptions while nobody takes any: > the ring's size
    }
    ex.shutdown();
    assertFalse(ex.isTerminated());
    stop.set(true);
    join(hog);
    for (Thread t : ts) {
      join(t);
    }
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS), ex.dump());
    assertEquals(0, ex.stats().virtualThreads());
  }

  /** The TestSupport helper still applies to an executor whose threads are all done. */
  @Test
  void terminateWorksAfterVirtualThreads() throws Exception {
    GmpExecutor ex = GmpExecutor.create(2);
    join(ex.virtualThreadBuilder().start(() -> {}));
    terminate(ex);
  }
}
