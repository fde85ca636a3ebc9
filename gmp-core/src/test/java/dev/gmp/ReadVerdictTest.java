package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The detector's verdict on a RUNNABLE thread, look by look: one asleep in a read is a suspect at
 * the first look and blocked at the second (two kernel samples a round apart, no CPU between), as
 * a wait is; one asleep inside the JVM (a futex) is no suspect and is blocked only once that has
 * lasted a slice; one that computes is never blocked, whatever the looks.
 */
class ReadVerdictTest {
  private static final long ROUND = 50_000; // ns between looks, as sysmon's fast cadence

  @Test
  void aThreadAsleepInAReadIsBlockedAtTheSecondLook() throws Exception {
    Pipe pipe = Pipe.open();
    Looked looked = start(() -> {
      try {
        pipe.source().read(ByteBuffer.allocate(1));
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    });
    try {
      awaitState(looked.m, 'S');
      BlockDetector d = looked.detector;
      long now = System.nanoTime();
      d.beginRound();
      assertEquals(BlockDetector.SUSPECT, d.look(looked.m, now, TimeUnit.MILLISECONDS.toNanos(10)),
          "first look: asleep, one kernel sample");
      d.beginRound();
      assertEquals(BlockDetector.BLOCKED,
          d.look(looked.m, now + ROUND, TimeUnit.MILLISECONDS.toNanos(10)),
          "second look: asleep in read(2) at both, no CPU between");
    } finally {
      pipe.sink().write(ByteBuffer.wrap(new byte[1]));
      looked.finish();
    }
  }

  @Test
  void aThreadAsleepInsideTheJvmIsNoSuspectAndCountsOnlyAfterASlice() throws Exception {
    Thread holder = new Thread(HeldInit::touch, "class-init-holder");
    holder.start();
    INIT_ENTERED.await(); // the holder is inside the initialiser, waiting for the release
    Looked looked = start(HeldInit::touch); // waits for the holder's initialiser: a futex
    try {
      awaitState(looked.m, 'S');
      BlockDetector d = looked.detector;
      long slice = TimeUnit.MILLISECONDS.toNanos(10);
      long now = System.nanoTime();
      for (int i = 0; i < 10; i++) {
        d.beginRound();
        assertEquals(BlockDetector.NO, d.look(looked.m, now + i * ROUND, slice),
            "look " + i + ": asleep inside the JVM for under a slice");
      }
      d.beginRound();
      assertEquals(BlockDetector.BLOCKED, d.look(looked.m, now + slice + 10 * ROUND, slice),
          "a slice later, still asleep there with no CPU between");
    } finally {
      INIT_RELEASE.countDown();
      holder.join();
      looked.finish();
    }
  }

  /**
   * A collection restarts the slice of a wait inside the JVM: a thread stopped for collections
   * sleeps in a futex too, and under a full heap an allocating task spent most of its time so,
   * was found blocked, and lost its P to a task that then computed beside it (2 at p=1 in 7 runs
   * of 8 with a 24 MB heap beside a CPU burner; none since). sysmon notices collections at the
   * start of its rounds (a weakly held object gone).
   */
  @Test
  void aWaitInsideTheJvmThatSpansACollectionCountsFromTheCollection() throws Exception {
    Thread holder = new Thread(GcHeldInit::touch, "class-init-holder");
    holder.start();
    GC_INIT_ENTERED.await();
    Looked looked = start(GcHeldInit::touch); // waits for the holder's initialiser: a futex
    try {
      awaitState(looked.m, 'S');
      BlockDetector d = looked.detector;
      long slice = TimeUnit.MILLISECONDS.toNanos(10);
      long now = System.nanoTime();
      for (int i = 0; i < 10; i++) { // the span starts at the fourth (two quiet looks first)
        d.beginRound();
        assertEquals(BlockDetector.NO, d.look(looked.m, now + i * ROUND, slice),
            "look " + i + ": asleep inside the JVM for under a slice");
      }
      System.gc(); // a full collection: it clears every weakly held object
      d.beginRound();
      assertEquals(BlockDetector.NO, d.look(looked.m, now + slice + 10 * ROUND, slice),
          "a slice after the span began, but a collection came in between");
      d.beginRound();
      assertEquals(BlockDetector.BLOCKED, d.look(looked.m, now + 2 * slice + 11 * ROUND, slice),
          "a slice after the collection, still asleep there with no CPU between");
    } finally {
      GC_INIT_RELEASE.countDown();
      holder.join();
      looked.finish();
    }
  }

  private static final CountDownLatch GC_INIT_ENTERED = new CountDownLatch(1);
  private static final CountDownLatch GC_INIT_RELEASE = new CountDownLatch(1);

  private static final class GcHeldInit {
    static {
      GC_INIT_ENTERED.countDown();
      try {
        GC_INIT_RELEASE.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    static void touch() {}
  }

  private static final CountDownLatch INIT_ENTERED = new CountDownLatch(1);
  private static final CountDownLatch INIT_RELEASE = new CountDownLatch(1);

  private static final class HeldInit {
    static {
      INIT_ENTERED.countDown();
      try {
        INIT_RELEASE.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    static void touch() {}
  }

  @Test
  void aThreadThatComputesIsNeverBlocked() throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    Looked looked = start(() -> {
      long x = 0;
      while (!stop.get()) {
        x += x >>> 3 ^ 7;
      }
      if (x == 42) {
        System.out.print("");
      }
    });
    try {
      awaitState(looked.m, 'R');
      BlockDetector d = looked.detector;
      long now = System.nanoTime();
      for (int i = 0; i < 20; i++) {
        d.beginRound();
        long before = System.nanoTime();
        while (System.nanoTime() - before < ROUND) {
          Thread.onSpinWait(); // a real round, in which the thread computes
        }
        now += ROUND;
        assertEquals(BlockDetector.NO, d.look(looked.m, now, TimeUnit.MILLISECONDS.toNanos(10)),
            "look " + i);
      }
    } finally {
      stop.set(true);
      looked.finish();
    }
  }

  /** A thread running {@code body}, its M, and a detector whose clock is already engaged. */
  private record Looked(Thread t, M m, BlockDetector detector, ThreadFiles files) {
    void finish() throws InterruptedException {
      t.join();
      files.close();
    }
  }

  private static Looked start(Runnable body) throws InterruptedException {
    assumeTrue(CpuClock.KERNEL && BlockDetector.ownStatFile() != null,
        "per-thread /proc files with CPU counts (Linux)");
    CountDownLatch named = new CountDownLatch(1);
    M m = new M(null, 1);
    Thread t = new Thread(() -> {
      m.osStat = BlockDetector.ownStatFile();
      named.countDown();
      body.run();
    });
    m.runner = t;
    t.start();
    named.await();
    ThreadFiles files = new ThreadFiles();
    CpuClock clock = new CpuClock(files);
    M self = new M(null, 2);
    self.runner = Thread.currentThread();
    self.osStat = BlockDetector.ownStatFile();
    clock.engage(self); // as after the program's first wait: the clock is read at every look
    return new Looked(t, m, new BlockDetector(clock, files), files);
  }

  /** Waits until the kernel shows {@code m}'s thread in {@code state} (it gets there itself). */
  private static void awaitState(M m, char state) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (; ; ) {
      String line = Files.readString(Path.of(m.osStat));
      int i = line.lastIndexOf(')');
      if (i > 0 && i + 2 < line.length() && line.charAt(i + 2) == state) {
        return;
      }
      assertTrue(System.nanoTime() < deadline, "never in state " + state + ": " + line);
      Thread.onSpinWait();
    }
  }
}
