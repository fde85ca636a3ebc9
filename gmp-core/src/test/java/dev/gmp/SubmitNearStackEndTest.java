package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Submissions from frames near the end of the caller's stack: a StackOverflowError may land at
 * any call on the way in (a wake-up's claim, the scheduler lock, a full ring's overflow, a timer
 * heap's lock and sift). Whatever it interrupts, no lock or claim stays held, every task whose
 * submission returned runs, none runs twice, and the executor goes on working. A recursion that
 * submits from every frame on its way back up tries each point in turn. Before the timer heap's
 * add was made safe (2026-12-06), every {@code SCHEDULE} run left timers that never fired.
 */
class SubmitNearStackEndTest {

  private static final int ROUNDS = 8;
  private static final int MAX_IDS = 1 << 20;

  /** Who dives and how it submits. */
  enum Kind {
    /** An outside thread's execute: the injection side, wakep's claim, the locked put. */
    EXECUTE_OUTSIDE,
    /** A task's own execute: runnext, the ring, its overflow to the global queue. */
    EXECUTE_INSIDE,
    /** An outside thread's 1 ms timer: a P's timer heap. */
    SCHEDULE_OUTSIDE,
    /** A task's own submit: the future is the task's G. */
    SUBMIT_INSIDE,
    /** A task's marked blocking call: its P handed on and taken back at the same depth. */
    BLOCKING_INSIDE,
    /** A task's invokeAll of one task: the future queued as its own G, then waited for. */
    INVOKE_ALL_INSIDE
  }

  private static boolean inside(Kind kind) {
    return kind != Kind.EXECUTE_OUTSIDE && kind != Kind.SCHEDULE_OUTSIDE;
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void nothingIsLostOrLockedNearTheStacksEnd(Kind kind) throws Exception {
    GmpExecutor ex = GmpExecutor.builder().parallelism(2).build();
    try (var c = TestSupport.closer(ex)) {
      Diver d = new Diver(ex, kind);
      for (int round = 0; round < ROUNDS; round++) {
        if (inside(kind)) {
          CountDownLatch dived = new CountDownLatch(1);
          ex.execute(() -> {
            d.dive();
            dived.countDown();
          });
          TestSupport.await(
              dived, () -> "round " + d.round + " dives inside a task: " + ex.stats());
        } else {
          // A small stack: the dive is short, and each thread's id picks another P's timer heap.
          Thread diver = new Thread(null, d::dive, "diver-" + round, 256 * 1024);
          diver.start();
          diver.join(TimeUnit.SECONDS.toMillis(LIVENESS_SECONDS));
          if (diver.isAlive()) {
            fail("round " + round + ": a submission never returned (a lock left held?): "
                + ex.stats());
          }
        }
        d.round++;
      }
      assertFalse(d.accepted.isEmpty(), "some submissions returned");
      TestSupport.awaitCondition(
          () -> "every accepted task runs: " + ex.stats(), LIVENESS_SECONDS,
          () -> d.accepted.stream().allMatch(id -> d.runs.get(id) > 0));
      for (int id = 0; id < Math.min(d.nextId.get(), MAX_IDS); id++) {
        assertTrue(d.runs.get(id) <= 1, "task " + id + " ran " + d.runs.get(id) + " times");
      }
      // Every P still runs tasks and fires timers submitted from ordinary stacks.
      int n = 4 * ex.stats().parallelism();
      CountDownLatch ran = new CountDownLatch(2 * n);
      for (int i = 0; i < n; i++) {
        Thread t = new Thread(() -> {
          ex.execute(ran::countDown);
          ex.schedule(ran::countDown, 1, TimeUnit.MILLISECONDS);
        });
        t.start();
        t.join(TimeUnit.SECONDS.toMillis(LIVENESS_SECONDS));
        assertFalse(t.isAlive(), "submissions from a fresh thread return: " + ex.stats());
      }
      TestSupport.await(ran, () -> "tasks and timers from fresh threads run: " + ex.stats());
      TestSupport.runTwoAtOnce(ex); // both processors still run tasks (none lost in a hand-off)
    }
  }

  /**
   * A timer scheduled from outside while sysmon sleeps deeply and every P runs a task: the add's
   * kick finds no P idle and wakes sysmon (TimerSleeper#dueWhileBusy), which took the scheduler
   * lock with no stack check. Near the stack's end the JDK delays the overflow out of the lock's
   * acquisition to its caller, and the lock stayed held by a thread that then exited: no M could
   * ever take it again. Each round puts sysmon back into its deep sleep, then dives.
   */
  @Test
  void aTimerFromTheStacksEndWakesADeeplySleepingSysmonWithoutLeavingTheLockHeld()
      throws Exception {
    GmpExecutor ex = GmpExecutor.builder().parallelism(2).build();
    Sysmon sysmon = ex.sched.sysmon;
    try {
      Diver d = new Diver(ex, Kind.SCHEDULE_OUTSIDE);
      ex.submit(() -> {}).get(); // Ms and sysmon exist
      for (int round = 0; round < ROUNDS; round++) {
        TestSupport.awaitCondition(
            () -> "sysmon's deep sleep: " + ex.stats(), LIVENESS_SECONDS, () -> sysmon.waiting);
        // Two tasks on the CPU hold both Ps. Started beside idle Ps, they leave sysmon asleep
        // (Sysmon#wakeForBacklog); if something woke it anyway, this round tests nothing more.
        AtomicInteger started = new AtomicInteger();
        AtomicBoolean release = new AtomicBoolean();
        for (int i = 0; i < 2; i++) {
          ex.execute(() -> {
            started.incrementAndGet();
            while (!release.get()) {
              Thread.onSpinWait();
            }
          });
        }
        TestSupport.awaitCondition(
            () -> "both tasks running: " + ex.stats(), LIVENESS_SECONDS,
            () -> started.get() == 2);
        Thread diver = new Thread(null, d::dive, "diver-" + round, 256 * 1024);
        diver.start();
        diver.join(TimeUnit.SECONDS.toMillis(LIVENESS_SECONDS));
        release.set(true);
        if (diver.isAlive()) {
          fail("round " + round + ": a schedule never returned: " + ex.stats());
        }
        assertTrue(TestSupport.lockFree(ex, LIVENESS_SECONDS),
            "round " + round + ": the scheduler lock stays held: " + ex.stats());
        CountDownLatch after = new CountDownLatch(2); // the Ms take the lock again
        ex.execute(after::countDown);
        ex.execute(after::countDown);
        TestSupport.await(after, () -> "tasks after dive " + d.round + ": " + ex.stats());
        d.round++;
      }
      TestSupport.awaitCondition(
          () -> "every accepted timer fires: " + ex.stats(), LIVENESS_SECONDS,
          () -> d.accepted.stream().allMatch(id -> d.runs.get(id) > 0));
    } finally {
      // Else shutdown would wait for the lock forever: the failure above says why.
      if (TestSupport.lockFree(ex, 1)) {
        TestSupport.closer(ex).close();
      }
    }
  }

  /** Numbered submissions from every frame of a recursion to the stack's end. */
  private static final class Diver {
    final GmpExecutor ex;
    final Kind kind;
    final AtomicIntegerArray runs = new AtomicIntegerArray(MAX_IDS);
    final AtomicInteger nextId = new AtomicInteger();
    final Queue<Integer> accepted = new ConcurrentLinkedQueue<>();
    volatile int round;

    Diver(GmpExecutor ex, Kind kind) {
      this.ex = ex;
      this.kind = kind;
    }

    /** Recurses to the stack's end, then submits a numbered task from each frame on the way up. */
    void dive() {
      try {
        dive();
      } catch (StackOverflowError bottom) {
        // the end: submit from here up
      }
      try {
        int id = nextId.getAndIncrement();
        if (id < MAX_IDS) {
          Runnable task = () -> runs.incrementAndGet(id);
          switch (kind) {
            case SCHEDULE_OUTSIDE -> ex.schedule(task, 1, TimeUnit.MILLISECONDS);
            case SUBMIT_INSIDE -> ex.submit(task);
            case BLOCKING_INSIDE -> GmpExecutor.blocking(() -> {
              task.run();
              return null;
            });
            case INVOKE_ALL_INSIDE -> ex.invokeAll(List.of(Executors.callable(task)));
            default -> ex.execute(task);
          }
          accepted.add(id);
        }
      } catch (StackOverflowError tooDeep) {
        // this frame's submission (or its bookkeeping) did not fit: the next frame up tries
      } catch (Exception e) {
        throw new AssertionError(kind + " threw", e); // the task's own body throws nothing
      }
    }
  }
}
