package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * sysmon's open /proc files: each read through a file kept open sees the thread as it is now
 * (asleep in a read, then running), one descriptor per file however often it is read, a slot's
 * next M closes the last one's files, and close() closes them all.
 */
class ThreadFilesTest {
  private static final ByteBuffer BUF = ByteBuffer.allocate(1024);

  @Test
  void aFileKeptOpenReadsTheThreadAsItIsNow() throws Exception {
    assumeTrue(BlockDetector.ownStatFile() != null, "per-thread /proc files (Linux)");
    ThreadFiles files = new ThreadFiles();
    Pipe pipe = Pipe.open();
    AtomicBoolean stop = new AtomicBoolean();
    M[] holder = new M[1];
    CountDownLatch named = new CountDownLatch(1);
    Thread t = new Thread(() -> {
      holder[0] = threadM(1);
      named.countDown();
      try {
        pipe.source().read(ByteBuffer.allocate(1)); // asleep in read(2)
      } catch (IOException e) {
        return;
      }
      long x = 0;
      while (!stop.get()) {
        x += x >>> 3 ^ 7; // running
      }
      if (x == 42) {
        System.out.print("");
      }
    });
    t.start();
    named.await();
    M m = holder[0];
    Path stat = target(m, "stat");
    Path syscall = target(m, "syscall");
    try {
      awaitLine(files, m, ThreadFiles.STAT, ThreadFilesTest::asleep, "asleep in its read");
      String call = line(files, m, ThreadFiles.SYSCALL);
      assertEquals(BlockDetector.CALL, classify(call), "a call of its own: " + call);

      pipe.sink().write(ByteBuffer.wrap(new byte[1]));
      awaitLine(files, m, ThreadFiles.STAT, l -> state(l) == 'R', "running, read again in place");
      awaitLine(files, m, ThreadFiles.SYSCALL, l -> l.startsWith("running"), "running");
      for (int i = 0; i < 100; i++) {
        line(files, m, ThreadFiles.STAT);
      }
      assertEquals(1, descriptorsOf(stat), "one descriptor, however often it is read");
      assertEquals(1, descriptorsOf(syscall));
    } finally {
      stop.set(true);
      t.join();
      files.close();
    }
    assertEquals(0, descriptorsOf(stat), "closed");
    assertEquals(0, descriptorsOf(syscall));
  }

  @Test
  void aSlotsNextMClosesTheLastOnesFilesAndAnExitedThreadReadsAsNothing() throws Exception {
    assumeTrue(BlockDetector.ownStatFile() != null, "per-thread /proc files (Linux)");
    ThreadFiles files = new ThreadFiles();
    M[] holder = new M[1];
    Thread t = new Thread(() -> holder[0] = threadM(3));
    t.start();
    t.join();
    M gone = holder[0];
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (Files.exists(Path.of(gone.osStat))) { // the OS thread outlives join() for a moment
      assertTrue(System.nanoTime() < deadline, "thread still in /proc: " + gone.osStat);
      Thread.onSpinWait();
    }
    M self = threadM(3 + ThreadFiles.SLOTS); // gone's slot
    try {
      assertEquals(-1, files.read(gone, ThreadFiles.STAT, BUF), "an exited thread's file");
      assertTrue(files.read(self, ThreadFiles.STAT, BUF) > 0, "the calling thread's own");
      assertTrue(files.read(self, ThreadFiles.SCHEDSTAT, BUF) > 0);
      assertEquals(1, descriptorsOf(target(self, "stat")));
      assertEquals(1, descriptorsOf(target(self, "schedstat")));
      M next = threadM(3 + 2 * ThreadFiles.SLOTS); // the same thread, another M in the slot
      assertTrue(files.read(next, ThreadFiles.STAT, BUF) > 0);
      assertEquals(1, descriptorsOf(target(self, "stat")),
          "the last M's stat closed, the next one's open");
      assertEquals(0, descriptorsOf(target(self, "schedstat")),
          "the last M's other files closed too");
    } finally {
      files.close();
    }
    assertEquals(0, descriptorsOf(target(self, "stat")));
  }

  /** An M of the calling thread, with its stat file (what M.run sets up). */
  private static M threadM(long id) {
    M m = new M(null, id);
    m.runner = Thread.currentThread();
    m.osStat = BlockDetector.ownStatFile();
    return m;
  }

  private static String line(ThreadFiles files, M m, int kind) {
    int n = files.read(m, kind, BUF);
    assertTrue(n > 0, "read " + kind + ": " + n);
    return StandardCharsets.US_ASCII.decode(BUF.duplicate().flip()).toString();
  }

  /** Reads until the line passes (the thread gets there by itself), for up to 10 s. */
  private static void awaitLine(
      ThreadFiles files, M m, int kind, java.util.function.Predicate<String> ok, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    String l = line(files, m, kind);
    while (!ok.test(l)) {
      assertTrue(System.nanoTime() < deadline, what + ": still " + l);
      Thread.onSpinWait();
      l = line(files, m, kind);
    }
  }

  private static boolean asleep(String stat) {
    return state(stat) == 'S';
  }

  /** The state letter of a stat line, after the last ')' (the name may hold one). */
  private static char state(String stat) {
    int i = stat.lastIndexOf(')');
    return i > 0 && i + 2 < stat.length() ? stat.charAt(i + 2) : '?';
  }

  private static int classify(String line) {
    byte[] b = line.getBytes(StandardCharsets.US_ASCII);
    return BlockDetector.classifyCall(ByteBuffer.wrap(b), b.length);
  }

  /** {@code m}'s thread's file {@code name} as a descriptor links to it (the thread alive). */
  private static Path target(M m, String name) throws IOException {
    return Path.of(m.osStat).resolveSibling(name).toRealPath();
  }

  /** How many of this process's descriptors are open on {@code target}. */
  private static long descriptorsOf(Path target) throws IOException {
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.filter(fd -> {
        try {
          return Files.readSymbolicLink(fd).equals(target);
        } catch (IOException e) {
          return false; // closed while listed (the listing's own descriptor)
        }
      }).count();
    }
  }
}
