package dev.gmp.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Ports of kotlinx.coroutines' scheduler actor benchmarks (benchmarks/scheduler/actors):
 * PingPongActorBenchmark (a ping and a pong actor pass a ball N_MESSAGES = 100,000 times; one
 * pair, or one pair per core) and CycledActorsBenchmark (one actor per core in a ring, each
 * forwards a ball 1,000 times through its private state of actorStateSize longs). Actors are
 * {@link Actor}s: an MPSC mailbox plus a scheduled flag, run on the executor under test.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(3)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class KotlinActors extends ExecutorBenchmark {
  static final int N_MESSAGES = 100_000;
  static final int CYCLE_BALLS = 1_000;
  static final int CORES = Runtime.getRuntime().availableProcessors();

  // ------------------------------------------------------------------ ping-pong

  record Letter(Object message, Actor<Letter> sender) {}

  record Ball(int count) {}

  static final Object START = "start";
  static final Object STOP = "stop";

  static final class Ping extends Actor<Letter> {
    private final Actor<Letter> pong;
    private final CountDownLatch initiator;

    Ping(Executor ex, Actor<Letter> pong, CountDownLatch initiator) {
      super(ex);
      this.pong = pong;
      this.initiator = initiator;
    }

    @Override
    protected void receive(Letter letter) {
      Object m = letter.message();
      if (m == START) {
        pong.send(new Letter(new Ball(0), this));
      } else if (m instanceof Ball b) {
        pong.send(new Letter(new Ball(b.count() + 1), this));
      } else if (m == STOP) {
        initiator.countDown();
      } else {
        throw new IllegalStateException("cannot happen: " + m);
      }
    }
  }

  static final class Pong extends Actor<Letter> {
    private final int messages;

    Pong(Executor ex, int messages) {
      super(ex);
      this.messages = messages;
    }

    @Override
    protected void receive(Letter letter) {
      if (!(letter.message() instanceof Ball b)) {
        throw new IllegalStateException("cannot happen: " + letter.message());
      }
      if (b.count() >= messages) {
        letter.sender().send(new Letter(STOP, this));
      } else {
        letter.sender().send(new Letter(new Ball(b.count() + 1), this));
      }
    }
  }

  private void runPingPongs(int pairs) {
    CountDownLatch me = new CountDownLatch(pairs);
    for (int i = 0; i < pairs; i++) {
      Pong pong = new Pong(exec, N_MESSAGES);
      Ping ping = new Ping(exec, pong, me);
      ping.send(new Letter(START, null));
    }
    Util.await(me, "ping-pong actors");
  }

  /** One ping/pong pair (Kotlin: 45.5 ms on its scheduler vs 217 ms on ForkJoinPool). */
  @Benchmark
  public void singlePingPong() {
    runPingPongs(1);
  }

  /** One pair per core. */
  @Benchmark
  public void coresCountPingPongs() {
    runPingPongs(CORES);
  }

  // ------------------------------------------------------------------ cycled actors

  @State(Scope.Benchmark)
  public static class Cycle {
    @Param({"1", "1024"})
    public int actorStateSize;
  }

  static int transmogrify(int value, long[] coefficients) {
    long result = 0;
    for (long c : coefficients) {
      result += c * value;
    }
    return (int) result;
  }

  static long[] state(int size) {
    long[] s = new long[size];
    for (int i = 0; i < size; i++) {
      s[i] = ThreadLocalRandom.current().nextLong(1024);
    }
    return s;
  }

  /** The actor that starts the ball and stops last. */
  static final class Last extends Actor<Letter> {
    private final CountDownLatch stops;
    private final long[] state;
    private Actor<Letter> next;
    private boolean stopped;

    Last(Executor ex, CountDownLatch stops, int stateSize) {
      super(ex);
      this.stops = stops;
      this.state = state(stateSize);
    }

    @Override
    protected void receive(Letter letter) {
      if (stopped) {
        return;
      }
      Object m = letter.message();
      if (m == START) {
        next = letter.sender();
        next.send(new Letter(new Ball(ThreadLocalRandom.current().nextInt(1, 100)), null));
      } else if (m instanceof Ball b) {
        next.send(new Letter(new Ball(transmogrify(b.count(), state)), null));
      } else if (m == STOP) {
        stopped = true;
        stops.countDown();
      }
    }
  }

  static final class Link extends Actor<Letter> {
    private final Actor<Letter> next;
    private final CountDownLatch stops;
    private final long[] state;
    private int received;
    private boolean stopped;

    Link(Executor ex, Actor<Letter> next, CountDownLatch stops, int stateSize) {
      super(ex);
      this.next = next;
      this.stops = stops;
      this.state = state(stateSize);
    }

    @Override
    protected void receive(Letter letter) {
      if (stopped) {
        return;
      }
      Object m = letter.message();
      if (m instanceof Ball b) {
        if (++received > CYCLE_BALLS) {
          next.send(new Letter(STOP, null));
          stops.countDown();
          stopped = true;
        } else {
          next.send(new Letter(new Ball(transmogrify(b.count(), state)), null));
        }
      } else if (m == STOP) {
        next.send(new Letter(STOP, null));
        stops.countDown();
      }
    }
  }

  /** CORES actors in a ring pass one ball until each has seen 1,000 (Kotlin: 6.7 vs 22.8 ms). */
  @Benchmark
  public void cycledActors(Cycle cycle) {
    CountDownLatch stops = new CountDownLatch(CORES);
    Last last = new Last(exec, stops, cycle.actorStateSize);
    Actor<Letter> previous = last;
    for (int i = 1; i < CORES; i++) {
      previous = new Link(exec, previous, stops, cycle.actorStateSize);
    }
    last.send(new Letter(START, previous));
    Util.await(stops, "cycled actors");
  }
}
