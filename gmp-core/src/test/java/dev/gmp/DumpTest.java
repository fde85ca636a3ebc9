package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** GmpExecutor.dump(): a line per P, per M and per started task, with states and durations. */
class DumpTest {

  /** Spins until released: a task that is running (not blocked) for as long as the test wants. */
  static final class Hog implements Runnable {
    final CountDownLatch started = new CountDownLatch(1);
    volatile boolean stop;

    @Override
    public void run() {
      started.countDown();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIVENESS_SECONDS);
      while (!stop && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
    }
  }

  /** Waits in GmpExecutor.blocking until released. */
  static final class Caller implements Runnable {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public void run() {
      try {
        GmpExecutor.blocking(() -> {
          entered.countDown();
          return release.await(LIVENESS_SECONDS, TimeUnit.SECONDS);
        });
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }
  }

  /** Blocks without saying so. */
  static final class Sleeper implements Runnable {
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch started = new CountDownLatch(1);
    volatile Thread thread;

    @Override
    public void run() {
      thread = Thread.currentThread();
      started.countDown();
      try {
        release.await(LIVENESS_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static List<String> lines(String dump) {
    return Arrays.asList(dump.split("\n"));
  }

  private static String line(String dump, String regex) {
    Pattern p = Pattern.compile(regex);
    return lines(dump).stream().filter(l -> p.matcher(l).find()).findFirst().orElse(null);
  }

  @Test
  void oneLinePerProcessorAndPerThreadAndTheTotals() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().name("dump-a")
        .parallelism(3).build())) {
      GmpExecutor ex = c.ex();
      assertEquals(1, ex.submit(() -> 1).get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      // The future completes inside the task: wait for its M to finish the bookkeeping.
      TestSupport.awaitCondition(() -> "quiet: " + ex.stats(), LIVENESS_SECONDS,
          () -> ex.stats().completedTasks() == 1 && ex.stats().idleProcessors() == 3);
      String d = ex.dump();
      List<String> ls = lines(d);
      assertTrue(ls.get(0).startsWith("SCHED dump-a: state=running gomaxprocs=3 "), d);
      for (int i = 0; i < 3; i++) {
        String p = line(d, "^P" + i + ": status=(idle|running) m=\\S+ runqsize=\\d+ runnext=\\S+"
            + " schedtick=\\d+ syscalltick=\\d+");
        assertTrue(p != null, "line for P" + i + " in\n" + d);
      }
      M[] ms = ex.sched.threads.ms();
      assertTrue(ms.length >= 1);
      for (M m : ms) {
        // The default factory names an M's thread after the M.
        assertTrue(line(d, "^" + m + ": thread=dump-a-m" + m.id + " state=[A-Z_]+ p=\\S+ curg=")
            != null, "line for " + m + " in\n" + d);
      }
      assertTrue(ls.get(ls.size() - 1).startsWith("totals: runnable=0 "), d);
      assertTrue(d.contains(" completed=1 "), d);
    }
  }

  @Test
  void tasksShowTheirStateAgeThreadProcessorAndClass() throws Exception {
    // A time slice beyond the test: sysmon never retakes the hog's processor.
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().name("dump-b")
        .parallelism(2).timeSlice(Duration.ofMinutes(5)).build())) {
      GmpExecutor ex = c.ex();
      Hog hog = new Hog();
      Caller caller = new Caller();
      ex.execute(hog);
      TestSupport.await(hog.started, "hog started");
      ex.execute(caller);
      TestSupport.await(caller.entered, "caller inside blocking()");
      try {
        String running = "^G\\d+: status=running for=[0-9.]+(us|ms|s) m=M\\d+ p=P\\d"
            + " task=dev\\.gmp\\.DumpTest\\$Hog$";
        // sysmon stamps a running task's age at its first sight, within one of its rounds.
        TestSupport.awaitCondition(() -> "a running line with an age in\n" + ex.dump(),
            LIVENESS_SECONDS, () -> line(ex.dump(), running) != null);
        String d = ex.dump();
        String sys = line(d, "^G\\d+: status=syscall for=[0-9.]+(us|ms|s) m=M\\d+ p=\\S+"
            + " task=dev\\.gmp\\.DumpTest\\$Caller$");
        assertTrue(sys != null, d);
        // The goid in the task line is the curg of its M's line, and of nothing else.
        String goid = sys.substring(0, sys.indexOf(':'));
        String mId = sys.replaceAll(".* m=(M\\d+) .*", "$1");
        assertTrue(line(d, "^" + mId + ": .* curg=" + goid + " ") != null, d);
        assertTrue(d.contains(" running=1 syscall=1 waiting=0 "), d);
      } finally {
        hog.stop = true;
        caller.release.countDown();
      }
    }
  }

  @Test
  void aTaskWhoseProcessorWasRetakenIsWaiting() throws Exception {
    // One processor, a 1 ms slice: the sleeper blocks without blocking(); once its thread is
    // seen waiting, a task arrives that only a retake can run, so sysmon retakes the processor
    // and, finding the thread waiting, marks the sleeper waiting.
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().name("dump-c")
        .parallelism(1).timeSlice(Duration.ofMillis(1)).build())) {
      GmpExecutor ex = c.ex();
      Sleeper sleeper = new Sleeper();
      ex.execute(sleeper);
      try {
        TestSupport.await(sleeper.started, "the sleeper started");
        TestSupport.awaitCondition("the sleeper waits",
            () -> sleeper.thread.getState() == Thread.State.TIMED_WAITING);
        CountDownLatch other = new CountDownLatch(1);
        ex.execute(other::countDown);
        TestSupport.await(other, "the task behind it ran on the retaken processor");
        TestSupport.awaitCondition(() -> "one waiting task: " + ex.stats(), LIVENESS_SECONDS,
            () -> ex.stats().waitingTasks() == 1);
        String d = ex.dump();
        String w = line(d, "^G\\d+: status=waiting for=[0-9.]+(us|ms|s) m=M\\d+ p=-"
            + " task=dev\\.gmp\\.DumpTest\\$Sleeper$");
        assertTrue(w != null, d);
        String mId = w.replaceAll(".* m=(M\\d+) .*", "$1");
        assertTrue(line(d, "^" + mId + ": .* p=- .* spare=true ") != null, d);
      } finally {
        sleeper.release.countDown();
      }
    }
  }

  @Test
  void runnextAndTheLocalQueueOfABusyProcessor() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().name("dump-d")
        .parallelism(1).maxSpareThreads(0).build())) {
      GmpExecutor ex = c.ex();
      CountDownLatch spawned = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      ex.execute(() -> {
        for (int i = 0; i < 3; i++) {
          ex.execute(() -> {}); // the last takes runnext, the two before it go to the ring
        }
        spawned.countDown();
        try {
          release.await(LIVENESS_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      TestSupport.await(spawned, "spawned");
      try {
        String d = ex.dump();
        assertTrue(line(d, "^P0: status=running m=M\\d+ runqsize=2 runnext=G\\d+ ") != null, d);
        assertTrue(d.startsWith("SCHED dump-d: state=running gomaxprocs=1 idleprocs=0 "), d);
        assertTrue(d.contains(" [3]\n"), d); // runnext + ring, as stats counts them
      } finally {
        release.countDown();
      }
    }
  }

  @Test
  void takesNoLock() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.create(2))) {
      GmpExecutor ex = c.ex();
      assertEquals(1, ex.submit(() -> 1).get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      CountDownLatch locked = new CountDownLatch(1);
      CountDownLatch unlock = new CountDownLatch(1);
      Thread holder = new Thread(() -> {
        ex.sched.lock.lock();
        try {
          locked.countDown();
          unlock.await(LIVENESS_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } finally {
          ex.sched.lock.unlock();
        }
      });
      holder.start();
      try {
        TestSupport.await(locked, "another thread holds the scheduler lock");
        String d = CompletableFuture.supplyAsync(ex::dump)
            .get(LIVENESS_SECONDS, TimeUnit.SECONDS);
        assertTrue(d.startsWith("SCHED "), d);
      } finally {
        unlock.countDown();
        holder.join(TimeUnit.SECONDS.toMillis(LIVENESS_SECONDS));
      }
    }
  }

  /**
   * Dumps while threads exit: the dump's list of Ms is copied without the lock, and an M freed
   * between the copy's two passes left a null at its end (a NullPointerException in 1 of ~25,000
   * dumps while spare threads came and went). A race, so this runs until 150 threads exited.
   */
  @Test
  void dumpsWhileThreadsExitNeverThrow() throws Exception {
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().parallelism(2)
        .keepAlive(Duration.ofMillis(5)).build())) {
      GmpExecutor ex = c.ex();
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<Throwable> failed = new AtomicReference<>();
      Thread dumper = new Thread(() -> {
        while (!stop.get() && failed.get() == null) {
          try {
            ex.dump();
          } catch (Throwable e) {
            failed.set(e);
          }
        }
      });
      dumper.start();
      try {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIVENESS_SECONDS);
        while (ex.stats().threadsCreated() - ex.stats().threads() < 150
            && failed.get() == null && System.nanoTime() < deadline) {
          CountDownLatch done = new CountDownLatch(6);
          for (int i = 0; i < 6; i++) { // blocking calls: spares, which exit 5 ms after
            ex.execute(() -> {
              try {
                GmpExecutor.blocking(() -> {
                  Thread.sleep(2);
                  return null;
                });
              } catch (Exception e) {
                throw new IllegalStateException(e);
              } finally {
                done.countDown();
              }
            });
          }
          TestSupport.await(done, "blocking calls end");
          Thread.sleep(10); // the workload: idle long enough for the spares to exit
        }
      } finally {
        stop.set(true);
        dumper.join(TimeUnit.SECONDS.toMillis(LIVENESS_SECONDS));
      }
      assertNull(failed.get(), () -> "dump threw: " + failed.get());
      assertTrue(ex.stats().threadsCreated() - ex.stats().threads() >= 150,
          () -> "threads exited: " + ex.stats());
    }
  }

  @Test
  void aTerminatedExecutorStillDumps() {
    GmpExecutor ex = GmpExecutor.builder().name("dump-e").parallelism(2).build();
    ex.shutdown();
    String d = ex.dump();
    assertTrue(d.startsWith("SCHED dump-e: state=terminated gomaxprocs=2 idleprocs=2 threads=0"),
        d);
    assertTrue(line(d, "^P1: status=idle m=- ") != null, d);
  }

  @Test
  void durationsReadLikeGo() {
    assertEquals("850us", Dump.duration(850_000));
    assertEquals("12.3ms", Dump.duration(12_345_678));
    assertEquals("4.2s", Dump.duration(4_250_000_000L));
    assertEquals("0us", Dump.duration(-5));
  }
}
