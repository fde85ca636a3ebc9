package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * sysmon's timer slack (TimerSlack): the calling thread's alone, low and back; in an executor,
 * sysmon's only, and only while it retakes Ps from tasks blocked without saying so.
 */
class SysmonTimerSlackTest {
  private static final Path LEADER = Path.of("/proc/self/timerslack_ns");

  private static long slack(String tid) throws IOException {
    return Long.parseLong(Files.readString(Path.of("/proc", tid, "timerslack_ns")).trim());
  }

  private static String ownTid() throws IOException {
    return Path.of("/proc/thread-self").toRealPath().getFileName().toString();
  }

  private static long leader() throws IOException {
    return Long.parseLong(Files.readString(LEADER).trim());
  }

  @Test
  void aThreadSetsItsOwnSlackAndNoOtherThreads() throws Exception {
    assumeTrue(Files.isReadable(LEADER), "Linux 4.6 or later (/proc/PID/timerslack_ns)");
    long before = leader();
    long[] seen = new long[3];
    boolean[] took = new boolean[2];
    Thread t =
        new Thread(
            () -> {
              TimerSlack slack = TimerSlack.ofCallingThread();
              try {
                took[0] = slack.set(true);
                seen[0] = slack(ownTid());
                seen[1] = leader();
                took[1] = slack.set(false);
                seen[2] = slack(ownTid());
              } catch (IOException e) {
                seen[0] = -1;
              } finally {
                slack.close();
              }
            });
    t.start();
    t.join();
    assertTrue(took[0] && took[1], "both writes took");
    assertEquals(TimerSlack.LOW_NANOS, seen[0], "the thread's own slack, low");
    assertEquals(before, seen[1], "the process's (its main thread's) while it was low");
    assertEquals(before, seen[2], "the thread's own, back");
    assertEquals(before, slack(ownTid()), "the test's own thread");
  }

  @Test
  void sysmonLowersItsSlackWhileItRetakesBlockedTasksOnly() throws Exception {
    assumeTrue(Files.isReadable(LEADER), "Linux 4.6 or later (/proc/PID/timerslack_ns)");
    assumeTrue(Switches.BLOCK_DETECT, "the detector is switched off (-Dgmp.blockDetect=false)");
    long normal = leader();
    try (GmpExecutor ex = GmpExecutor.builder().parallelism(1).name("tsl").build()) {
      String[] worker = new String[1];
      ex.submit(() -> worker[0] = ownTid()).get(10, TimeUnit.SECONDS);
      String sysmon = awaitThread("tsl-sysmon");
      assertEquals(normal, slack(sysmon), "no blocked task retaken yet: the default");
      // Four chains of unmarked 2 ms sleeps on one P: work always waits behind a sleeping task,
      // so sysmon keeps retaking until the chains stop.
      AtomicBoolean stop = new AtomicBoolean();
      CountDownLatch stopped = new CountDownLatch(4);
      for (int i = 0; i < 4; i++) {
        ex.execute(new SleepChain(ex, stop, stopped));
      }
      long low = awaitSlack(sysmon, TimerSlack.LOW_NANOS);
      assertEquals(TimerSlack.LOW_NANOS, low, "retaking: low (" + ex.stats() + ")");
      assertEquals(normal, slack(worker[0]), "an M's thread keeps the default");
      stop.set(true);
      assertTrue(stopped.await(30, TimeUnit.SECONDS));
      // 1 ms after the last blocked retake, or at sysmon's deep sleep: the default again.
      long back = awaitSlack(sysmon, normal);
      assertEquals(normal, back, "after the retakes: the default again");
    }
  }

  /** A task that sleeps 2 ms without saying so, then submits itself again until told to stop. */
  private record SleepChain(GmpExecutor ex, AtomicBoolean stop, CountDownLatch stopped)
      implements Runnable {
    @Override
    public void run() {
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (stop.get()) {
        stopped.countDown();
      } else {
        ex.execute(this);
      }
    }
  }

  /**
   * Polls a thread's slack until it reads {@code want} (the value seen then) or 30 s pass (the
   * last value read): only the kernel's file witnesses it, there is no event to wait on.
   */
  private static long awaitSlack(String tid, long want) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    long v = slack(tid);
    while (v != want && System.nanoTime() < deadline) {
      Thread.yield();
      v = slack(tid);
    }
    return v;
  }

  /** Polls for sysmon's thread, by name, up to 30 s. */
  private static String awaitThread(String name) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String tid = tidNamed(name);
    while (tid == null && System.nanoTime() < deadline) {
      Thread.yield();
      tid = tidNamed(name);
    }
    assertNotNull(tid, name);
    return tid;
  }

  private static String tidNamed(String name) throws IOException {
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
      for (Path t : tasks) {
        try {
          if (Files.readString(t.resolve("comm")).trim().equals(name)) {
            return t.getFileName().toString();
          }
        } catch (IOException gone) {
          // the thread exited between the listing and the read
        }
      }
    }
    return null;
  }
}
