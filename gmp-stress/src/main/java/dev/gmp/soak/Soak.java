package dev.gmp.soak;

import dev.gmp.GmpExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Randomised soak of a real {@link GmpExecutor} through its public API (docs/stress.md). Rounds
 * until the deadline; each round builds an executor (random parallelism), and mixes: external
 * submission from several threads, tasks that spawn tasks from workers, tasks that throw,
 * {@link GmpExecutor#blocking} calls, {@code setParallelism} changes, Future cancellations
 * (with and without interrupt), idle gaps; then shutdown or shutdownNow at a random moment.
 * After each round's awaitTermination it checks, per task id: accepted tasks ran exactly once or
 * were returned by shutdownNow exactly once, rejected ones neither; and no worker thread is
 * alive.
 *
 * <p>{@code java -cp gmp-stress/target/jcstress.jar dev.gmp.soak.Soak 60s [seed]}
 */
public final class Soak {
  /** Per-round cap on task ids (the per-id counters are arrays). */
  static final int CAP = 1 << 20;

  /** Totals over all rounds. */
  public static final class Result {
    public long rounds;
    public long shutdownNows;
    public long submitted;
    public long accepted;
    public long rejected;
    public long ran;
    public long returned;
    public long threw;
    public long blockingCalls;
    public long cancelled;
    public long parallelismChanges;
    public long lost;
    public long duplicated;
    public long phantom;
    public long notTerminated;
    public long threadsAlive;
    public long workerThreads;
    /** The most worker threads one round created (bounded by parallelism + maxSpareThreads). */
    public long maxThreadsPerRound;
    public double seconds;
    public final List<String> failures = new ArrayList<>();

    public boolean ok() {
      return lost == 0 && duplicated == 0 && phantom == 0 && notTerminated == 0
          && threadsAlive == 0 && failures.isEmpty();
    }

    public double tasksPerSecond() {
      return seconds > 0 ? ran / seconds : 0;
    }

    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "soak: %.1f s, %d rounds (%d ended by shutdownNow), %.0f tasks/s%n"
              + "  submitted=%d accepted=%d rejected=%d ran=%d returned=%d"
              + " (accepted - ran - returned = %d)%n"
              + "  threw=%d blocking=%d cancelled=%d setParallelism=%d worker threads=%d"
              + " (%.1f per round, at most %d in one round)%n"
              + "  invariants: lost=%d duplicated=%d phantom=%d notTerminated=%d"
              + " threadsAliveAfterTermination=%d -> %s",
          seconds, rounds, shutdownNows, tasksPerSecond(), submitted, accepted, rejected, ran,
          returned, accepted - ran - returned, threw, blockingCalls, cancelled,
          parallelismChanges, workerThreads, rounds > 0 ? (double) workerThreads / rounds : 0.0,
          maxThreadsPerRound, lost, duplicated, phantom, notTerminated,
          threadsAlive, ok() ? "OK" : "FAILED " + failures);
    }
  }

  private Soak() {}

  public static void main(String[] args) throws Exception {
    Duration d = args.length > 0 ? parse(args[0]) : Duration.ofSeconds(30);
    long seed = args.length > 1 ? Long.parseLong(args[1]) : System.nanoTime();
    System.out.println("soak: duration " + d + ", seed " + seed);
    Result r = run(d, seed);
    System.out.println(r);
    System.exit(r.ok() ? 0 : 1);
  }

  static Duration parse(String s) {
    s = s.trim().toLowerCase(Locale.ROOT);
    if (s.endsWith("ms")) {
      return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
    }
    if (s.endsWith("s")) {
      return Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1)));
    }
    if (s.endsWith("m")) {
      return Duration.ofMinutes(Long.parseLong(s.substring(0, s.length() - 1)));
    }
    return Duration.ofSeconds(Long.parseLong(s));
  }

  public static Result run(Duration duration, long seed) throws InterruptedException {
    Result total = new Result();
    SplittableRandom rnd = new SplittableRandom(seed);
    long start = System.nanoTime();
    long end = start + duration.toNanos();
    while (System.nanoTime() < end) {
      long left = (end - System.nanoTime()) / 1_000_000;
      new Round(rnd.split(), Math.max(20, Math.min(left, 50 + rnd.nextInt(600))), total).run();
      total.rounds++;
      if (total.failures.size() > 20) {
        break;
      }
    }
    total.seconds = (System.nanoTime() - start) / 1e9;
    return total;
  }

  /** One executor's life. */
  static final class Round {
    final SplittableRandom rnd;
    final long millis;
    final Result total;
    final AtomicIntegerArray accepted = new AtomicIntegerArray(CAP);
    final AtomicIntegerArray ran = new AtomicIntegerArray(CAP);
    final AtomicIntegerArray returned = new AtomicIntegerArray(CAP);
    final AtomicLong ids = new AtomicLong();
    final AtomicLong threw = new AtomicLong();
    final AtomicLong blocking = new AtomicLong();
    final AtomicLong cancelled = new AtomicLong();
    final AtomicLong rejected = new AtomicLong();
    final ConcurrentLinkedQueue<Thread> workers = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Future<?>> futures = new ConcurrentLinkedQueue<>();
    final int maxParallelism;
    GmpExecutor ex;
    volatile boolean stop;

    Round(SplittableRandom rnd, long millis, Result total) {
      this.rnd = rnd;
      this.millis = millis;
      this.total = total;
      this.maxParallelism = 1 + rnd.nextInt(4);
    }

    /** A task with an id; counts its run, then does its kind of work. */
    final class Task implements Runnable {
      final int id;
      final int kind;
      final long seed;
      final boolean counts; // false when wrapped in an IdFuture, which counts instead

      Task(int id, int kind, long seed, boolean counts) {
        this.id = id;
        this.kind = kind;
        this.seed = seed;
        this.counts = counts;
      }

      @Override
      public void run() {
        if (counts) {
          ran.incrementAndGet(id);
        }
        SplittableRandom r = new SplittableRandom(seed);
        switch (kind) {
          case 0 -> spin(r.nextInt(2_000));
          case 1 -> { // spawn children from the worker (runnext / local ring)
            int n = 1 + r.nextInt(4);
            for (int i = 0; i < n; i++) {
              submit(r, false);
            }
          }
          case 2 -> {
            threw.incrementAndGet();
            throw new IllegalStateException("soak: deliberate failure of task " + id);
          }
          case 3 -> {
            blocking.incrementAndGet();
            try {
              GmpExecutor.blocking(
                  () -> {
                    Thread.sleep(0, 1 + r.nextInt(300_000));
                    return null;
                  });
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt(); // cancel(true) or shutdownNow
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
            if (r.nextInt(4) == 0) {
              submit(r, false); // spawn after the blocking call (maybe on another P now)
            }
          }
          default -> spin(100);
        }
      }
    }

    /** Submits one task (maybe as a cancellable FutureTask); records acceptance. */
    void submit(SplittableRandom r, boolean external) {
      long l = ids.incrementAndGet();
      if (l >= CAP) {
        stop = true;
        return;
      }
      int id = (int) l;
      int roll = r.nextInt(100);
      int kind = roll < 55 ? 0 : roll < 75 ? 1 : roll < 80 ? 2 : roll < 92 ? 3 : 4;
      if (!external && kind == 1 && r.nextInt(3) != 0) {
        kind = 0; // keep the spawn tree from exploding
      }
      boolean future = r.nextInt(8) == 0;
      Task t = new Task(id, kind, r.nextLong(), !future);
      // A Future (what submit() makes) counts its own run, so a cancelled one still accounts
      // as run (the executor ran it; it did nothing) or as returned by shutdownNow.
      IdFuture ft = future ? new IdFuture(t) : null;
      Runnable job = future ? ft : t;
      try {
        ex.execute(job);
        accepted.set(id, 1);
        if (ft != null) {
          futures.add(ft);
        }
      } catch (RejectedExecutionException e) {
        rejected.incrementAndGet();
      }
    }

    /** What submit() would build, with the task's id and a count of the executor's runs. */
    final class IdFuture extends FutureTask<Void> {
      final int id;

      IdFuture(Task t) {
        super(t, null);
        this.id = t.id;
      }

      @Override
      public void run() {
        ran.incrementAndGet(id);
        super.run();
      }
    }

    void run() throws InterruptedException {
      ThreadFactory tf =
          r -> {
            Thread t = new Thread(r, "soak-m");
            t.setDaemon(true);
            workers.add(t);
            return t;
          };
      ex =
          GmpExecutor.builder()
              .parallelism(maxParallelism)
              .threadFactory(tf)
              .uncaughtExceptionHandler((t, e) -> {})
              .keepAlive(Duration.ofMillis(50 + rnd.nextInt(500)))
              .timeSlice(Duration.ofMillis(1 + rnd.nextInt(10)))
              .build();
      List<Thread> helpers = new ArrayList<>();
      int submitters = 1 + rnd.nextInt(3);
      for (int i = 0; i < submitters; i++) {
        SplittableRandom r = rnd.split();
        helpers.add(
            start(
                () -> {
                  while (!stop) {
                    int burst = 1 + r.nextInt(200);
                    for (int k = 0; k < burst && !stop; k++) {
                      submit(r, true);
                    }
                    if (r.nextInt(10) == 0) {
                      sleepMs(r.nextInt(20)); // idle gap: Ms park, then get woken
                    } else {
                      Thread.yield();
                    }
                  }
                }));
      }
      SplittableRandom cr = rnd.split();
      long[] parChanges = new long[1];
      helpers.add(
          start(
              () -> {
                while (!stop) {
                  sleepMs(1 + cr.nextInt(10));
                  int roll = cr.nextInt(10);
                  if (roll < 3) {
                    try {
                      ex.setParallelism(1 + cr.nextInt(4));
                      parChanges[0]++;
                    } catch (RuntimeException e) {
                      // fine after shutdown? setParallelism is allowed; record anything odd
                      synchronized (total) {
                        total.failures.add("setParallelism threw " + e);
                      }
                    }
                  } else {
                    Future<?> f = futures.poll();
                    if (f != null && f.cancel(cr.nextBoolean())) {
                      cancelled.incrementAndGet();
                    }
                  }
                }
              }));

      sleepMs(millis);
      boolean now = rnd.nextInt(10) < 4;
      List<Runnable> back = List.of();
      if (now) {
        back = ex.shutdownNow();
      } else {
        ex.shutdown();
      }
      stop = true;
      for (Thread h : helpers) {
        h.join();
      }
      boolean terminated = ex.awaitTermination(30, TimeUnit.SECONDS);
      if (!terminated) {
        synchronized (total) {
          total.notTerminated++;
          total.failures.add("round did not terminate in 30 s: " + ex + " " + ex.stats());
        }
        List<Runnable> more = ex.shutdownNow();
        ex.awaitTermination(10, TimeUnit.SECONDS);
        List<Runnable> all = new ArrayList<>(back);
        all.addAll(more);
        back = all;
      }
      for (Runnable r : back) {
        if (r instanceof Task t) {
          returned.incrementAndGet(t.id);
        } else if (r instanceof IdFuture f) {
          returned.incrementAndGet(f.id);
        } else {
          synchronized (total) {
            total.failures.add("shutdownNow returned a task we never submitted: " + r);
          }
        }
      }
      long alive = workers.stream().filter(Thread::isAlive).count();
      int maxId = (int) Math.min(ids.get(), CAP - 1);
      long acc = 0;
      long rn = 0;
      long rt = 0;
      long lost = 0;
      long dup = 0;
      long phantom = 0;
      for (int id = 1; id <= maxId; id++) {
        int a = accepted.get(id);
        int seen = ran.get(id) + returned.get(id);
        acc += a;
        rn += ran.get(id);
        rt += returned.get(id);
        if (a == 1 && seen == 0) {
          lost++;
        } else if (a == 1 && seen > 1) {
          dup++;
        } else if (a == 0 && seen != 0) {
          phantom++;
        }
      }
      synchronized (total) {
        total.shutdownNows += now ? 1 : 0;
        total.submitted += maxId;
        total.accepted += acc;
        total.rejected += rejected.get();
        total.ran += rn;
        total.returned += rt;
        total.threw += threw.get();
        total.blockingCalls += blocking.get();
        total.cancelled += cancelled.get();
        total.parallelismChanges += parChanges[0];
        total.lost += lost;
        total.duplicated += dup;
        total.phantom += phantom;
        total.threadsAlive += alive;
        total.workerThreads += workers.size();
        total.maxThreadsPerRound = Math.max(total.maxThreadsPerRound, workers.size());
        if (lost + dup + phantom + alive > 0) {
          total.failures.add(
              String.format(
                  Locale.ROOT,
                  "round %d (parallelism %d, %s): lost=%d dup=%d phantom=%d alive=%d",
                  total.rounds, maxParallelism, now ? "shutdownNow" : "shutdown", lost, dup,
                  phantom, alive));
        }
      }
    }

    private static Thread start(Runnable r) {
      Thread t = new Thread(r, "soak-driver");
      t.setDaemon(true);
      t.start();
      return t;
    }
  }

  static void spin(int iterations) {
    long x = 0;
    for (int i = 0; i < iterations; i++) {
      x += i * 31L;
    }
    if (x == 42) {
      System.out.print("");
    }
  }

  static void sleepMs(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
