package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * sysmon's CPU clock: the kernel's per-thread count on Linux, read from a file kept open per M,
 * nothing until a look engages it, the same time the JVM's own clock measures, exact for a thread
 * asleep, and the right thread's file when another M takes the slot.
 */
class CpuClockTest {
  private static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

  @Test
  void parsesTheFirstFieldOfASchedstatLine() {
    assertEquals(123456789L, parse("123456789 4567 89\n"));
    assertEquals(0L, parse("0 0 0\n"));
    assertEquals(-1L, parse(""));
    assertEquals(-1L, parse("x 1 2"));
  }

  private static long parse(String line) {
    ByteBuffer b = ByteBuffer.wrap(line.getBytes(StandardCharsets.US_ASCII));
    return BlockDetector.leadingNumber(b, line.length());
  }

  @Test
  void readsNothingUntilEngagedThenTheTimeTheJvmsClockMeasures() {
    assumeTrue(CpuClock.KERNEL, "a kernel with per-thread schedstat files (Linux)");
    ThreadFiles files = new ThreadFiles();
    CpuClock clock = new CpuClock(files);
    M self = threadM(1, Thread.currentThread());
    try {
      assertEquals(-1L, clock.read(self), "not engaged: no read");
      long k0 = clock.engage(self);
      long j0 = MX.getCurrentThreadCpuTime();
      assertTrue(k0 > 0, "engaged: the thread's time so far, " + k0);
      long x = 0;
      while (MX.getCurrentThreadCpuTime() - j0 < 50_000_000L) {
        x += spin(); // 50 ms of this thread's CPU, by the JVM's clock
      }
      long k1 = clock.read(self);
      long j1 = MX.getCurrentThreadCpuTime();
      long kernel = k1 - k0;
      long jvm = j1 - j0;
      // One count, two readers: the kernel's may trail a running thread by up to a tick.
      assertTrue(kernel >= jvm - 20_000_000L && kernel <= jvm + 20_000_000L,
          "kernel " + kernel + " ns against the JVM's " + jvm + " ns (" + x + ")");
    } finally {
      files.close();
    }
  }

  @Test
  void aSleepingThreadReadsExactAndEachMInASlotReadsItsOwnFile() throws Exception {
    assumeTrue(CpuClock.KERNEL, "a kernel with per-thread schedstat files (Linux)");
    ThreadFiles files = new ThreadFiles();
    CpuClock clock = new CpuClock(files);
    CountDownLatch ready = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    M[] holder = new M[1];
    Thread t = new Thread(() -> {
      holder[0] = threadM(2, Thread.currentThread());
      long end = MX.getCurrentThreadCpuTime() + 20_000_000L;
      long x = 0;
      while (MX.getCurrentThreadCpuTime() < end) {
        x += spin();
      }
      ready.countDown();
      try {
        release.await(); // asleep from here on
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (x == 42) {
        System.out.print(""); // keeps the spin
      }
    });
    t.start();
    ready.await();
    try {
      M other = holder[0];
      while (!asleep(other)) {
        Thread.onSpinWait(); // until the kernel has it off its CPU: then its count is final
      }
      long a = clock.engage(other);
      long b = clock.read(other);
      assertTrue(a >= 15_000_000L, "20 ms of spinning, then asleep: " + a);
      assertEquals(a, b, "asleep: no time passes on its clock");
      M self = threadM(2 + ThreadFiles.SLOTS, Thread.currentThread()); // other's slot
      long mine = clock.read(self);
      assertTrue(mine > 0 && mine != a, "another M in the same slot reads its own file: " + mine);
      assertEquals(a, clock.read(other), "and back to the sleeper's");
    } finally {
      release.countDown();
      t.join();
      files.close();
    }
  }

  /** Whether the kernel has {@code mp}'s thread asleep (S in its stat line, after the name). */
  private static boolean asleep(M mp) throws java.io.IOException {
    String line = java.nio.file.Files.readString(java.nio.file.Path.of(mp.osStat));
    int i = line.lastIndexOf(')');
    return i > 0 && i + 2 < line.length() && line.charAt(i + 2) == 'S';
  }

  /** An M whose thread is {@code t}, with t's kernel stat file (what M.run sets up). */
  private static M threadM(long id, Thread t) {
    M m = new M(null, id);
    m.runner = t;
    m.osStat = t == Thread.currentThread() ? BlockDetector.ownStatFile() : null;
    assertTrue(m.osStat != null, "a stat file for the calling thread");
    return m;
  }

  private static long spin() {
    long x = 0;
    for (int i = 0; i < 10_000; i++) {
      x += i ^ (x >>> 3);
    }
    return x;
  }
}
