package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What a submission allocates on the submitting thread: one 32-byte G (ForkJoinPool's execute
 * wraps a task in 32 bytes too), plus a 24-byte wrapper for the one task in 64 whose scheduling
 * latency is sampled. In a fresh JVM every byte per task costs time (a page fault per new 4 KB of
 * heap, docs/benchmarks.md "Bytes per task"), so a field added to G must show up here. Counted
 * with the JVM's per-thread allocation counter: bytes, not time, so a busy machine does not move
 * it. Fewer tasks than the injection side holds and than a ring holds, so that no queue grows.
 * {@code submit} allocates one object too: its future is its own G (HelpingFuture, 48 bytes).
 */
class BytesPerTaskTest {
  private static final int OUTSIDE = 10_000; // < GlobalQueue.INJECT_CAPACITY
  private static final int LOCAL = 200; // < RunQueue.SIZE: no overflow to the global queue

  /** 32 bytes, the sampled tasks' wrappers (~0.4 a task) and a little slack for the counter. */
  private static final double MAX_BYTES_PER_TASK = 34.0;

  /**
   * 48 bytes (G's 32 and the future's four fields) plus the sampled wrappers; a fifth field would
   * show 56, a FutureTask beside a G, or the JDK's Runnable adapter beside them, 72 or 96.
   */
  private static final double MAX_BYTES_PER_SUBMIT = 50.0;

  /**
   * com.sun.management.ThreadMXBean#getThreadAllocatedBytes, by reflection: gmp's module reads
   * java.management only, and the interface is public and exported, so no access is opened.
   */
  private static final class Allocations {
    private final Method get;
    private final Object bean = ManagementFactory.getThreadMXBean();

    Allocations() throws Exception {
      Class<?> api = Class.forName("com.sun.management.ThreadMXBean");
      assertTrue(api.isInstance(bean), "HotSpot's ThreadMXBean counts allocations");
      get = api.getMethod("getThreadAllocatedBytes", long.class);
      api.getMethod("setThreadAllocatedMemoryEnabled", boolean.class).invoke(bean, true);
    }

    long of(long tid) {
      try {
        return (long) get.invoke(bean, tid);
      } catch (ReflectiveOperationException e) {
        throw new AssertionError(e);
      }
    }
  }

  @Test
  void anOutsideSubmissionAllocatesOneSmallG() throws Exception {
    Allocations mx = new Allocations();
    GmpExecutor ex = GmpExecutor.create(2);
    try {
      long tid = Thread.currentThread().threadId();
      double perTask = 0;
      for (int round = 0; round < 3; round++) { // the first rounds load and link the path
        CountDownLatch done = new CountDownLatch(OUTSIDE);
        Runnable task = done::countDown;
        long before = mx.of(tid);
        for (int i = 0; i < OUTSIDE; i++) {
          ex.execute(task);
        }
        perTask = (mx.of(tid) - before) / (double) OUTSIDE;
        TestSupport.await(done, LIVENESS_SECONDS, "the outside tasks run: " + ex.stats());
      }
      assertTrue(perTask <= MAX_BYTES_PER_TASK, "bytes per outside submission: " + perTask);
    } finally {
      TestSupport.terminate(ex);
    }
  }

  @Test
  void aLocalSpawnAllocatesOneSmallG() throws Exception {
    Allocations mx = new Allocations();
    GmpExecutor ex = GmpExecutor.create(1);
    try {
      double perTask = 0;
      for (int round = 0; round < 3; round++) {
        CountDownLatch done = new CountDownLatch(LOCAL);
        Runnable task = done::countDown;
        double[] measured = new double[1];
        CountDownLatch spawned = new CountDownLatch(1);
        ex.execute(() -> {
          long tid = Thread.currentThread().threadId();
          long before = mx.of(tid);
          for (int i = 0; i < LOCAL; i++) {
            ex.execute(task);
          }
          measured[0] = (mx.of(tid) - before) / (double) LOCAL;
          spawned.countDown();
        });
        TestSupport.await(spawned, LIVENESS_SECONDS, "the spawning task runs: " + ex.stats());
        TestSupport.await(done, LIVENESS_SECONDS, "the spawned tasks run: " + ex.stats());
        perTask = measured[0]; // written before spawned's countDown
      }
      assertTrue(perTask <= MAX_BYTES_PER_TASK, "bytes per local spawn: " + perTask);
    } finally {
      TestSupport.terminate(ex);
    }
  }

  @Test
  void anOutsideSubmitAllocatesOneFutureThatIsItsG() throws Exception {
    Allocations mx = new Allocations();
    GmpExecutor ex = GmpExecutor.create(2);
    try {
      long tid = Thread.currentThread().threadId();
      double runnables = 0;
      double callables = 0;
      Future<?>[] futures = new Future<?>[OUTSIDE];
      for (int round = 0; round < 3; round++) {
        Runnable task = () -> {};
        Callable<Integer> call = () -> 1;
        long before = mx.of(tid);
        for (int i = 0; i < OUTSIDE; i++) {
          futures[i] = ex.submit(task);
        }
        runnables = (mx.of(tid) - before) / (double) OUTSIDE;
        for (Future<?> f : futures) {
          f.get(LIVENESS_SECONDS, TimeUnit.SECONDS);
        }
        before = mx.of(tid);
        for (int i = 0; i < OUTSIDE; i++) {
          futures[i] = ex.submit(call);
        }
        callables = (mx.of(tid) - before) / (double) OUTSIDE;
        for (Future<?> f : futures) {
          f.get(LIVENESS_SECONDS, TimeUnit.SECONDS);
        }
      }
      assertTrue(runnables <= MAX_BYTES_PER_SUBMIT, "bytes per submit(Runnable): " + runnables);
      assertTrue(callables <= MAX_BYTES_PER_SUBMIT, "bytes per submit(Callable): " + callables);
    } finally {
      TestSupport.terminate(ex);
    }
  }
}
