package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import jdk.jfr.Category;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;

/** The dev.gmp.* JFR events, each from a workload that must produce it, read back live. */
class JfrEventsTest {

  static final List<Class<? extends Event>> EVENTS = List.of(
      Jfr.ExecutorStatsEvent.class, Jfr.StealEvent.class, Jfr.HandoffEvent.class,
      Jfr.RetakeEvent.class, Jfr.ProcStateEvent.class, Jfr.ParkEvent.class, Jfr.UnparkEvent.class,
      Jfr.RunnextDemotionEvent.class);

  /** A RecordingStream of the given gmp events of one executor (by its name field). */
  static final class Rec implements AutoCloseable {
    final RecordingStream rs = new RecordingStream();
    final Queue<RecordedEvent> events = new ConcurrentLinkedQueue<>();
    /** Keeps gmp's listener installed: it comes with the first executor, goes with the last. */
    final GmpExecutor keeper = GmpExecutor.create(1);

    Rec(String executor, String... names) {
      for (String n : names) {
        if (n.equals("dev.gmp.ExecutorStats")) {
          rs.enable(n).withPeriod(Duration.ofMillis(100));
        } else {
          rs.enable(n);
        }
        rs.onEvent(n, e -> {
          if (executor.equals(e.getString("executor"))) {
            events.add(e);
          }
        });
      }
      rs.startAsync();
      // startAsync returns before the recording runs; gmp's gate flips once it does, and only
      // then are events recorded (a test that triggers one event must not race the start).
      TestSupport.awaitCondition("the recording is running", () -> Jfr.on);
    }

    /** Waits (bounded) for an event of type {@code name} matching {@code p}, and returns it. */
    RecordedEvent await(String name, Predicate<RecordedEvent> p) {
      RecordedEvent[] found = new RecordedEvent[1];
      TestSupport.awaitCondition(() -> "a matching " + name + " among " + events.size()
          + " events: " + events, LIVENESS_SECONDS, () -> {
            for (RecordedEvent e : events) {
              if (e.getEventType().getName().equals(name) && p.test(e)) {
                found[0] = e;
                return true;
              }
            }
            return false;
          });
      return found[0];
    }

    @Override
    public void close() {
      rs.close();
      keeper.shutdown();
    }
  }

  @Test
  void everyEventIsNamedCategorisedDisabledByDefaultAndWithoutStackTraces() {
    for (Class<? extends Event> c : EVENTS) {
      assertTrue(c.getAnnotation(Name.class).value().startsWith("dev.gmp."), c.getName());
      assertEquals(List.of("gmp"), List.of(c.getAnnotation(Category.class).value()), c.getName());
      assertFalse(c.getAnnotation(Enabled.class).value(), c.getName() + " disabled by default");
      assertFalse(c.getAnnotation(StackTrace.class).value(), c.getName() + " no stack trace");
    }
    assertEquals("dev.gmp.ExecutorStats", Jfr.ExecutorStatsEvent.class.getAnnotation(Name.class)
        .value());
    assertEquals("dev.gmp.Steal", Jfr.StealEvent.class.getAnnotation(Name.class).value());
    assertEquals("dev.gmp.Handoff", Jfr.HandoffEvent.class.getAnnotation(Name.class).value());
    assertEquals("dev.gmp.Retake", Jfr.RetakeEvent.class.getAnnotation(Name.class).value());
  }

  @Test
  void theGateFollowsRecordings() {
    // The listener is installed while an executor lives.
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(1))) {
      assertFalse(Jfr.on, "no recording running");
      try (Rec r = new Rec("none", "dev.gmp.Steal")) {
        TestSupport.awaitCondition("gate on", () -> Jfr.on);
      }
      TestSupport.awaitCondition("gate off again", () -> !Jfr.on);
    }
  }

  @Test
  void stealsNameThiefVictimAndTasks() throws Exception {
    try (Rec r = new Rec("jfr-steal", "dev.gmp.Steal");
        TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().name("jfr-steal")
            .parallelism(2).timeSlice(Duration.ofMinutes(5)).build())) {
      GmpExecutor ex = c.ex();
      // The spawner holds its processor (no retake within a 5 min slice, and it waits on the CPU:
      // a blocked one would lose its processor, with its queue, to sysmon's detector): its
      // children can only run by being stolen.
      int kids = 64;
      CountDownLatch done = new CountDownLatch(kids);
      ex.submit(() -> {
        for (int i = 0; i < kids; i++) {
          ex.execute(done::countDown);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIVENESS_SECONDS);
        while (done.getCount() != 0 && System.nanoTime() - deadline < 0) {
          Thread.onSpinWait();
        }
        return null;
      }).get(LIVENESS_SECONDS + 5, TimeUnit.SECONDS);
      assertTrue(ex.stats().steals() > 0, "the children were stolen: " + ex.stats());
      assertTrue(Jfr.on, "the gate is on while the recording runs");
      RecordedEvent e = r.await("dev.gmp.Steal", x -> true);
      assertNotEquals(e.getInt("thief"), e.getInt("victim"));
      assertTrue(e.getInt("tasks") >= 1, e.toString());
      assertTrue(e.getInt("thief") < 2 && e.getInt("victim") < 2, e.toString());
    }
  }

  @Test
  void anEagerHandoff() throws Exception {
    // No sysmon: the hand-off can only be the blocking call's own (eager) one. Set up one
    // processor and a second, idle thread to hand it to: two tasks that must run at once start
    // two threads on two processors, then the second processor is retired.
    GmpExecutor noSysmon = new GmpExecutor(
        GmpExecutor.builder().name("jfr-eager").parallelism(2).config(), false);
    try (Rec r = new Rec("jfr-eager", "dev.gmp.Handoff");
        TestSupport.Closer c = TestSupport.closer(noSysmon)) {
      GmpExecutor ex = c.ex();
      CountDownLatch both = new CountDownLatch(2);
      for (int i = 0; i < 2; i++) {
        ex.execute(() -> {
          both.countDown();
          try {
            both.await(LIVENESS_SECONDS, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
      }
      TestSupport.await(both, "two tasks at once on two threads");
      TestSupport.awaitCondition(() -> "two idle threads: " + ex.stats(), LIVENESS_SECONDS,
          () -> ex.stats().idleThreads() == 2 && ex.stats().idleProcessors() == 2);
      ex.setParallelism(1);
      // A task waits in the only processor's queue when the call starts: nobody can steal it,
      // so only the eager hand-off to the idle thread lets it run.
      CountDownLatch kid = new CountDownLatch(1);
      java.util.concurrent.Future<Boolean> call = ex.submit(() -> {
        ex.execute(kid::countDown);
        return GmpExecutor.blocking(() -> kid.await(LIVENESS_SECONDS, TimeUnit.SECONDS));
      });
      // The queued task runs only if the call handed its P on: say what the executor did if not.
      assertTrue(kid.await(LIVENESS_SECONDS, TimeUnit.SECONDS),
          () -> "the call did not hand its P to the idle thread:\n" + ex.dump());
      assertTrue(call.get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      RecordedEvent e = r.await("dev.gmp.Handoff", x -> x.getBoolean("eager"));
      assertEquals(0, e.getInt("p"));
    }
  }

  @Test
  void aSysmonRetakeOfABlockingCall() throws Exception {
    try (Rec r = new Rec("jfr-syscall", "dev.gmp.Handoff", "dev.gmp.Retake", "dev.gmp.ProcState");
        TestSupport.Closer c = TestSupport.closer(
            GmpExecutor.builder().name("jfr-syscall").parallelism(1).build())) {
      GmpExecutor ex = c.ex();
      // sysmon: nothing waits at the start, and no other processor exists to run new work.
      CountDownLatch release = new CountDownLatch(1);
      ex.execute(() -> {
        try {
          GmpExecutor.blocking(() -> release.await(LIVENESS_SECONDS, TimeUnit.SECONDS));
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      });
      try {
        RecordedEvent rt = r.await("dev.gmp.Retake", e -> e.getString("kind").equals("syscall"));
        assertTrue(rt.getDuration("held").toNanos() >= Sysmon.SYSCALL_MIN_AGE_NANOS,
            rt.toString());
        assertTrue(rt.getLong("m") >= 1, rt.toString());
        r.await("dev.gmp.Handoff", e -> !e.getBoolean("eager"));
        r.await("dev.gmp.ProcState", e -> e.getString("state").equals("syscall"));
      } finally {
        release.countDown();
      }
    }
  }

  @Test
  void aRetakeOfABlockedTask() throws Exception {
    try (Rec r = new Rec("jfr-retake", "dev.gmp.Retake");
        TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().name("jfr-retake")
            .parallelism(1).timeSlice(Duration.ofMillis(1)).build())) {
      GmpExecutor ex = c.ex();
      // Blocked without blocking(): once its thread is seen waiting, work arrives that only a
      // retake can run (one processor), so sysmon finds the thread WAITING when it retakes.
      CountDownLatch release = new CountDownLatch(1);
      Thread[] worker = new Thread[1];
      CountDownLatch started = new CountDownLatch(1);
      ex.execute(() -> {
        worker[0] = Thread.currentThread();
        started.countDown();
        try {
          release.await(LIVENESS_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      try {
        TestSupport.await(started, "the blocker started");
        TestSupport.awaitCondition("the blocker waits", () ->
            worker[0].getState() == Thread.State.TIMED_WAITING);
        CountDownLatch other = new CountDownLatch(1);
        ex.execute(other::countDown);
        TestSupport.await(other, "work behind the blocker ran after the retake");
        RecordedEvent b = r.await("dev.gmp.Retake", e -> e.getString("kind").equals("blocked"));
        // The detector retakes a blocked task within a round or two of work arriving, so less
        // than a slice may have passed since sysmon first saw it: the event says how long, > 0.
        assertTrue(b.getDuration("held").toNanos() > 0, "held for some time: " + b);
      } finally {
        release.countDown();
      }
    }
  }

  @Test
  void processorStatesParksAndUnparks() throws Exception {
    try (Rec r = new Rec("jfr-park", "dev.gmp.ProcState", "dev.gmp.Park", "dev.gmp.Unpark");
        TestSupport.Closer c = TestSupport.closer(
            GmpExecutor.builder().name("jfr-park").parallelism(1).build())) {
      GmpExecutor ex = c.ex();
      for (int round = 0; round < 2; round++) {
        int expect = round;
        assertEquals(expect, ex.submit(() -> expect).get(LIVENESS_SECONDS, TimeUnit.SECONDS));
        // Wait until every M is parked (past its spin), so the next task must unpark one. Not
        // "the only M": one run in 15 had a second (threads=2, both idle), e.g. from a wake-up
        // while the first was between dropping its P and reaching the idle list.
        TestSupport.awaitCondition(() -> "parked: " + ex.stats(), LIVENESS_SECONDS, () -> {
          M[] ms = ex.sched.threads.ms();
          if (ms.length == 0) {
            return false;
          }
          for (M m : ms) {
            if (!m.onIdleList || m.runner == null
                || m.runner.getState() != Thread.State.TIMED_WAITING) {
              return false;
            }
          }
          return true;
        });
      }
      r.await("dev.gmp.ProcState", e -> e.getInt("p") == 0
          && e.getString("state").equals("running") && e.getLong("m") >= 1);
      r.await("dev.gmp.ProcState", e -> e.getInt("p") == 0 && e.getString("state").equals("idle")
          && e.getLong("m") == -1);
      r.await("dev.gmp.Park", e -> e.getLong("m") >= 1);
      r.await("dev.gmp.Unpark", e -> e.getLong("m") >= 1);
    }
  }

  @Test
  void aLongRunnextChainIsDemoted() throws Exception {
    try (Rec r = new Rec("jfr-demote", "dev.gmp.RunnextDemotion");
        TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().name("jfr-demote")
            .parallelism(1).timeSlice(Duration.ofMillis(1)).build())) {
      GmpExecutor ex = c.ex();
      CountDownLatch done = new CountDownLatch(1);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIVENESS_SECONDS);
      // Each hop spawns the next into runnext, inheriting the slice; sysmon asks for preemption
      // every slice and the M demotes a hop at its next scheduling point. The chain runs until
      // the recording has seen a demotion (the stream starts asynchronously: an early demotion
      // may come before it records), or the deadline.
      class Hop implements Runnable {
        final boolean last;

        Hop(boolean last) {
          this.last = last;
        }

        @Override
        public void run() {
          if (last || System.nanoTime() > deadline) {
            done.countDown();
          } else {
            ex.execute(new Hop(!r.events.isEmpty()));
          }
        }
      }
      ex.execute(new Hop(false));
      TestSupport.await(done, "the chain ended");
      RecordedEvent e = r.await("dev.gmp.RunnextDemotion", x -> true);
      assertEquals(0, e.getInt("p"));
      assertTrue(e.getLong("goid") > 0, e.toString());
    }
  }

  @Test
  void executorStatsArePeriodic() throws Exception {
    try (Rec r = new Rec("jfr-stats", "dev.gmp.ExecutorStats");
        TestSupport.Closer c = TestSupport.closer(
            GmpExecutor.builder().name("jfr-stats").parallelism(2).build())) {
      GmpExecutor ex = c.ex();
      assertEquals(1, ex.submit(() -> 1).get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      RecordedEvent e = r.await("dev.gmp.ExecutorStats", x -> x.getLong("completed") == 1);
      assertEquals(2, e.getInt("parallelism"));
      assertTrue(e.getInt("threads") >= 1, e.toString());
      assertEquals(0, e.getInt("spareThreads"), e.toString());
      assertFalse(e.getBoolean("oversubscribed"), "one task, no calls: " + e);
      // A recording that reports latency starts its sampling (off until someone asks).
      assertTrue(ex.sched.sampleLatency, "the stats period turned latency sampling on");
    }
  }
}
