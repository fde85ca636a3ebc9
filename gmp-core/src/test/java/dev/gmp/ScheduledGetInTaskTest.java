package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static dev.gmp.TestSupport.await;
import static dev.gmp.TestSupport.awaitCondition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A task that waits on a scheduled future (the future {@code schedule} returns) declares its
 * wait, as a wait on {@code submit}'s future does: its processor goes to another thread at once
 * if work waits, rather than when the block detector notices the thread is off the CPU.
 */
class ScheduledGetInTaskTest {
  @RegisterExtension final TrackedExecutors tracked = new TrackedExecutors();

  private static <V> V get(Future<V> f, boolean timed) throws Exception {
    return timed ? f.get(LIVENESS_SECONDS, TimeUnit.SECONDS) : f.get();
  }

  /**
   * A task of ex that waits on timer (timed or not) and returns what its wait threw (null if
   * nothing); its thread goes to {@code thread}, if given.
   */
  private static Future<Throwable> waiter(GmpExecutor ex, Future<?> timer, boolean timed,
      AtomicReference<Thread> thread) {
    return ex.submit(() -> {
      if (thread != null) {
        thread.set(Thread.currentThread());
      }
      try {
        get(timer, timed);
        return null;
      } catch (Throwable e) {
        return e;
      }
    });
  }

  @ParameterizedTest(name = "timed {0}")
  @ValueSource(booleans = {false, true})
  void aTaskWaitingOnAScheduledFutureIsInADeclaredWait(boolean timed) throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.create(1));
    ScheduledFuture<String> timer = ex.schedule(() -> "fired", 1, TimeUnit.HOURS);
    Future<Throwable> waiter = waiter(ex, timer, timed, null);
    // Without the declaration the task counts as running (the detector may hand its P on later,
    // but never makes it a syscall).
    awaitCondition(() -> "the waiter in a declared wait: " + ex.stats(), LIVENESS_SECONDS,
        () -> ex.stats().syscallTasks() == 1);
    CountDownLatch ran = new CountDownLatch(1);
    ex.execute(ran::countDown);
    await(ran, "a task queued behind the waiter runs on the only processor");
    timer.cancel(false);
    assertInstanceOf(CancellationException.class, waiter.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
  }

  @ParameterizedTest(name = "timed {0}")
  @ValueSource(booleans = {false, true})
  void aTimerDueWhileItsWaiterHoldsTheOnlyProcessorStillFires(boolean timed) throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.create(1));
    // Scheduled from the task, so its timer is in the heap of the P the waiter keeps in its call.
    Future<String> waiter =
        ex.submit(() -> get(ex.schedule(() -> "fired", 5, TimeUnit.MILLISECONDS), timed));
    assertEquals("fired", waiter.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
  }

  @ParameterizedTest(name = "periodic {0}")
  @ValueSource(booleans = {false, true})
  void aTimedWaitFromATaskTimesOut(boolean periodic) throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.create(1));
    ScheduledFuture<?> timer = periodic
        ? ex.scheduleAtFixedRate(() -> {}, 1, 1, TimeUnit.HOURS)
        : ex.schedule(() -> "late", 1, TimeUnit.HOURS);
    Future<Throwable> waiter = ex.submit(() -> {
      try {
        timer.get(20, TimeUnit.MILLISECONDS);
        return null;
      } catch (Throwable e) {
        return e;
      }
    });
    assertInstanceOf(TimeoutException.class, waiter.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertFalse(timer.isDone());
    timer.cancel(false);
  }

  @ParameterizedTest(name = "timed {0}")
  @ValueSource(booleans = {false, true})
  void anInterruptedWaiterGetsInterruptedExceptionAndTheTimerStays(boolean timed)
      throws Exception {
    GmpExecutor ex = tracked.track(GmpExecutor.create(1));
    ScheduledFuture<String> timer = ex.schedule(() -> "fired", 1, TimeUnit.HOURS);
    AtomicReference<Thread> thread = new AtomicReference<>();
    Future<Throwable> waiter = waiter(ex, timer, timed, thread);
    awaitCondition(() -> "the waiter in a declared wait: " + ex.stats(), LIVENESS_SECONDS,
        () -> ex.stats().syscallTasks() == 1);
    thread.get().interrupt();
    assertInstanceOf(InterruptedException.class,
        waiter.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertFalse(timer.isDone());
    timer.cancel(false);
  }
}
