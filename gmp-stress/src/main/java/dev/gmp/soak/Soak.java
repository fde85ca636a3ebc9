package dev.gmp.soak;

import dev.gmp.GmpExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

/**
 * Randomised, seeded fault soak of a real {@link GmpExecutor} through its public API
 * (docs/stress.md). Rounds until the deadline; each round ({@link Round}) builds an executor
 * (random parallelism, spare budget, time slice, keep-alive, a faulty ThreadFactory) and mixes:
 * external submission from several threads, tasks that spawn tasks from workers, tasks that
 * throw, {@link GmpExecutor#blocking} calls, {@code setParallelism} changes, Future
 * cancellations (with and without interrupt), idle gaps; then shutdown or shutdownNow at a random
 * moment. The faults ({@link Fault}, all on by default, each switchable): interrupts of the
 * workers and sysmon, slow, dud, throwing and null-returning thread factories, tasks throwing
 * Errors, setParallelism and shutdownNow racing the shutdown, timers (one-shot, periodic,
 * cancelled), virtual threads carried by the executor. After each round it checks, per task id:
 * accepted tasks ran exactly once or were returned by shutdownNow exactly once (or, timers, were
 * cancelled), rejected ones neither; that no thread of the executor is alive and none runs a
 * task after termination; and, in rounds where the load stops before the shutdown, that the idle
 * executor's threads do not spin.
 *
 * <pre>
 * java [--add-opens java.base/java.lang=ALL-UNNAMED] -cp gmp-stress/target/jcstress.jar \
 *     [-Dgmp.soak.faults=all,-timers] [-Dgmp.soak.verbose=true] [-Dgmp.soak.from=N] \
 *     dev.gmp.soak.Soak 60s [seed]
 * </pre>
 */
public final class Soak {
  /**
   * What a run injects, and whether it prints a line per round. {@link #fromSystemProperties}
   * reads {@code gmp.soak.faults} ({@link Fault#parse}) and {@code gmp.soak.verbose}.
   */
  public record Options(Set<Fault> faults, boolean verbose) {
    public Options {
      faults = faults.isEmpty() ? EnumSet.noneOf(Fault.class) : EnumSet.copyOf(faults);
    }

    public static Options defaults() {
      return new Options(EnumSet.allOf(Fault.class), false);
    }

    public static Options fromSystemProperties() {
      return new Options(
          Fault.parse(System.getProperty("gmp.soak.faults")),
          Boolean.getBoolean("gmp.soak.verbose"));
    }

    public Options withFaults(Set<Fault> f) {
      return new Options(f, verbose);
    }

    public Options withVerbose(boolean v) {
      return new Options(faults, v);
    }

    String faultList() {
      return faults.isEmpty() ? "none"
          : faults.stream().map(f -> f.key).collect(Collectors.joining(","));
    }
  }

  /** Totals over all rounds. */
  public static final class Result {
    public String faults = "";
    /** The seed: the same seed and faults give the same rounds (parameters, openings). */
    public long seed;
    public long rounds;
    public long shutdownNows;
    /** Task ids handed out: one-shot tasks and timers, periodic timers. */
    public long submitted;
    /** One-shot tasks and timers accepted (periodic ones are {@link #periodicTimers}). */
    public long accepted;
    public long rejected;
    /** Rejections before the soak shut the executor down: no thread could be had. */
    public long rejectedNoThread;
    /** Of those, the ones whose cause chain holds the factory's exception. */
    public long rejectedFactoryCause;
    public long ran;
    public long returned;
    /**
     * Never ran, and excused: one-shot timers the soak cancelled (cancel returned true), children
     * that invokeAll or invokeAny may have cancelled.
     */
    public long timersCancelledUnrun;
    public long threw;
    public long errors;
    public long blockingCalls;
    /** Of blockingCalls, the unmarked sleeps (no GmpExecutor.blocking), and the Ps retaken. */
    public long unmarkedCalls;
    public long retakes;
    public long cancelled;
    public long parallelismChanges;
    public long oneShotTimers;
    public long periodicTimers;
    public long periodicRuns;
    public long interruptsWorkers;
    public long interruptsSysmon;
    public long lost;
    public long duplicated;
    public long phantom;
    /** Accepted periodic timers neither done nor returned after termination. */
    public long periodicLive;
    public long notTerminated;
    /** Factory threads meant to run the executor's Runnable, alive after termination. */
    public long threadsAlive;
    public long sysmonAlive;
    /** Task bodies started after awaitTermination returned true, or still running then. */
    public long ranAfterTermination;
    public long workerThreads;
    public long slowThreads;
    public long dudThreads;
    public long factoryThrew;
    public long factoryNull;
    /** The most threads the factory made in one round. */
    public long maxThreadsPerRound;
    /** The most factory threads alive at once in one round (the factory's own count). */
    public long maxPeakAlive;
    /** The most dud threads alive at once in one round. */
    public long maxPeakDudsAlive;
    /** Lone first submissions (execute, schedule) of failing openings; those rejected. */
    public long loneTasks;
    public long loneRejected;
    /** Rounds that opened with only late threads and a lone task. */
    public long slowStarts;
    /** The largest {@code stats().peakThreads()} of a round. */
    public long maxPeakThreads;
    public long vtStarted;
    public long vtInterrupted;
    public long vtRejected;
    public long vtAlive;
    public boolean virtualThreadsUnsupported;
    /** Rounds with the decorator (fault DECORATOR), and the submissions it failed on purpose. */
    public long decoratedRounds;
    public long decoratorThrew;
    /** invokeAll and invokeAny calls from tasks (kind 7). */
    public long invokeAlls;
    public long invokeAnys;
    /** Of kind 7's waits (get, invokeAll, invokeAny), those made with a timeout. */
    public long timedWaits;
    /** Of kind 7's waits on one future, those on a timer's (schedule's) future. */
    public long timerWaits;
    public long idleRounds;
    public long idleQuiescent;
    public long idleCpuNanos;
    public long idleWindowNanos;
    /** The largest share of an idle window one executor thread used. */
    public double maxIdleShare;
    public long idleThreadsMade;
    public double seconds;
    public final List<String> failures = new ArrayList<>();

    public boolean ok() {
      return lost == 0 && duplicated == 0 && phantom == 0 && notTerminated == 0
          && threadsAlive == 0 && sysmonAlive == 0 && periodicLive == 0
          && ranAfterTermination == 0 && vtAlive == 0 && failures.isEmpty();
    }

    public double tasksPerSecond() {
      return seconds > 0 ? ran / seconds : 0;
    }

    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "soak: %.1f s, seed %d, %d rounds (%d with a shutdownNow), %.0f tasks/s, faults %s%n"
              + "  submitted=%d accepted=%d rejected=%d (before shutdown, no thread: %d, %d with"
              + " the factory's exception as cause) ran=%d returned=%d cancelled unrun=%d"
              + " (accepted - ran - returned - cancelled = %d)%n"
              + "  threw=%d errors=%d blocking=%d (unmarked %d; %d Ps retaken) cancelled=%d"
              + " setParallelism=%d%n"
              + "  timers: %d one-shot, %d periodic (%d runs); interrupts: %d workers, %d sysmon;"
              + " virtual threads: %s%n"
              + "  from tasks: %d invokeAll, %d invokeAny, %d waits timed, %d on timers; decorator in %d rounds"
              + " (threw %d times)%n"
              + "  threads: %d made (%.1f per round, at most %d in one round; %d slow, %d dud;"
              + " factory threw %d, returned null %d), peak alive %d (duds %d), peakThreads %d;"
              + " lone first submissions with no thread to be had: %d, %d rejected;"
              + " slow starts: %d%n"
              + "  idle: %d quiet rounds (%d quiescent), executor CPU %.1f ms in %.0f ms of"
              + " windows, one thread at most %.0f%% of a window, %d threads made while idle%n"
              + "  invariants: lost=%d duplicated=%d phantom=%d periodicLive=%d notTerminated=%d"
              + " threadsAliveAfterTermination=%d sysmonAlive=%d ranAfterTermination=%d"
              + " vthreadsAlive=%d -> %s",
          seconds, seed, rounds, shutdownNows, tasksPerSecond(), faults, submitted, accepted,
          rejected, rejectedNoThread, rejectedFactoryCause, ran, returned,
          timersCancelledUnrun, accepted - ran - returned - timersCancelledUnrun, threw, errors,
          blockingCalls, unmarkedCalls, retakes, cancelled, parallelismChanges, oneShotTimers,
          periodicTimers, periodicRuns, interruptsWorkers, interruptsSysmon,
          virtualThreadsUnsupported ? "unsupported (no --add-opens java.base/java.lang), skipped"
              : vtStarted + " started, " + vtInterrupted + " interrupted, " + vtRejected
                  + " rejected",
          invokeAlls, invokeAnys, timedWaits, timerWaits, decoratedRounds, decoratorThrew,
          workerThreads, rounds > 0 ? (double) workerThreads / rounds : 0.0,
          maxThreadsPerRound, slowThreads, dudThreads, factoryThrew, factoryNull, maxPeakAlive,
          maxPeakDudsAlive, maxPeakThreads, loneTasks, loneRejected, slowStarts, idleRounds,
          idleQuiescent, idleCpuNanos / 1e6, idleWindowNanos / 1e6,
          100 * maxIdleShare, idleThreadsMade, lost, duplicated, phantom, periodicLive,
          notTerminated, threadsAlive, sysmonAlive, ranAfterTermination, vtAlive,
          ok() ? "OK" : "FAILED " + failures);
    }
  }

  private Soak() {}

  public static void main(String[] args) throws Exception {
    Duration d = args.length > 0 ? parse(args[0]) : Duration.ofSeconds(30);
    long seed = args.length > 1 ? Long.parseLong(args[1]) : System.nanoTime();
    Options o = Options.fromSystemProperties();
    System.out.println("soak: duration " + d + ", seed " + seed + ", faults " + o.faultList());
    Result r = run(d, seed, o);
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

  /** A run with the options of the system properties (all faults unless set). */
  public static Result run(Duration duration, long seed) throws InterruptedException {
    return run(duration, seed, Options.fromSystemProperties());
  }

  /**
   * Rounds until {@code duration} has passed (the last round finishes), or until more than 20
   * failures or 2 rounds that did not terminate (each costs its termination timeout).
   */
  public static Result run(Duration duration, long seed, Options options)
      throws InterruptedException {
    Result total = new Result();
    total.faults = options.faultList();
    total.seed = seed;
    SplittableRandom rnd = new SplittableRandom(seed);
    // -Dgmp.soak.from=N starts at round N of this seed, with the parameters and opening it has in
    // a full run (its timing differs): to replay a failed round without the ones before it.
    long from = Long.getLong("gmp.soak.from", 0);
    for (; total.rounds < from; total.rounds++) {
      rnd.nextInt(600);
      rnd.split();
    }
    long start = System.nanoTime();
    long end = start + duration.toNanos();
    while (System.nanoTime() < end) {
      long left = (end - System.nanoTime()) / 1_000_000;
      long millis = Math.max(20, Math.min(left, 50 + rnd.nextInt(600)));
      new Round(rnd.split(), millis, total, options, total.rounds).run();
      total.rounds++;
      if (total.failures.size() > 20 || total.notTerminated >= 2) {
        break;
      }
    }
    total.seconds = (System.nanoTime() - start) / 1e9;
    return total;
  }
}
