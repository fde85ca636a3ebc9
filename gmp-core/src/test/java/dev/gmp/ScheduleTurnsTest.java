package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
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
        s.global.put(g);
      }
    } finally {
      s.lock.unlock();
    }
    M m = TestSupport.mWithP(s, 1);
    P pp = m.p;

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

  /**
   * An M leaves mstart's loop by SchedulingLoop.MExit: idle spares retiring after keepAlive and
   * every M at shutdown. M.run must catch it, so no thread ever reaches its uncaught-exception
   * handler with it (without the catch each exit would report an MExit there).
   */
  @Test
  void exitingMsReportNothing() throws Exception {
    List<Throwable> caught = new CopyOnWriteArrayList<>();
    TestSupport.CountingFactory made = new TestSupport.CountingFactory();
    GmpExecutor ex =
        GmpExecutor.builder()
            .parallelism(2)
            .keepAlive(Duration.ofMillis(20))
            .threadFactory(
                r -> {
                  Thread t = made.newThread(r);
                  t.setUncaughtExceptionHandler((th, e) -> caught.add(e));
                  return t;
                })
            .build();
    CountDownLatch done = new CountDownLatch(50);
    for (int i = 0; i < 50; i++) {
      ex.execute(
          () -> {
            try {
              GmpExecutor.blocking(
                  () -> {
                    Thread.sleep(1); // a blocking call: its P goes to another M
                    return null;
                  });
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
            done.countDown();
          });
    }
    TestSupport.await(done, "blocking tasks");
    assertTrue(made.made.size() > 2, "the calls made spares: " + made.made.size());
    TestSupport.awaitCondition("idle spares retired", () -> ex.stats().threads() <= 2);
    ex.shutdown();
    assertTrue(ex.awaitTermination(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
    TestSupport.awaitCondition("every thread gone", () -> made.alive() == 0);
    assertEquals(List.of(), caught, "an M's exit is not an uncaught exception");
  }
}
