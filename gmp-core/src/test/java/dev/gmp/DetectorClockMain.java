package dev.gmp;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Run by DetectorClockTest in a fresh JVM: a task that computes while work waits behind it, looked
 * at by the block detector 200 times, must not start reading the CPU clock, nor may a task
 * blocked on a monitor (as two Ms meeting on a class-loading lock are); a task awaiting a latch
 * must, and must still lose its P. Prints one line per phase, then whether the JVM's management
 * classes were loaded (on Linux they are not: the clock is the kernel's count, and a latch has no
 * owner to ask the JVM about).
 */
public final class DetectorClockMain {
  private DetectorClockMain() {}

  public static void main(String[] args) throws Exception {
    // A long slice: a spinner asleep inside the JVM at every look for a slice (a safepoint on a
    // very busy machine) would load the clock too, and so would a monitor wait that lasts one
    // (the slice rule's evidence), which is allowed but is not what this checks.
    GmpExecutor ex = GmpExecutor.builder().name("clock").parallelism(1)
        .timeSlice(Duration.ofSeconds(60)).build();
    BlockDetector det = ex.sched.sysmon.detector;
    CpuClock clock = ex.sched.sysmon.clock;
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
    spinning.await();
    CountDownLatch queued = new CountDownLatch(1);
    ex.execute(queued::countDown); // waits behind the spinner: sysmon looks at it each round
    long looks0 = det.looks;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (det.looks - looks0 < 200 && System.nanoTime() - deadline < 0) {
      Thread.sleep(1);
    }
    System.out.println("computing: looks>=200 " + (det.looks - looks0 >= 200)
        + " clock " + clock.engaged() + " retakes " + ex.stats().retakes());
    stop.set(true);
    spun.await();
    queued.await();

    Object monitor = new Object();
    AtomicReference<Thread> waiter = new AtomicReference<>();
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch queuedBehind = new CountDownLatch(1);
    synchronized (monitor) {
      ex.execute(() -> {
        waiter.set(Thread.currentThread());
        synchronized (monitor) {
          entered.countDown();
        }
      });
      ex.execute(queuedBehind::countDown); // waits behind the blocked task: looked at each round
      while (waiter.get() == null || waiter.get().getState() != Thread.State.BLOCKED) {
        Thread.sleep(1);
      }
      long looks1 = det.looks;
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (det.looks - looks1 < 100 && System.nanoTime() - until < 0) {
        Thread.sleep(1);
      }
      System.out.println("monitor: looks>=100 " + (det.looks - looks1 >= 100)
          + " clock " + clock.engaged());
    }
    entered.await();
    queuedBehind.await();

    // A task awaiting a latch: the commonest wait; no owner to ask the JVM about.
    CountDownLatch waiting = new CountDownLatch(1);
    CountDownLatch gate = new CountDownLatch(1);
    ex.execute(() -> {
      waiting.countDown();
      try {
        gate.await();
      } catch (InterruptedException e) {
        // shutdownNow: done
      }
    });
    waiting.await();
    CountDownLatch behind = new CountDownLatch(1);
    ex.execute(behind::countDown); // runs only once the waiter's P is retaken
    boolean ran = behind.await(60, TimeUnit.SECONDS);
    System.out.println("waiting: ran " + ran + " clock " + clock.engaged());
    // On Linux the clock is the kernel's: the JVM's management classes never load for it.
    System.out.println("management classes loaded " + CpuClock.managementLoaded());
    gate.countDown();
    ex.shutdownNow();
    ex.awaitTermination(60, TimeUnit.SECONDS);
  }
}
