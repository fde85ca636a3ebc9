package dev.gmp;

import static dev.gmp.TestSupport.await;
import static dev.gmp.TestSupport.closer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A carrier stuck under a virtual thread at parallelism 1: the JDK compensates blocked carriers
 * only for its ForkJoinPool, so on gmp sysmon must take the processor back (Retake: a task
 * blocked without saying so, or running on, for a time slice while work waits), and another
 * virtual thread must still progress. The bounds are liveness bounds, not timing claims: the
 * retake itself comes after one 10 ms slice.
 */
class VirtualThreadBlockingTest {
  private static final long BOUND_SECONDS = 30;

  private static void join(Thread t) throws InterruptedException {
    assertTrue(t.join(Duration.ofSeconds(BOUND_SECONDS)), t + " did not finish");
  }

  /** Released by the test; its class initialiser parks the virtual thread that runs it. */
  static final CountDownLatch PIN_RELEASE = new CountDownLatch(1);

  static final CountDownLatch PINNED = new CountDownLatch(1);

  /** A park inside a class initialiser cannot unmount (JDK 21-25): the carrier parks. */
  static final class PinsItsCarrier {
    static {
      PINNED.countDown();
      try {
        PIN_RELEASE.await();
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }

    static void touch() {}
  }

  @Test
  void aPinnedThreadLosesItsProcessorAndAnotherProgresses() throws Exception {
    GmpExecutor ex = GmpExecutor.create(1);
    try (var c = closer(ex)) {
      Thread pinned = ex.virtualThreadBuilder().start(PinsItsCarrier::touch);
      await(PINNED, BOUND_SECONDS, "the thread is in the class initialiser");
      CountDownLatch ran = new CountDownLatch(1);
      Thread other = ex.virtualThreadBuilder().start(ran::countDown);
      await(ran, BOUND_SECONDS, "another virtual thread, while the only carrier is pinned");
      GmpStats s = ex.stats();
      assertTrue(s.retakes() >= 1, "sysmon retook the pinned carrier's P: " + s);
      // The carrier is parked (WAITING) under the pinned thread: Gwaiting, as Go's blocked G.
      assertTrue(s.waitingTasks() >= 1, "the pinned thread shows as waiting: " + s);
      PIN_RELEASE.countDown();
      join(pinned);
      join(other);
    }
  }

  /** A blocking read of a pipe (a child process's stdout) holds the carrier in native code. */
  @Test
  void aThreadInFileIoLosesItsProcessorAndAnotherProgresses() throws Exception {
    Process cat = new ProcessBuilder("cat").start();
    GmpExecutor ex = GmpExecutor.create(1);
    try (var c = closer(ex)) {
      InputStream in = cat.getInputStream();
      OutputStream out = cat.getOutputStream();
      CountDownLatch reading = new CountDownLatch(1);
      AtomicInteger read = new AtomicInteger(-2);
      Thread reader = ex.virtualThreadBuilder().start(() -> {
        reading.countDown();
        try {
          read.set(in.read()); // blocks in read(2): no unmount, the carrier stays in native code
        } catch (java.io.IOException e) {
          throw new AssertionError(e);
        }
      });
      await(reading, BOUND_SECONDS, "the reader runs");
      CountDownLatch ran = new CountDownLatch(1);
      Thread other = ex.virtualThreadBuilder().start(ran::countDown);
      await(ran, BOUND_SECONDS, "another virtual thread, while the only carrier is in read(2)");
      assertTrue(ex.stats().retakes() >= 1, "sysmon retook the reader's P: " + ex.stats());
      out.write(42);
      out.flush();
      join(reader);
      join(other);
      assertEquals(42, read.get());
    } finally {
      cat.destroy();
    }
  }

  /**
   * synchronized + blocking inside: since JDK 24 (JEP 491) the thread unmounts while it holds
   * the monitor, a contender blocks without its carrier, and the JDK's unblocker thread resubmits
   * it from outside; on JDK 21 the holder pins and sysmon retakes. Either way, at parallelism 1
   * a third thread progresses and the contender gets the monitor in the end.
   */
  @Test
  void aMonitorHolderThatBlocksDoesNotStopTheOthers() throws Exception {
    GmpExecutor ex = GmpExecutor.create(1);
    try (var c = closer(ex)) {
      Object monitor = new Object();
      CountDownLatch holding = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Thread holder = ex.virtualThreadBuilder().start(() -> {
        synchronized (monitor) {
          holding.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            throw new AssertionError(e);
          }
        }
      });
      await(holding, BOUND_SECONDS, "the holder has the monitor");
      AtomicInteger entered = new AtomicInteger();
      Thread contender = ex.virtualThreadBuilder().start(() -> {
        synchronized (monitor) {
          entered.incrementAndGet();
        }
      });
      CountDownLatch ran = new CountDownLatch(1);
      Thread other = ex.virtualThreadBuilder().start(ran::countDown);
      await(ran, BOUND_SECONDS, "a third thread, while the holder blocks inside synchronized");
      assertEquals(0, entered.get());
      release.countDown();
      join(holder);
      join(contender);
      join(other);
      assertEquals(1, entered.get());
    }
  }
}
