package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;

/**
 * Each counter that shares a name with a JFR event counts exactly the events recorded: every
 * counting site emits, every emitting site counts. The executor lives entirely inside one
 * recording and has terminated (every thread gone) before the recording stops, so nothing is
 * counted outside it.
 */
class JfrCountsTest {

  @Test
  void countersAndEventsAgreeUnderBlockingCalls() throws Exception {
    String name = "jfr-counts";
    GmpStats st;
    JfrEventsTest.Rec r = new JfrEventsTest.Rec(name, "dev.gmp.Retake", "dev.gmp.Handoff",
        "dev.gmp.Steal", "dev.gmp.Park", "dev.gmp.Unpark");
    try {
      GmpExecutor ex = GmpExecutor.builder().name(name).parallelism(2)
          .timeSlice(Duration.ofMillis(5)).keepAlive(Duration.ofMillis(20)).build();
      List<Future<?>> all = new ArrayList<>();
      // Marked blocking calls behind a backlog: eager hand-offs, sysmon's syscall retakes, and
      // returning threads taking other calls' processors.
      for (int i = 0; i < 200; i++) {
        all.add(ex.submit(() -> GmpExecutor.blocking(() -> {
          Thread.sleep(1);
          return null;
        })));
      }
      // Unmarked blocking and a CPU hog, each with tasks queued behind: blocked and hog retakes.
      CountDownLatch queued = new CountDownLatch(1);
      all.add(ex.submit(() -> {
        queued.await(LIVENESS_SECONDS, TimeUnit.SECONDS);
        Thread.sleep(100);
        return null;
      }));
      all.add(ex.submit(() -> {
        queued.await(LIVENESS_SECONDS, TimeUnit.SECONDS);
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        while (System.nanoTime() - end < 0) {
          Thread.onSpinWait();
        }
        return null;
      }));
      // Spawns from inside: steals.
      all.add(ex.submit(() -> {
        List<Future<?>> kids = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
          kids.add(ex.submit(() -> {}));
        }
        queued.countDown();
        return kids.size();
      }));
      for (Future<?> f : all) {
        f.get(LIVENESS_SECONDS, TimeUnit.SECONDS);
      }
      ex.shutdown();
      assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS), "terminated");
      st = ex.stats();
    } finally {
      r.rs.stop(); // waits until every recorded event was delivered
      r.close();
    }
    assertTrue(st.retakes() >= 1 && st.handoffs() >= 1 && st.parks() >= 1,
        "the workload retook, handed off and parked: " + st);
    assertEquals(st.retakes(), count(r, "dev.gmp.Retake"), "retakes: " + st);
    assertEquals(st.handoffs(), count(r, "dev.gmp.Handoff"), "handoffs: " + st);
    assertEquals(st.steals(), count(r, "dev.gmp.Steal"), "steals: " + st);
    assertEquals(st.parks(), count(r, "dev.gmp.Park"), "parks: " + st);
    assertEquals(st.unparks(), count(r, "dev.gmp.Unpark"), "unparks: " + st);
  }

  private static long count(JfrEventsTest.Rec r, String type) {
    long n = 0;
    for (RecordedEvent e : r.events) {
      if (e.getEventType().getName().equals(type)) {
        n++;
      }
    }
    return n;
  }
}
