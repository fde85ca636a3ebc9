package dev.gmp.bench.trace;

import dev.gmp.GmpExecutor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import jdk.jfr.Recording;

/**
 * A short workload that exercises everything the trace view shows, recorded with every gmp
 * event on: outside bursts and a fan-out (running, steals), marked blocking calls (hand-offs,
 * syscall retakes), a CPU hog and a task blocked without blocking() (retakes), a long runnext
 * chain (demotions), and idle gaps between the phases (idle lanes, parked threads). About a
 * second on two cores.
 */
final class TraceDemo {
  /** Every dev.gmp event type. */
  static final String[] EVENTS = {
    "dev.gmp.ExecutorStats", "dev.gmp.Steal", "dev.gmp.Handoff", "dev.gmp.Retake",
    "dev.gmp.ProcState", "dev.gmp.Park", "dev.gmp.Unpark", "dev.gmp.RunnextDemotion"
  };

  private TraceDemo() {}

  /** Runs the workload on a fresh executor named {@code name} and writes the recording. */
  static void record(Path out, String name, int parallelism) throws Exception {
    // The executor first: gmp's JFR listener is then in place when the recording starts, so the
    // periodic ExecutorStats runs from the start and every P's initial state is recorded.
    try (GmpExecutor ex = GmpExecutor.builder().name(name).parallelism(parallelism)
            .timeSlice(Duration.ofMillis(5)).build();
        Recording r = new Recording()) {
      for (String e : EVENTS) {
        r.enable(e);
      }
      r.enable("dev.gmp.ExecutorStats").withPeriod(Duration.ofMillis(50));
      r.start();
      workload(ex);
      r.stop();
      r.dump(out);
    }
  }

  private static final AtomicLong SINK = new AtomicLong();

  private static void spin(long nanos) {
    long end = System.nanoTime() + nanos;
    long x = 0;
    while (System.nanoTime() < end) {
      x++;
    }
    SINK.addAndGet(x);
  }

  private static void await(CountDownLatch l, String what) throws InterruptedException {
    if (!l.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("trace demo: timed out waiting for " + what);
    }
  }

  private static void gap() throws InterruptedException {
    Thread.sleep(20); // an idle gap between phases: idle lanes and parked threads in the picture
  }

  static void workload(GmpExecutor ex) throws Exception {
    // 1. An outside burst of small tasks.
    CountDownLatch burst = new CountDownLatch(2000);
    for (int i = 0; i < 2000; i++) {
      ex.execute(() -> {
        spin(20_000);
        burst.countDown();
      });
    }
    await(burst, "the burst");
    gap();

    // 2. A fan-out: one task spawns into its own queue and waits in a marked blocking call, so
    // its processor is handed off at once and the others steal its children.
    CountDownLatch kids = new CountDownLatch(400);
    ex.submit(() -> {
      for (int i = 0; i < 400; i++) {
        ex.execute(() -> {
          spin(50_000);
          kids.countDown();
        });
      }
      return GmpExecutor.blocking(() -> kids.await(30, TimeUnit.SECONDS));
    }).get(30, TimeUnit.SECONDS);
    gap();

    // 3. Marked blocking calls with work arriving meanwhile: sysmon retakes and hands off.
    CountDownLatch calls = new CountDownLatch(24);
    for (int i = 0; i < 24; i++) {
      ex.execute(() -> {
        try {
          GmpExecutor.blocking(() -> {
            Thread.sleep(3);
            return null;
          });
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
        spin(200_000);
        calls.countDown();
      });
    }
    await(calls, "the blocking calls");
    gap();

    // 4. A hog and an unmarked blocker, each with work queued behind it: both retaken.
    CountDownLatch behind = new CountDownLatch(40);
    CountDownLatch hogged = new CountDownLatch(2);
    ex.execute(() -> {
      for (int i = 0; i < 20; i++) {
        ex.execute(() -> {
          spin(100_000);
          behind.countDown();
        });
      }
      spin(30_000_000);
      hogged.countDown();
    });
    ex.execute(() -> {
      for (int i = 0; i < 20; i++) {
        ex.execute(() -> {
          spin(100_000);
          behind.countDown();
        });
      }
      try {
        Thread.sleep(30);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      hogged.countDown();
    });
    await(behind, "the tasks behind the hog and the blocker");
    await(hogged, "the hog and the blocker");
    gap();

    // 5. A long runnext chain: each hop spawns the next, sharing one time slice, until sysmon's
    // preemption demotes it to the global queue (several times over 40 ms).
    CountDownLatch chain = new CountDownLatch(1);
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(40);
    class Hop implements Runnable {
      @Override
      public void run() {
        spin(2_000);
        if (System.nanoTime() < until) {
          ex.execute(new Hop());
        } else {
          chain.countDown();
        }
      }
    }
    ex.execute(new Hop());
    await(chain, "the runnext chain");
    gap();
  }
}
