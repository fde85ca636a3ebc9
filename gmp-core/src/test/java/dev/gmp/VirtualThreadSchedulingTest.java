package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static dev.gmp.TestSupport.await;
import static dev.gmp.TestSupport.awaitCondition;
import static dev.gmp.TestSupport.closer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gmp.micrometer.GmpExecutorMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Go's entry points as the JDK reaches them: unpark and start from a gmp carrier are goready /
 * newproc into runnext; Thread.yield is Gosched (global queue); wake-ups from the JDK's
 * unparker threads and from virtual threads of other schedulers are outside submissions. The
 * Carriers counters tell which path each took, so no timing is asserted.
 */
class VirtualThreadSchedulingTest {

  private static void join(Thread t) throws InterruptedException {
    assertTrue(t.join(Duration.ofSeconds(LIVENESS_SECONDS)), t + " did not finish");
  }

  private static Carriers carriers(GmpExecutor ex) {
    return ex.sched.carriers;
  }

  /** Two threads handing a turn to each other with park/unpark, {@code rounds} times each. */
  static Thread[] pingPong(Thread.Builder.OfVirtual b, int rounds, AtomicInteger turns) {
    AtomicInteger turn = new AtomicInteger(); // whose turn: 0 or 1
    Thread[] pair = new Thread[2];
    for (int me = 0; me < 2; me++) {
      int self = me;
      pair[me] = b.unstarted(() -> {
        for (int i = 0; i < rounds; i++) {
          while (turn.get() != self) {
            LockSupport.park(); // a spurious or early wake-up just looks again
          }
          turns.incrementAndGet();
          turn.set(1 - self);
          LockSupport.unpark(pair[1 - self]);
        }
      });
    }
    return pair;
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void parkUnparkPingPongGoesThroughRunnext(int parallelism) throws Exception {
    GmpExecutor ex = GmpExecutor.create(parallelism);
    try (var c = closer(ex)) {
      int rounds = 20_000;
      AtomicInteger turns = new AtomicInteger();
      Thread[] pair = pingPong(ex.virtualThreadBuilder(), rounds, turns);
      pair[1].start();
      pair[0].start();
      join(pair[0]);
      join(pair[1]);
      assertEquals(2 * rounds, turns.get());
      // An unpark of a parked thread from a gmp carrier is goready(next=true): most of the
      // 2 x rounds hand-offs (some find the other not parked yet, and need no execute at all).
      long local = carriers(ex).readiedLocal.sum();
      assertTrue(local >= rounds, "unparks readied on the caller's P: " + local);
      assertEquals(0, carriers(ex).yields.sum());
    }
  }

  /**
   * A thread readied into an empty runnext wakes nobody (its P's M runs it next). If that M's
   * task runs on instead and sysmon may not retake (no spare budget), sysmon's fallback wakes a
   * spinner that steals it: at parallelism 2 it runs on the idle P while the first one hogs.
   */
  @Test
  void aThreadLeftInRunnextBehindAHogIsStolen() throws Exception {
    GmpExecutor ex = GmpExecutor.builder().parallelism(2).maxSpareThreads(0).build();
    try (var c = closer(ex)) {
      CountDownLatch partnerRan = new CountDownLatch(1);
      Thread hog = ex.virtualThreadBuilder().start(() -> {
        ex.virtualThreadBuilder().start(partnerRan::countDown); // newproc: our runnext
        while (partnerRan.getCount() != 0) {
          Thread.onSpinWait(); // never yields: only another M can run the partner
        }
      });
      await(partnerRan, "the partner, stolen from the hog's runnext");
      join(hog);
      assertEquals(1, carriers(ex).readiedLocal.sum(), "the start took runnext");
    }
  }

  @Test
  void threadYieldIsGoschedThroughTheGlobalQueue() throws Exception {
    GmpExecutor ex = GmpExecutor.create(1);
    try (var c = closer(ex)) {
      Thread t = ex.virtualThreadBuilder().start(() -> {
        for (int i = 0; i < 100; i++) {
          Thread.yield();
        }
      });
      join(t);
      assertEquals(100, carriers(ex).yields.sum(), "each yield resubmits once, as Gosched");
      assertEquals(0, carriers(ex).readiedLocal.sum(), "no yield took runnext");
    }
  }

  /** At parallelism 1, a yielding thread lets a thread queued behind it (globally) run. */
  @Test
  void aYieldingThreadLetsTheGlobalQueueRun() throws Exception {
    GmpExecutor ex = GmpExecutor.create(1);
    try (var c = closer(ex)) {
      CountDownLatch spinning = new CountDownLatch(1);
      CountDownLatch other = new CountDownLatch(1);
      Thread spinner = ex.virtualThreadBuilder().start(() -> {
        spinning.countDown();
        while (other.getCount() != 0) {
          Thread.yield();
        }
      });
      await(spinning, "the spinner runs");
      Thread t = ex.virtualThreadBuilder().start(other::countDown); // from outside: global
      await(other, "the thread queued behind a yielding one");
      join(spinner);
      join(t);
    }
  }

  @Test
  void startFromACarrierIsNewprocAndFromOutsideIsGlobal() throws Exception {
    GmpExecutor ex = GmpExecutor.create(1);
    try (var c = closer(ex)) {
      Thread.Builder.OfVirtual b = ex.virtualThreadBuilder();
      join(b.start(() -> {})); // from the test thread
      assertEquals(0, carriers(ex).readiedLocal.sum());
      List<Thread> kids = new ArrayList<>();
      join(b.start(() -> {
        for (int i = 0; i < 10; i++) {
          kids.add(b.start(() -> {}));
        }
      }));
      for (Thread k : kids) {
        join(k);
      }
      assertEquals(10, carriers(ex).readiedLocal.sum(), "starts from a gmp virtual thread");
      // From a plain task of the executor: its M is the carrier of the caller.
      ex.submit(() -> b.start(() -> {})).get(LIVENESS_SECONDS, TimeUnit.SECONDS).join();
      assertEquals(11, carriers(ex).readiedLocal.sum(), "a start from a plain gmp task");
    }
  }

  /** Callers are classified by carrier: a virtual thread of the JDK's scheduler is outside. */
  @Test
  void anUnparkFromADefaultSchedulerVirtualThreadIsAnOutsideSubmission() throws Exception {
    GmpExecutor ex = GmpExecutor.create(1);
    try (var c = closer(ex)) {
      CountDownLatch parked = new CountDownLatch(1);
      AtomicInteger state = new AtomicInteger();
      Thread g = ex.virtualThreadBuilder().start(() -> {
        parked.countDown();
        while (state.get() == 0) {
          LockSupport.park();
        }
      });
      await(parked, "the gmp thread runs");
      awaitCondition("the gmp thread parks", () -> g.getState() == Thread.State.WAITING);
      Thread d = Thread.ofVirtual().start(() -> {
        state.set(1);
        LockSupport.unpark(g);
      });
      join(d);
      join(g);
      assertEquals(0, carriers(ex).readiedLocal.sum(), "a default virtual thread is not ours");
    }
  }

  @Test
  void sleepsAndTimedParksAreWokenFromOutside() throws Exception {
    GmpExecutor ex = GmpExecutor.create(2);
    try (var c = closer(ex)) {
      List<Thread> ts = new ArrayList<>();
      AtomicInteger woke = new AtomicInteger();
      for (int i = 0; i < 50; i++) {
        int k = i;
        ts.add(ex.virtualThreadBuilder().start(() -> {
          try {
            for (int j = 0; j < 5; j++) {
              Thread.sleep(1 + k % 3);
              long deadline = System.nanoTime() + 1_000_000;
              while (System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(deadline - System.nanoTime()); // timed park, may wake early
              }
            }
            woke.incrementAndGet();
          } catch (InterruptedException e) {
            throw new AssertionError(e);
          }
        }));
      }
      for (Thread t : ts) {
        join(t);
      }
      assertEquals(50, woke.get());
      // A sleeper fully unmounted (TIMED_WAITING) is woken by the JDK's timer thread: an
      // outside ready, never this executor's runnext. (A wake that lands while the thread is
      // still unmounting is resubmitted by its own carrier, a local ready: so the 50 threads
      // above may count a few, and only a round that saw the sleeper parked is conclusive.)
      boolean concluded = false;
      for (int round = 0; round < 20 && !concluded; round++) {
        Thread t = ex.virtualThreadBuilder().start(() -> {
          try {
            Thread.sleep(20);
          } catch (InterruptedException e) {
            throw new AssertionError(e);
          }
        });
        awaitCondition("the sleeper parks or ends",
            () -> t.getState() == Thread.State.TIMED_WAITING || !t.isAlive());
        concluded = t.getState() == Thread.State.TIMED_WAITING; // seen parked: unmounted
        long before = carriers(ex).readiedLocal.sum();
        join(t);
        if (concluded) {
          assertEquals(before, carriers(ex).readiedLocal.sum(), "the timer's wake went local");
        }
      }
      assertTrue(concluded, "no round saw the sleeper parked");
    }
  }

  /**
   * Parked virtual threads are waiting tasks, and occupy no thread: not running for JMX's
   * RunningTaskCount, Micrometer's executor.active or toString's active (before, 1,000 parked
   * threads on 2 workers read as 1,000 running).
   */
  @Test
  void parkedVirtualThreadsCountAsWaiting() throws Exception {
    GmpExecutor ex =
        GmpExecutor.builder().parallelism(2).name("parked-vthreads").jmx(true).build();
    try (var c = closer(ex)) {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      new GmpExecutorMetrics(ex, "parked-vthreads", List.of()).bindTo(registry);
      CountDownLatch release = new CountDownLatch(1);
      List<Thread> ts = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        ts.add(ex.virtualThreadBuilder().start(() -> {
          try {
            release.await();
          } catch (InterruptedException e) {
            throw new AssertionError(e);
          }
        }));
      }
      awaitCondition(() -> "8 parked: " + ex.stats(), LIVENESS_SECONDS, () -> {
        GmpStats s = ex.stats();
        return s.virtualThreads() == 8 && s.parkedVirtualThreads() == 8 && s.waitingTasks() >= 8;
      });
      assertTrue(ex.dump().contains("vthreads=8 parkedvthreads=8"), ex.dump());
      Object running = ManagementFactory.getPlatformMBeanServer().getAttribute(
          new ObjectName("dev.gmp:type=GmpExecutor,name=parked-vthreads"), "RunningTaskCount");
      assertEquals(0, running, "JMX RunningTaskCount: " + ex.stats());
      // at most the spinning threads, of which there are at most parallelism (2); 8 before
      double active = registry.get("executor.active").gauge().value();
      assertTrue(active <= 2, "executor.active " + active + ": " + ex.stats());
      Matcher m = Pattern.compile("active = (\\d+),")
          .matcher(ex.toString());
      assertTrue(m.find() && Integer.parseInt(m.group(1)) <= 2, ex.toString());
      release.countDown();
      for (Thread t : ts) {
        join(t);
      }
      awaitCondition(() -> "all gone: " + ex.stats(), LIVENESS_SECONDS,
          () -> ex.stats().virtualThreads() == 0 && ex.stats().parkedVirtualThreads() == 0);
    }
  }

  /**
   * One of our virtual threads calls setParallelism in a loop. Before, it parked in the scheduler
   * lock's queue, the only P's M queued behind it on the same lock, and nothing could run the
   * thread again: the loop and the executor stopped for good (5 runs of 5).
   */
  @Test
  void aVirtualThreadOfOursThatTakesTheSchedulerLockNeverStopsTheExecutor() throws Exception {
    GmpExecutor ex = GmpExecutor.create(2);
    try (var c = closer(ex)) {
      AtomicInteger calls = new AtomicInteger();
      Thread t = ex.virtualThreadBuilder().start(() -> {
        for (int i = 0; i < 4000; i++) {
          ex.setParallelism(1 + (i & 1));
          calls.incrementAndGet();
        }
      });
      assertTrue(t.join(Duration.ofSeconds(LIVENESS_SECONDS)),
          "stopped after " + calls.get() + " calls: " + ex.dump());
      assertEquals(1, ex.submit(() -> 1).get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    }
  }

  /** SynchronousQueue spins before parking on a non-ForkJoinPool carrier, but hands off. */
  @Test
  void synchronousQueueAndExchangerHandOffBetweenGmpThreads() throws Exception {
    GmpExecutor ex = GmpExecutor.create(1);
    try (var c = closer(ex)) {
      var q = new java.util.concurrent.SynchronousQueue<Integer>();
      var x = new java.util.concurrent.Exchanger<Integer>();
      AtomicInteger sum = new AtomicInteger();
      Thread consumer = ex.virtualThreadBuilder().start(() -> {
        try {
          for (int i = 0; i < 1000; i++) {
            sum.addAndGet(q.take());
            sum.addAndGet(x.exchange(0));
          }
        } catch (InterruptedException e) {
          throw new AssertionError(e);
        }
      });
      Thread producer = ex.virtualThreadBuilder().start(() -> {
        try {
          for (int i = 0; i < 1000; i++) {
            q.put(1);
            x.exchange(2);
          }
        } catch (InterruptedException e) {
          throw new AssertionError(e);
        }
      });
      join(consumer);
      join(producer);
      assertEquals(3000, sum.get());
    }
  }
}
