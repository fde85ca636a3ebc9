package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static dev.gmp.TestSupport.await;
import static dev.gmp.TestSupport.awaitCondition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 14: a task that blocks without saying so loses its P within sysmon's rounds
 * (BlockDetector), not after a time slice. Every executor here has a time slice of an hour, so
 * the slice rule cannot be what hands a P on: a task queued behind a blocked one at parallelism
 * 1 can only run while the first is still blocked if the detector retook the P. Behaviour, not
 * speed: waits are bounded by the liveness limit only.
 */
class UnmarkedBlockingTest {
  private static final Duration NEVER = Duration.ofHours(1);

  @RegisterExtension final TrackedExecutors tracked = new TrackedExecutors();

  private GmpExecutor one() {
    assumeTrue(Switches.BLOCK_DETECT, "the detector is switched off (-Dgmp.blockDetect=false)");
    return tracked.track(GmpExecutor.builder().parallelism(1).timeSlice(NEVER).build());
  }

  private static long blockRetakes(GmpExecutor ex) {
    return ex.sched.counters.blockRetakes.sum();
  }

  /** A way to block and the way to end it. */
  interface Blocker {
    void block() throws Exception;

    void release() throws Exception;
  }

  /**
   * At parallelism 1: the blocker runs and blocks; a second task, submitted once the first is
   * inside, must complete while the first is still blocked; then the first is released and
   * completes too.
   */
  private void losesItsProcessor(Blocker b) throws Exception {
    losesItsProcessor(one(), b);
  }

  /** Returns when (System.nanoTime) the task queued behind the blocked one started. */
  private long losesItsProcessor(GmpExecutor ex, Blocker b) throws Exception {
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch blockerDone = new CountDownLatch(1);
    AtomicBoolean released = new AtomicBoolean();
    AtomicBoolean stillBlockedWhenOtherRan = new AtomicBoolean();
    ex.execute(() -> {
      inside.countDown();
      try {
        b.block();
      } catch (Exception e) {
        throw new AssertionError(e);
      } finally {
        blockerDone.countDown();
      }
    });
    await(inside, "the blocker started");
    CountDownLatch other = new CountDownLatch(1);
    long[] otherRanAt = new long[1]; // written before the latch's count down, read after it
    ex.execute(() -> {
      otherRanAt[0] = System.nanoTime();
      stillBlockedWhenOtherRan.set(!released.get());
      other.countDown();
    });
    awaitCondition(() -> "the task behind the blocked one ran: " + ex.stats(), LIVENESS_SECONDS,
        () -> other.getCount() == 0);
    assertTrue(stillBlockedWhenOtherRan.get(), "it ran while the first was still blocked");
    released.set(true);
    b.release();
    awaitCondition(() -> "the blocker completes after its release: " + ex.stats(),
        LIVENESS_SECONDS, () -> blockerDone.getCount() == 0);
    assertTrue(blockRetakes(ex) >= 1, "the detector retook the P: " + ex.stats());
    return otherRanAt[0];
  }

  @Test
  void threadSleep() throws Exception {
    Thread[] sleeper = new Thread[1];
    losesItsProcessor(new Blocker() {
      @Override
      public void block() {
        sleeper[0] = Thread.currentThread();
        try {
          Thread.sleep(TimeUnit.MINUTES.toMillis(5)); // ended by release()'s interrupt
        } catch (InterruptedException expected) {
          // released
        }
      }

      @Override
      public void release() {
        sleeper[0].interrupt();
      }
    });
  }

  @Test
  void objectWait() throws Exception {
    Object lock = new Object();
    boolean[] go = new boolean[1];
    losesItsProcessor(new Blocker() {
      @Override
      public void block() throws InterruptedException {
        synchronized (lock) {
          while (!go[0]) {
            lock.wait();
          }
        }
      }

      @Override
      public void release() {
        synchronized (lock) {
          go[0] = true;
          lock.notifyAll();
        }
      }
    });
  }

  @Test
  void reentrantLock() throws Exception {
    ReentrantLock lock = new ReentrantLock();
    lock.lock(); // held by the test thread until release()
    losesItsProcessor(new Blocker() {
      @Override
      public void block() {
        lock.lock();
        lock.unlock();
      }

      @Override
      public void release() {
        lock.unlock();
      }
    });
  }

  @Test
  void socketRead() throws Exception {
    assumeTrue(BlockDetector.ownStatFile() != null, "needs the kernel's thread state (/proc)");
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Socket client = new Socket(server.getInetAddress(), server.getLocalPort());
        Socket peer = server.accept()) {
      InputStream in = client.getInputStream();
      OutputStream out = peer.getOutputStream();
      losesItsProcessor(new Blocker() {
        @Override
        public void block() throws Exception {
          assertEquals(42, in.read()); // RUNNABLE to Java, asleep to the kernel
        }

        @Override
        public void release() throws Exception {
          out.write(42);
          out.flush();
        }
      });
    }
  }

  @Test
  void pipeRead() throws Exception {
    assumeTrue(BlockDetector.ownStatFile() != null, "needs the kernel's thread state (/proc)");
    Pipe pipe = Pipe.open();
    try (Pipe.SourceChannel src = pipe.source(); Pipe.SinkChannel sink = pipe.sink()) {
      losesItsProcessor(new Blocker() {
        @Override
        public void block() throws Exception {
          ByteBuffer b = ByteBuffer.allocate(1);
          assertEquals(1, src.read(b));
        }

        @Override
        public void release() throws Exception {
          sink.write(ByteBuffer.wrap(new byte[] {7}));
        }
      });
    }
  }

  /**
   * Class initialisation another thread holds: a task that touches the class meanwhile waits
   * inside the JVM, RUNNABLE to Java and asleep in a futex to the kernel, the same sleep as a
   * spinning task's on a VM lock or at a safepoint when the machine is busy. Each test has its
   * own class (a class initialises once per JVM); the latches live out here, since touching the
   * held class's own fields would wait for its initialisation too.
   */
  private static final CountDownLatch SHORT_INIT_ENTERED = new CountDownLatch(1);

  private static final CountDownLatch SHORT_INIT_RELEASE = new CountDownLatch(1);
  private static final CountDownLatch LONG_INIT_ENTERED = new CountDownLatch(1);
  private static final CountDownLatch LONG_INIT_RELEASE = new CountDownLatch(1);
  private static final CountDownLatch BUSY_INIT_ENTERED = new CountDownLatch(1);
  private static final CountDownLatch BUSY_INIT_RELEASE = new CountDownLatch(1);

  private static final class ShortHeldInit {
    static {
      SHORT_INIT_ENTERED.countDown();
      awaitQuietly(SHORT_INIT_RELEASE);
    }

    static void touch() {}
  }

  private static final class LongHeldInit {
    static {
      LONG_INIT_ENTERED.countDown();
      awaitQuietly(LONG_INIT_RELEASE);
    }

    static void touch() {}
  }

  private static final class BusyHeldInit {
    static {
      BUSY_INIT_ENTERED.countDown();
      awaitQuietly(BUSY_INIT_RELEASE);
    }

    static void touch() {}
  }

  private static void awaitQuietly(CountDownLatch l) {
    try {
      l.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Starts a thread that initialises a held class; returns once it is inside the initialiser. */
  private static Thread holdInit(Runnable touch, CountDownLatch entered) throws Exception {
    Thread holder = new Thread(touch, "class-init-holder");
    holder.start();
    await(entered, "the holder is inside the class initialiser");
    return holder;
  }

  /**
   * A wait inside the JVM shorter than a time slice keeps the task's P, however often sysmon
   * looks: beside a CPU burner a spinning task sleeps in such waits for hundreds of microseconds
   * at a time, and retaking its P would put one more thread on a CPU than parallelism allows
   * (docs/design.md, section 3.1). Before the detector asked which call a thread sleeps in, this
   * task lost its P at the second look.
   */
  @Test
  void aWaitInsideTheJvmShorterThanASliceKeepsItsProcessor() throws Exception {
    assumeTrue(BlockDetector.ownStatFile() != null, "needs the kernel's thread state (/proc)");
    assumeTrue(BlockDetector.futexCalls(System.getProperty("os.arch")).length > 0,
        "an architecture whose futex call gmp knows");
    GmpExecutor ex = one(); // a slice of an hour: this wait never lasts one
    Thread holder = holdInit(ShortHeldInit::touch, SHORT_INIT_ENTERED);
    String[] stat = new String[1];
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch waited = new CountDownLatch(1);
    ex.execute(() -> {
      stat[0] = BlockDetector.ownStatFile();
      inside.countDown();
      ShortHeldInit.touch(); // waits for the holder, in a futex
      waited.countDown();
    });
    await(inside, "the task started");
    awaitCondition("the task sleeps in a futex", () -> inVm(stat[0]));
    AtomicBoolean otherRan = new AtomicBoolean();
    ex.execute(() -> otherRan.set(true)); // waits: only a retake could run it now
    BlockDetector det = ex.sched.sysmon.detector;
    long looks0 = det.looks;
    try {
      awaitCondition(() -> "50 looks at the waiting task: " + det.looks + " " + ex.stats(),
          LIVENESS_SECONDS * 3, () -> det.looks - looks0 >= 50 || ex.stats().retakes() != 0);
      assertEquals(0, ex.stats().retakes(), "no retake: " + ex.stats());
      assertFalse(otherRan.get(), "the queued task still waits for the only P");
    } finally {
      SHORT_INIT_RELEASE.countDown();
    }
    holder.join();
    await(waited, "the task ends once the class is initialised");
    awaitCondition("the queued task runs after it", otherRan::get);
  }

  /**
   * The same wait, longer than a slice (a class initialiser that blocks): the task loses its P
   * to the detector, so that the work queued behind it runs while it still waits.
   */
  @Test
  void aWaitInsideTheJvmLongerThanASliceLosesItsProcessor() throws Exception {
    assumeTrue(Switches.BLOCK_DETECT, "the detector is switched off (-Dgmp.blockDetect=false)");
    assumeTrue(BlockDetector.ownStatFile() != null, "needs the kernel's thread state (/proc)");
    GmpExecutor ex = tracked.track(
        GmpExecutor.builder().parallelism(1).timeSlice(Duration.ofMillis(20)).build());
    Thread holder = holdInit(LongHeldInit::touch, LONG_INIT_ENTERED);
    losesItsProcessor(ex, new Blocker() {
      @Override
      public void block() {
        LongHeldInit.touch();
      }

      @Override
      public void release() {
        LONG_INIT_RELEASE.countDown();
      }
    });
    holder.join();
  }

  /**
   * While the CPUs are oversubscribed (sysmon's sleeps end late) a wait inside the JVM counts
   * only after four slices: there a VM lock's holder may wait that long for a CPU, and beside a
   * CPU burner a task allocating lost its P after just over one (Oversubscription#vmWaitNanos).
   * The lateness is set through the test seam; the machine's own load can only make the
   * retake later, never earlier.
   */
  @Test
  void whileTheCpusAreOversubscribedAWaitInsideTheJvmCountsAfterFourSlices() throws Exception {
    assumeTrue(Switches.BLOCK_DETECT, "the detector is switched off (-Dgmp.blockDetect=false)");
    assumeTrue(BlockDetector.ownStatFile() != null, "needs the kernel's thread state (/proc)");
    assumeTrue(BlockDetector.futexCalls(System.getProperty("os.arch")).length > 0,
        "needs this architecture's futex call numbers");
    long slice = TimeUnit.MILLISECONDS.toNanos(20);
    GmpExecutor ex = tracked.track(GmpExecutor.builder().parallelism(1)
        .timeSlice(Duration.ofNanos(slice)).build());
    ex.sched.sysmon.oversubscription.testLate = 2 * Oversubscription.LATE_NANOS;
    Thread holder = holdInit(BusyHeldInit::touch, BUSY_INIT_ENTERED);
    long[] blockedAt = new long[1]; // written by the blocker before it waits; read after the end
    long otherRanAt = losesItsProcessor(ex, new Blocker() {
      @Override
      public void block() {
        blockedAt[0] = System.nanoTime();
        BusyHeldInit.touch();
      }

      @Override
      public void release() {
        BUSY_INIT_RELEASE.countDown();
      }
    });
    holder.join();
    long waited = otherRanAt - blockedAt[0];
    assertTrue(waited >= Oversubscription.VM_WAIT_SLICES * slice,
        "retaken after " + TimeUnit.NANOSECONDS.toMillis(waited) + " ms, before "
            + Oversubscription.VM_WAIT_SLICES + " slices of 20 ms");
  }

  /** Whether the kernel has the thread of this stat file asleep inside the JVM (a futex). */
  private static boolean inVm(String stat) {
    try {
      java.nio.file.Path call = java.nio.file.Path.of(stat).resolveSibling("syscall");
      byte[] line = java.nio.file.Files.readAllBytes(call);
      return BlockDetector.classifyCall(ByteBuffer.wrap(line), line.length) == BlockDetector.IN_VM;
    } catch (java.io.IOException e) {
      return false;
    }
  }

  /**
   * A CPU-bound task with work waiting behind it is never taken for a blocked one, however busy
   * the machine (the OS may preempt it: it is then R to the kernel, never asleep). Asserted after
   * the detector has looked at it many times, counted by the detector itself, not after a time.
   */
  @Test
  void aSpinningTaskIsNeverMistakenForABlockedOne() throws Exception {
    GmpExecutor ex = one();
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch spinning = new CountDownLatch(1);
    CountDownLatch spun = new CountDownLatch(1);
    ex.execute(() -> {
      spinning.countDown();
      while (!stop.get()) {
        Thread.onSpinWait();
      }
      spun.countDown();
    });
    await(spinning, "the spinner started");
    AtomicBoolean otherRan = new AtomicBoolean();
    ex.execute(() -> otherRan.set(true)); // waits: only a retake could run it now
    BlockDetector det = ex.sched.sysmon.detector;
    long looks0 = det.looks;
    try {
      // Until the detector looked at the spinner 300 times, or (the failure) took its P.
      awaitCondition(() -> "300 looks at the spinner: " + det.looks + " " + ex.stats(),
          LIVENESS_SECONDS * 3, () -> det.looks - looks0 >= 300 || ex.stats().retakes() != 0);
      assertEquals(0, ex.stats().retakes(), "no retake: " + ex.stats());
      assertFalse(otherRan.get(), "the queued task still waits for the only P");
    } finally {
      stop.set(true);
    }
    await(spun, "the spinner stops");
    awaitCondition("the queued task runs once the spinner is done", otherRan::get);
  }

  /**
   * Blocking for microseconds at a time, hundreds of times in one task while work waits, costs
   * at most one retake (the task runs on P-less after it): never one per block.
   */
  @Test
  void manyShortBlocksInOneTaskCostAtMostOneRetake() throws Exception {
    GmpExecutor ex = one();
    CountDownLatch done = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    ex.execute(() -> {
      started.countDown();
      for (int i = 0; i < 500; i++) {
        long end = System.nanoTime() + 100_000;
        while (System.nanoTime() - end < 0) {
          Thread.onSpinWait(); // 100 us on the CPU
        }
        LockSupport.parkNanos(2_000); // then a few microseconds off it
      }
      done.countDown();
    });
    await(started, "the task started");
    CountDownLatch other = new CountDownLatch(1);
    ex.execute(other::countDown);
    await(done, LIVENESS_SECONDS * 3, "the blinking task ends: " + ex.stats());
    await(other, "the queued task runs");
    assertTrue(blockRetakes(ex) <= 1, "one retake at most for one task: " + ex.stats());
  }

  /** Unmarked blocking in many tasks never takes more than maxSpareThreads spare threads. */
  @Test
  void spareThreadsNeverExceedTheBound() throws Exception {
    assumeTrue(Switches.BLOCK_DETECT, "the detector is switched off (-Dgmp.blockDetect=false)");
    TestSupport.CountingFactory tf = new TestSupport.CountingFactory();
    int p = 2;
    int spare = 3;
    GmpExecutor ex = tracked.track(GmpExecutor.builder().parallelism(p).maxSpareThreads(spare)
        .timeSlice(NEVER).threadFactory(tf).build());
    int n = 20;
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(n);
    AtomicInteger blockedNow = new AtomicInteger();
    AtomicInteger mostBlocked = new AtomicInteger();
    for (int i = 0; i < n; i++) {
      ex.execute(() -> {
        mostBlocked.accumulateAndGet(blockedNow.incrementAndGet(), Math::max);
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        blockedNow.decrementAndGet();
        done.countDown();
      });
    }
    try {
      awaitCondition(() -> "spares reach the bound: " + ex.stats(), LIVENESS_SECONDS,
          () -> ex.stats().spareThreads() == spare);
      // Let sysmon go on looking: the bound holds however long the tasks stay blocked.
      BlockDetector det = ex.sched.sysmon.detector;
      long looks0 = det.looks;
      awaitCondition(() -> "more looks: " + ex.stats(), LIVENESS_SECONDS,
          () -> det.looks - looks0 >= 100);
      GmpStats s = ex.stats();
      assertTrue(s.spareThreads() <= spare, s.toString());
      assertTrue(mostBlocked.get() <= p + spare, "blocked at once " + mostBlocked + ": " + s);
      assertTrue(tf.alive() <= p + spare, "threads " + tf.alive() + ": " + s);
      assertTrue(s.peakThreads() <= p + spare, s.toString());
    } finally {
      release.countDown();
    }
    await(done, "all complete once released: " + ex.stats());
    assertTrue(tf.made.size() <= p + spare, "threads made " + tf.made.size());
  }

  /**
   * A retaken task that finishes while the executor shuts down: every accepted task either ran
   * exactly once or came back from shutdownNow, the retaken one ran exactly once, and the
   * executor terminates with its threads gone.
   */
  @Test
  void nothingLostOrRunTwiceWhenARetakenTaskFinishesDuringShutdown() throws Exception {
    GmpExecutor ex = one();
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger blockerRuns = new AtomicInteger();
    ex.execute(() -> {
      blockerRuns.incrementAndGet();
      inside.countDown();
      boolean interrupted = false;
      while (true) { // ignores shutdownNow's interrupt: it finishes only when released
        try {
          release.await();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    });
    await(inside, "the blocker started");
    int n = 200;
    Set<Integer> ran = ConcurrentHashMap.newKeySet();
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch firstRan = new CountDownLatch(1);
    for (int i = 0; i < n; i++) {
      int id = i;
      ex.execute(() -> {
        runs.incrementAndGet();
        ran.add(id);
        firstRan.countDown();
        long end = System.nanoTime() + 20_000; // slow enough that some still queue at shutdownNow
        while (System.nanoTime() - end < 0) {
          Thread.onSpinWait();
        }
      });
    }
    await(firstRan, "tasks run on the retaken processor: " + ex.stats());
    assertTrue(blockRetakes(ex) >= 1, ex.stats().toString());
    List<Runnable> returned = ex.shutdownNow();
    release.countDown(); // the retaken task finishes now, P-less, during the shutdown
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS), ex.stats().toString());
    assertEquals(1, blockerRuns.get(), "the retaken task ran once");
    assertEquals(runs.get(), ran.size(), "no task ran twice");
    assertEquals(n, ran.size() + returned.size(), "each ran or came back: none lost");
    assertEquals(0, ex.stats().threads(), "every thread gone: " + ex.stats());
  }
}
