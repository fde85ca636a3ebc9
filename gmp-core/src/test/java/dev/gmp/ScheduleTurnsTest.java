package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * SchedulingLoop.schedule returns to mstart after SCHEDULE_TURNS tasks, so that an M's loop is
 * entered afresh (and runs the JIT's current code) rather than living forever in one
 * on-stack-replaced frame. Driven on the production code with a scheduler whose Ms have no
 * threads: the test's own thread is the M.
 */
class ScheduleTurnsTest {
  private final Scheduler s =
      new Scheduler(
          new Config(1, 64, 8, 10_000_000L, 60_000_000_000L, "turns", Thread::new, null, null),
          false);

  @Test
  void scheduleReturnsAfterItsTurnsWithTheRestStillQueued() throws Exception {
    int queued = SchedulingLoop.SCHEDULE_TURNS + 300;
    AtomicInteger ran = new AtomicInteger();
    s.lock.lock();
    try {
      for (int i = 0; i < queued; i++) {
        G g = new G();
        g.task = ran::incrementAndGet;
        g.setStatus(G.Grunnable);
        s.global.putLocked(g);
      }
    } finally {
      s.lock.unlock();
    }
    M m = new M(s, 1);
    P pp;
    s.lock.lock();
    try {
      pp = s.idle.pidleget();
    } finally {
      s.lock.unlock();
    }
    assertTrue(s.acquirep(m, pp));

    // On a thread of its own: if schedule never returned, it would run everything and then park
    // in stopm for good, and the get below would time out.
    FutureTask<Void> loop =
        new FutureTask<>(
            () -> {
              SchedulingLoop.schedule(m);
              return null;
            });
    Thread t = new Thread(loop, "schedule-turns");
    t.setDaemon(true);
    t.start();

    loop.get(30, TimeUnit.SECONDS); // a full turn returns to mstart, which calls again
    assertEquals(SchedulingLoop.SCHEDULE_TURNS, ran.get(), "one task per turn");
    assertEquals(
        queued - SchedulingLoop.SCHEDULE_TURNS,
        s.global.size() + pp.runq.size(),
        "the rest still queued, none lost or run twice");
  }
}
