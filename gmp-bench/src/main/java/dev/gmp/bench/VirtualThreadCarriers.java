package dev.gmp.bench;

import dev.gmp.GmpExecutor;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import javax.management.ObjectName;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JDK virtual threads carried by gmp ({@link GmpExecutor#virtualThreadBuilder}) against the
 * JDK's default scheduler (a FIFO ForkJoinPool, its parallelism set to the same {@code
 * parallelism} through {@code jdk.virtualThreadScheduler.parallelism}), in the same JMH run
 * (each parameter combination in a fresh fork). Issue 12's targets, docs/benchmarks.md:
 *
 * <ul>
 *   <li>{@link #parkUnparkPingPong}: two threads hand a turn to each other with park/unpark; ns
 *       per round trip (gmp: the unpark readies the partner into runnext of the same P);
 *   <li>{@link #abqPingPong}: the same through two {@code ArrayBlockingQueue(1)};
 *   <li>{@link #spawnJoinOutside} / {@link #spawnJoinInside}: 100k threads started (from the
 *       benchmark's platform thread / from one virtual thread) and joined; ms per 100k;
 *   <li>{@link #sleep10k}: 10k threads each sleeping 20 ms, started and joined: wall time, and
 *       the carrier threads alive afterwards (secondary results, see {@link Carriers});
 *   <li>{@link #socketEcho}: {@value #CLIENTS} client threads, each on its own loopback
 *       connection to a handler thread, {@value #MSGS} 8-byte echoes each; ms per pass.
 * </ul>
 *
 * <p>The forks need {@code --add-opens java.base/java.lang=ALL-UNNAMED} for gmp's builder (added
 * through {@code jvmArgsAppend}, so it survives bench.sh's {@code -jvmArgs}). SynchronousQueue
 * and Exchanger are left out on purpose: they spin before parking unless the carrier is a
 * ForkJoinPool worker with queued work, which makes them slower on any other scheduler
 * (docs/design.md section 12).
 */
@State(Scope.Benchmark)
@Fork(value = 2, jvmArgsAppend = {"--add-opens", "java.base/java.lang=ALL-UNNAMED"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class VirtualThreadCarriers {
  static final int ROUNDS = 20_000;
  static final int SPAWNS = 100_000;
  static final int SLEEPERS = 10_000;
  static final int CLIENTS = 1000;
  static final int MSGS = 10;

  @Param({"gmp", "default"})
  public String scheduler;

  @Param({"2"})
  public int parallelism;

  GmpExecutor gmp;
  Thread.Builder.OfVirtual builder;

  @Setup(Level.Trial)
  public void setUp() {
    switch (scheduler) {
      case "gmp" -> {
        gmp = GmpExecutor.builder().name("vt").parallelism(parallelism).build();
        builder = gmp.virtualThreadBuilder();
      }
      case "default" -> {
        System.setProperty("jdk.virtualThreadScheduler.parallelism",
            Integer.toString(parallelism)); // before the first virtual thread of this fork
        builder = Thread.ofVirtual();
        Integer p = defaultSchedulerAttribute("Parallelism");
        if (p != null && p != parallelism) {
          throw new IllegalStateException("default scheduler parallelism " + p);
        }
      }
      default -> throw new IllegalArgumentException("scheduler: gmp or default, was " + scheduler);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (gmp != null) {
      Execs.shutdown(gmp);
    }
  }

  /** JDK 24+: jdk.management:type=VirtualThreadScheduler; null where there is no such bean. */
  static Integer defaultSchedulerAttribute(String name) {
    try {
      Thread.ofVirtual().start(() -> {}).join(); // the scheduler exists before we ask it
      Object v = ManagementFactory.getPlatformMBeanServer()
          .getAttribute(new ObjectName("jdk.management:type=VirtualThreadScheduler"), name);
      return v instanceof Integer i ? i : null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (Exception | LinkageError e) {
      return null;
    }
  }

  /** Carrier threads of the scheduler under test that are alive now. */
  int carrierThreads() {
    if (gmp != null) {
      return gmp.stats().threads();
    }
    Integer n = defaultSchedulerAttribute("PoolSize");
    return n == null ? -1 : n;
  }

  static void join(Thread t) {
    try {
      if (!t.join(Duration.ofSeconds(Util.OP_TIMEOUT_S))) {
        throw new IllegalStateException(t + " did not finish within " + Util.OP_TIMEOUT_S + " s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  // ---------------------------------------------------------------- ping-pong

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @OperationsPerInvocation(ROUNDS)
  public void parkUnparkPingPong() {
    AtomicInteger turn = new AtomicInteger(); // whose turn, 0 or 1
    Thread[] pair = new Thread[2];
    for (int me = 0; me < 2; me++) {
      int self = me;
      pair[me] = builder.unstarted(() -> {
        for (int i = 0; i < ROUNDS; i++) {
          while (turn.get() != self) {
            LockSupport.park();
          }
          turn.set(1 - self); // volatile write, then the partner's unpark
          LockSupport.unpark(pair[1 - self]);
        }
      });
    }
    pair[1].start();
    pair[0].start();
    join(pair[0]);
    join(pair[1]);
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @OperationsPerInvocation(ROUNDS)
  public void abqPingPong() {
    ArrayBlockingQueue<Integer> ping = new ArrayBlockingQueue<>(1);
    ArrayBlockingQueue<Integer> pong = new ArrayBlockingQueue<>(1);
    Thread a = builder.start(() -> {
      try {
        for (int i = 0; i < ROUNDS; i++) {
          ping.put(i);
          pong.take();
        }
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    Thread b = builder.start(() -> {
      try {
        for (int i = 0; i < ROUNDS; i++) {
          pong.put(ping.take());
        }
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    join(a);
    join(b);
  }

  // ---------------------------------------------------------------- spawn + join

  static void spawnAndJoin(Thread.Builder.OfVirtual b) {
    Thread[] ts = new Thread[SPAWNS];
    Runnable nothing = () -> {};
    for (int i = 0; i < SPAWNS; i++) {
      ts[i] = b.start(nothing);
    }
    for (Thread t : ts) {
      join(t);
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public void spawnJoinOutside() {
    spawnAndJoin(builder);
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public void spawnJoinInside() {
    Thread.Builder.OfVirtual b = builder;
    join(b.start(() -> spawnAndJoin(b)));
  }

  // ---------------------------------------------------------------- sleepers

  /**
   * Carrier threads alive after each operation (secondary results). JMH sums EVENTS counters
   * over the iterations, so the mean per operation is {@code carrierThreads / sleepOps}, and
   * {@code peakCarriers} is the largest count seen, summed over iterations (divide by their
   * number).
   */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Carriers {
    public long sleepOps;
    public long carrierThreads;
    public long peakCarriers;

    @Setup(Level.Iteration)
    public void reset() {
      sleepOps = 0;
      carrierThreads = 0;
      peakCarriers = 0;
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public void sleep10k(Carriers c) {
    Thread[] ts = new Thread[SLEEPERS];
    Runnable sleep = () -> Util.sleepNanos(20_000_000);
    for (int i = 0; i < SLEEPERS; i++) {
      ts[i] = builder.start(sleep);
    }
    for (Thread t : ts) {
      join(t);
    }
    int n = carrierThreads();
    c.sleepOps++;
    c.carrierThreads += n;
    c.peakCarriers = Math.max(c.peakCarriers, n);
  }

  // ---------------------------------------------------------------- socket echo

  /**
   * The connections and their handler threads (on the scheduler under test), per trial; a state
   * of its own so that only socketEcho's forks open them.
   */
  @State(Scope.Benchmark)
  public static class Echo {
    ServerSocket server;
    final List<Socket> clients = new ArrayList<>();
    final List<Thread> handlers = new ArrayList<>();

    @Setup(Level.Trial)
    public void setUp(VirtualThreadCarriers b) throws IOException {
      server = new ServerSocket(0, CLIENTS, InetAddress.getLoopbackAddress());
      for (int i = 0; i < CLIENTS; i++) {
        Socket c = new Socket(server.getInetAddress(), server.getLocalPort());
        c.setTcpNoDelay(true);
        clients.add(c);
        Socket s = server.accept();
        s.setTcpNoDelay(true);
        handlers.add(b.builder.start(() -> echoUntilEof(s)));
      }
    }

    /** Before the scheduler's own teardown: its handler threads must end for it to terminate. */
    @TearDown(Level.Trial)
    public void tearDown() {
      for (Socket s : clients) {
        try {
          s.close();
        } catch (IOException ignored) {
          // closing
        }
      }
      for (Thread t : handlers) {
        join(t);
      }
      try {
        server.close();
      } catch (IOException ignored) {
        // closing
      }
    }
  }

  private static void echoUntilEof(Socket s) {
    byte[] buf = new byte[8];
    try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
      while (in.readNBytes(buf, 0, 8) == 8) {
        out.write(buf);
      }
    } catch (IOException closed) {
      // the trial is over
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public void socketEcho(Echo echo) {
    Thread[] ts = new Thread[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
      Socket s = echo.clients.get(i);
      ts[i] = builder.start(() -> {
        byte[] buf = new byte[8];
        try {
          InputStream in = s.getInputStream();
          OutputStream out = s.getOutputStream();
          for (int m = 0; m < MSGS; m++) {
            buf[0] = (byte) m;
            out.write(buf);
            if (in.readNBytes(buf, 0, 8) != 8 || buf[0] != (byte) m) {
              throw new IllegalStateException("bad echo");
            }
          }
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
      });
    }
    for (Thread t : ts) {
      join(t);
    }
  }
}
