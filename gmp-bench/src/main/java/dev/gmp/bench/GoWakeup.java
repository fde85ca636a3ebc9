package dev.gmp.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Go's BenchmarkWakeupParallelSpinning: two tasks alternate between sender and receiver on an
 * unbuffered channel. The receiver spins {@code delayUs}, then blocks on a receive; the sender
 * spins {@code delayUs} + 5 us (so the receiver is usually blocked by then), then sends, which
 * wakes the receiver. A good scheduler runs the woken task on another processor at once, while
 * the sender goes on spinning. One operation is 200 rounds; Go skips GOMAXPROCS=1, so the default
 * parallelism is 2 only.
 *
 * <p>"Blocked" is a continuation left in the channel; "wake" submits it to the executor from the
 * waker's task (a local submission: runnext on gmp, so gmp's runnext-steal back-off and its
 * spinning rules decide how fast the other processor picks it up).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(3)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class GoWakeup {
  static final int ROUNDS = 200;
  static final long WAKE_DELAY_NS = 5_000;

  @Param({"gmp", "fjp", "fjpAsync", "tpe", "vthread"})
  public String executor;

  @Param({"2"})
  public int parallelism;

  @Param({"0", "1", "2", "5", "10", "20", "50", "100"})
  public int delayUs;

  ExecutorService exec;

  @Setup(Level.Trial)
  public void setUp() {
    exec = Execs.create(executor, parallelism);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    Execs.shutdown(exec);
  }

  @Benchmark
  public void WakeupParallelSpinning() {
    CountDownLatch done = new CountDownLatch(2);
    Channel ch = new Channel(exec);
    long d = delayUs * 1_000L;
    exec.execute(new Party(ch, done, true, d));
    exec.execute(new Party(ch, done, false, d));
    Util.await(done, "WakeupParallelSpinning");
  }

  /** An unbuffered channel between two continuation-style tasks. */
  static final class Channel {
    private record Waiter(boolean sender, Runnable k) {}

    private final AtomicReference<Waiter> waiter = new AtomicReference<>();
    private final Executor ex;

    Channel(Executor ex) {
      this.ex = ex;
    }

    /**
     * Sends (or receives): true if the partner was waiting (it is woken and the caller goes on),
     * false if the caller must stop and wait ({@code self} is resumed by the partner).
     */
    boolean rendezvous(boolean send, Runnable self) {
      for (; ; ) {
        Waiter w = waiter.get();
        if (w == null) {
          if (waiter.compareAndSet(null, new Waiter(send, self))) {
            return false;
          }
        } else {
          if (w.sender() == send) {
            throw new IllegalStateException("two " + (send ? "senders" : "receivers"));
          }
          if (waiter.compareAndSet(w, null)) {
            ex.execute(w.k()); // wake the partner
            return true;
          }
        }
      }
    }
  }

  private static final class Party implements Runnable {
    private final Channel ch;
    private final CountDownLatch done;
    private final boolean sendsFirst;
    private final long delay;
    private int round;
    private int phase;

    Party(Channel ch, CountDownLatch done, boolean sendsFirst, long delay) {
      this.ch = ch;
      this.done = done;
      this.sendsFirst = sendsFirst;
      this.delay = delay;
    }

    @Override
    public void run() {
      for (; ; ) {
        if (round == ROUNDS) {
          done.countDown();
          return;
        }
        // sender side spins delay + wakeDelay before its send; receiver side spins delay
        switch (phase) {
          case 0 -> {
            Util.stall(sendsFirst ? delay + WAKE_DELAY_NS : delay);
            phase = 1;
          }
          case 1 -> {
            phase = 2;
            if (!ch.rendezvous(sendsFirst, this)) {
              return; // parked; the partner resumes us at phase 2
            }
          }
          case 2 -> {
            Util.stall(sendsFirst ? delay : delay + WAKE_DELAY_NS);
            phase = 3;
          }
          default -> {
            phase = 0;
            round++;
            if (!ch.rendezvous(!sendsFirst, this)) {
              return;
            }
          }
        }
      }
    }
  }
}
