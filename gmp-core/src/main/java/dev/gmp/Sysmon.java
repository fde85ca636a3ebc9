package dev.gmp;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.locks.LockSupport;

/**
 * sysmon: a daemon thread without a P, started with the executor's first thread. It sleeps 100 us
 * (Go: 20 us, see MIN_DELAY_NANOS; 30 us after retaking a blocked task's P, BLOCKED_DELAY_NANOS,
 * and for 1 ms after that an outside submission with no P idle ends the sleep: NUDGE_WINDOW_NANOS)
 * between rounds while it has something to do, doubles the sleep
 * after 50 idle rounds up to 10 ms, and parks when every P is idle, until work waits that no idle
 * P can take, a blocking call starts or a thread start needs watching. Each round it
 * notes how late its sleep ended (Oversubscription), watches thread starts
 * (Threads#checkStarting), wakes an M for work nobody was woken for or for timers overdue by a
 * round (Timers#sysmonCheck), and retakes Ps (Go's retake, SysmonRetake):
 *
 * <ul>
 *   <li>a P in a marked blocking call (Psyscall) for over one tick, unless it has no local work,
 *       someone else can take work, and the call is under 10 ms: handed to another M;
 *   <li>a P whose schedtick has not moved for a time slice: preemption requested, which demotes a
 *       runnext chain at its next scheduling point;
 *   <li>a P whose M is inside a task but off the CPU (blocked without saying so: sleep, wait, a
 *       lock, a socket or pipe read) while work waits that nobody else can take: found by {@link
 *       BlockDetector} within a round or two, the P goes to another M and this M finishes its
 *       task P-less when it wakes (a spare: at most maxSpareThreads such Ms at once);
 *   <li>the same after a whole time slice in one task whose thread is in a JVM wait state
 *       (BLOCKED / WAITING / TIMED_WAITING: monitors, and everything with the detector off).
 *       A task that runs on a CPU is never retaken, however long: Go's one invariant.
 * </ul>
 */
final class Sysmon implements Runnable {
  /**
   * Shortest sleep between rounds: 100 us. Go uses 20 us, which with Linux's default timer slack
   * sleeps several times that and doubled sysmon's CPU under a blocking-heavy load for half the
   * latency (docs/design.md, section 3); with sysmon's own slack ({@link TimerSlack}, only
   * while it retakes blocked tasks' Ps) a 100 us sleep takes ~120-130 us.
   */
  static final long MIN_DELAY_NANOS = 100_000;

  /**
   * The wait after a round that found a task blocked without saying so (BlockDetector's first
   * sample): Go's 20 us tick, so the confirming look comes one tick later rather than a whole
   * round. Spent spinning, not parked: a park of 20 us sleeps 70-110 us on Linux with the default
   * timer slack and ~40 us with sysmon's low one ({@link TimerSlack}), and every request of a
   * server whose handlers block unmarked in a read waits for this look. Only while such tasks and
   * waiting work exist, and once per suspect (BlockDetector#verdict): at most a tick of CPU per
   * hand-off, about what the timed park's wake-up costs (docs/design.md, section 3).
   */
  static final long SUSPECT_DELAY_NANOS = 20_000;

  /**
   * The sleep after a round that retook a P from a task blocked without saying so: 30 us (~51 us
   * slept, with sysmon's low slack in that window: {@link TimerSlack}). A server whose handlers
   * block unmarked will block again in the next handler, which runs on the M that just got the P
   * (BlockDetector#baseline samples it), so the next look comes sooner: at 100 us each request
   * held its P about a round before its retake. 1 ms sleeping handlers, p=2: 1.15-1.25x the
   * requests at the same CPU per request (docs/benchmarks.md, "Servers"). With the low slack,
   * 30 us served 1.04-1.18x the requests of 50 us at p=1, at no more CPU; 20 us, 0.82-0.86x: the
   * look mostly came before the next handler had blocked (docs/benchmarks.md, "sysmon's own
   * timer slack").
   */
  static final long BLOCKED_DELAY_NANOS = 30_000;

  /**
   * For this long after a round that retook a blocked task's P, an outside submission that finds
   * no P idle ends sysmon's sleep ({@link #nudge}): 1 ms. In a server whose handlers block
   * unmarked, the next request usually arrives while both Ps sit in blocked handlers, and a retake
   * is the only way it runs; waiting out the sleep added a round (~180 us under load) to each
   * request. A CPU-bound backlog never arms it: only a blocked retake does.
   */
  static final long NUDGE_WINDOW_NANOS = 1_000_000;

  private static final AtomicIntegerFieldUpdater<Sysmon> U_NUDGE =
      AtomicIntegerFieldUpdater.newUpdater(Sysmon.class, "nudge");

  /**
   * NUDGE_ARMED: a blocked retake was recent, the next {@link #nudge} ends the sleep; NUDGED: one
   * did (the round that follows skips its lateness sample, as after a kick); 0 otherwise.
   */
  private volatile int nudge;

  private static final int NUDGE_ARMED = 1;
  private static final int NUDGED = 2;

  /** When the last round that retook a blocked task's P ran (sysmon's thread only). */
  private long lastBlockedRetake;

  /** sysmon's timer slack, low while it retakes blocked tasks' Ps (sysmon's thread only). */
  private TimerSlack slack = TimerSlack.NONE;

  /** A marked blocking call is retaken once it is at least this old (Go: one sysmon tick). */
  static final long SYSCALL_MIN_AGE_NANOS = 20_000;
  static final long MAX_DELAY_NANOS = 10_000_000;
  static final long SYSCALL_RETAKE_NANOS = 10_000_000;

  /**
   * Longest deep sleep (all Ps idle) between looks: 1 s, so an idle executor costs one timed
   * wake-up a second (docs/design.md, section 3).
   */
  static final long DEEP_SLEEP_NANOS = 1_000_000_000;

  /** How often sysmon re-reads the CPU count it follows (Go 1.25: about once a second). */
  static final long CPU_CHECK_NANOS = 1_000_000_000;

  private final Scheduler s;

  /** The Ms' /proc files, kept open for the clock and the detector (sysmon's own). */
  private final ThreadFiles files = new ThreadFiles();

  /** The Ms' CPU clocks, for the detector and the slice rule (sysmon's own). */
  final CpuClock clock = new CpuClock(files);

  /** Unmarked blocking within a round or two; null with -Dgmp.blockDetect=false. */
  final BlockDetector detector = Switches.BLOCK_DETECT ? new BlockDetector(clock, files) : null;

  /** Whether threads wait for a CPU (sysmon's own sleep lateness): calls in flight stop growing. */
  final Oversubscription oversubscription = new Oversubscription();

  /** Which Ps each round retakes, and why. */
  private final SysmonRetake rules;

  /** When sysmon last looked at the CPU count (sysmon's thread only). */
  private long lastCpuCheck;

  /** When the last round began: the time its looks were taken at (sysmon's thread only). */
  private long roundStart;

  /** The thread, created and started on the first {@link #watch()} (a fresh executor has none). */
  private volatile Thread thread;

  /** Whether this scheduler runs a sysmon at all (false only in gmp-stress's driven schedulers). */
  private final boolean enabled;

  /** Current sleep, for entersyscall to decide whether to kick us (a hint). */
  private volatile long delay = MIN_DELAY_NANOS;

  private volatile boolean kicked;

  /**
   * sysmon is in its deep sleep (all Ps idle), or died and waits for a restart. Written under the
   * lock; volatile because whoever queues work that no idle P can take reads it without the lock
   * ({@link #wakeForBacklog}).
   */
  volatile boolean waiting;

  Sysmon(Scheduler s, boolean enabled) {
    this.s = s;
    this.enabled = enabled;
    this.rules = new SysmonRetake(s, this);
  }

  /**
   * Makes sure sysmon runs and is awake: called when an M's thread is started (the check-in
   * watchdog runs here) or written off. Starts the thread on first use, through the same
   * creation path as the default worker factory (Threads.newDaemon).
   */
  void watch() {
    if (ensureStarted()) {
      return;
    }
    if (!kicked) {
      kicked = true;
      wake();
    }
  }

  /**
   * Starts the thread on first use and ends a deep sleep, without changing the cadence (a failed
   * thread start must not make sysmon retry it every 100 us). True if sysmon is not there to kick
   * (disabled, or just started).
   */
  boolean ensureStarted() {
    if (!enabled) {
      return true;
    }
    if (thread == null) {
      // Never throws: callers restart a dead sysmon from the middle of their own steps (a wake-up
      // of an M that has just taken a task, a returning blocking call holding a P it took), and
      // an OutOfMemoryError there lost the task or the P. Without room, sysmon stays dead and
      // waiting, so that the next caller that looks tries again.
      Thread t = null;
      s.lock.lock();
      try {
        if (thread == null && s.runState < Scheduler.TIDYING) {
          String name = s.config.name() + "-sysmon";
          t = Threads.newDaemon(name, this, s.config.contextClassLoader());
          thread = t;
        }
      } catch (OutOfMemoryError e) {
        waiting = true;
        return true;
      } finally {
        s.lock.unlock();
      }
      if (t != null) {
        try {
          t.start(); // outside the lock: a thread start is a system call
        } catch (Throwable e) { // out of memory, or no native thread for it
          s.lock.lock();
          try {
            if (thread == t) {
              thread = null;
              waiting = true;
            }
          } finally {
            s.lock.unlock();
          }
        }
        return true;
      }
    }
    wakeIfWaiting();
    return false;
  }

  Thread thread() {
    return thread;
  }

  /** Whether the caller is sysmon (which must never call the user's ThreadFactory: Threads). */
  boolean isCurrentThread() {
    return Thread.currentThread() == thread;
  }

  void wake() {
    Thread t = thread;
    if (t != null) {
      LockSupport.unpark(t);
    }
  }

  /** A blocking call began: if we are in a long sleep, come back to the fast cadence now. */
  void onEntersyscall() {
    if (delay > MIN_DELAY_NANOS && !kicked) {
      kicked = true;
      wake();
    }
  }

  /**
   * Work waits that no idle P can take (no P idle, nobody spinning): ends a deep sleep, since a
   * retake may be all that frees a P for it. Not when a task merely starts after an idle period:
   * beside idle Ps nothing needs a watcher, and that wake-up (a lock and an unpark before the
   * first task, then rounds through the burst) was most of gmp's CPU per task on outside bursts
   * (docs/benchmarks.md, "sysmon sleeps through light load"). One volatile read when awake.
   */
  void wakeForBacklog() {
    if (waiting) {
      wakeIfWaiting();
    }
  }

  /**
   * An outside submission found every P taken: within NUDGE_WINDOW_NANOS of a blocked task's
   * retake, ends sysmon's sleep between rounds, since a P whose task sleeps is likely what holds
   * the new task up (a server's next request). Not for a task's own spawns: their submitter runs
   * on a P, and in a tree of tasks that spawn, then wait, the nudge came before the wait and only
   * added rounds (docs/benchmarks.md, "Backlog ends sysmon's sleep"). One volatile read unarmed.
   */
  void nudge() {
    if (nudge == NUDGE_ARMED && U_NUDGE.compareAndSet(this, NUDGE_ARMED, NUDGED)) {
      wake(); // CAS: one unpark per armed round, however many submitters see the backlog
    }
  }

  /**
   * Ends sysmon's deep sleep (or restarts a dead sysmon): for backlog ({@link #wakeForBacklog}),
   * a blocking call (entersyscall) and a thread start to watch.
   */
  void wakeIfWaiting() {
    if (!waiting) {
      return;
    }
    if (!StackGuard.hasRoom()) {
      // A submitter deep in a recursion (wakep with every P busy): an overflow delayed out of the
      // lock would leave it held for good. The unpark alone ends the sleep: the deep-sleep loop
      // asks maySleep again, which sees the busy P, the queued work or the call that sent us here.
      // A dead sysmon waits for the next caller with room.
      wake();
      return;
    }
    boolean dead;
    s.lock.lock();
    try {
      dead = thread == null;
      if (waiting) {
        waiting = false;
        wake();
      }
    } finally {
      s.lock.unlock();
    }
    if (dead) {
      ensureStarted(); // sysmon died (Sysmon#run): the next M or submission that looks restarts it
    }
  }

  /**
   * sysmon may sleep until woken when every P is idle and nothing else needs its eye (no thread
   * start to watch, no queued work, no spare M): sets (or clears) {@link #waiting} to match.
   */
  private boolean maySleep() {
    Idle idle = s.idle;
    if ((idle.npidle != s.gomaxprocs || s.spares.count != 0) && !waiting) {
      return false;
    }
    s.lock.lock();
    try {
      waiting =
          idle.npidle == s.gomaxprocs
              && s.spares.count == 0
              && !s.threads.anyStarting()
              && s.global.pendingSizeLocked() == 0
              && s.retake.zombies.isEmpty()
              && s.runState < Scheduler.SHUTDOWN; // shut down: tidy() retries each round
      return waiting;
    } finally {
      s.lock.unlock();
    }
  }

  @Override
  public void run() {
    slack = TimerSlack.ofCallingThread();
    try {
      loop();
    } finally {
      files.close(); // its open /proc files: a restarted sysmon opens its own
      slack.close();
      s.lock.lock();
      try {
        // Normally the executor is terminating. If sysmon died instead (a round's Throwable that
        // even reporting could not survive), leave a restart to whoever next needs it: backlog
        // (wakeForBacklog), a blocking call or a thread start reads waiting and restarts it.
        // At termination the thread stays named here: awaitTermination joins the one it reads,
        // and a null read while this thread was still on its way out let it return with sysmon
        // alive. No restart can follow: runState >= TIDYING.
        boolean died = s.runState < Scheduler.TIDYING;
        if (died) {
          thread = null;
        }
        waiting = died;
      } finally {
        s.lock.unlock();
      }
    }
  }

  private void loop() {
    long d = MIN_DELAY_NANOS;
    // The first look is a period away, as Go's sysmon follows schedinit's read: build() has just
    // read the count, and this thread's first rounds share the CPUs with the executor's first
    // task, interpreted (the look loads Resize and may read cgroup files).
    lastCpuCheck = System.nanoTime();
    lastBlockedRetake = lastCpuCheck - NUDGE_WINDOW_NANOS; // no retake yet: not armed
    while (s.runState < Scheduler.TIDYING) {
      long slept = System.nanoTime();
      boolean spun = d <= SUSPECT_DELAY_NANOS;
      if (spun) {
        // A tick between the two looks' times (what the verdict measures), not after the round
        // that took the first: the rest of that round counts.
        spinFor(roundStart, d);
      } else {
        LockSupport.parkNanos(this, d);
      }
      slept = System.nanoTime() - slept;
      if (!spun && slept < SUSPECT_DELAY_NANOS && nudge == NUDGED) {
        // Never two looks closer than Go's tick: the detector's verdict reads "mostly off the CPU
        // between two looks", which a task in microsecond-long lock waits passes over 5 us.
        LockSupport.parkNanos(this, SUSPECT_DELAY_NANOS - slept);
      }
      // Nothing interrupts sysmon on purpose: a container's leaked-thread cleanup or a
      // ThreadGroup.interrupt does. Left set, the flag would end every park at once (a spin) and
      // close the detector's /proc reads (ClosedByInterruptException): clear it and go on.
      Thread.interrupted();
      try {
        d = round(d, slept, spun);
      } catch (Throwable e) {
        s.idle.reclaimHeld(); // a P the round took and never placed (P#heldBy)
        s.report(e); // a bug or an Error in one round: report, go on
        d = MIN_DELAY_NANOS;
        idleRounds = 0;
      }
    }
  }

  /**
   * Virtual threads woken from a spent stack, which could not be queued there (Carriers#execute):
   * queued now, at most a deep sleep's timeout later.
   */
  private void queueDeferred() {
    Carriers c = s.carriers; // volatile read: null unless virtual threads were made
    if (c != null) {
      c.queueDeferred();
    }
  }

  /** Rounds in a row that found nothing to do (the cadence backs off after 50). */
  private int idleRounds;

  /**
   * The confirming look's wait ({@link #SUSPECT_DELAY_NANOS}): until {@code d} ns after {@code
   * start}, on the CPU. A kick or a nudge does not end it (their unpark stays as the permit, so
   * the next park returns at once: one round sooner, which is what they ask for).
   */
  private static void spinFor(long start, long d) {
    while (System.nanoTime() - start < d) {
      Thread.onSpinWait();
    }
  }

  /**
   * One round after a wait of {@code slept} ns asked as {@code d}, parked or {@code spun};
   * returns the next wait.
   */
  private long round(long d, long slept, boolean spun) {
    s.counters.sysmonWakeups++; // sysmon is the only writer (Counters)
    queueDeferred();
    boolean nudged = takeNudge();
    // A kick or a nudge ends the sleep early, and a spin is never late for a timer: no sample.
    if (!kicked && !nudged && !spun) {
      oversubscription.sample(slept - d, s.retake.callNanos());
    }
    if (kicked) {
      kicked = false;
      idleRounds = 0;
      d = MIN_DELAY_NANOS;
    }
    if (quiet() && maySleep()) {
      delay = Long.MAX_VALUE;
      oversubscription.reset();
      slack.set(false); // no retake to hurry for: the default slack while every P is idle
      // Woken when work waits that no idle P can take (wakeForBacklog), by entersyscall, by a
      // thread start (watch). The timeout is a backstop only.
      do {
        LockSupport.parkNanos(this, DEEP_SLEEP_NANOS);
        Thread.interrupted(); // as above
        followAvailableProcessors(System.nanoTime());
        queueDeferred(); // the timeout's other job: nothing can wake sysmon for these
      } while (waiting && s.runState < Scheduler.TIDYING && maySleep());
      idleRounds = 0;
      delay = MIN_DELAY_NANOS;
      return MIN_DELAY_NANOS;
    }
    long now = System.nanoTime();
    roundStart = now;
    followAvailableProcessors(now);
    int n = retake(now) + s.retake.sweepZombies() + s.threads.checkStarting(now);
    noteStall(now, rules.refusedThisRound);
    // Timers a whole round overdue sit on Ps too busy to look (Go's sysmon startm for timers).
    n += s.timers.sysmonCheck(Timers.now() - d);
    wakeForQueuedWork();
    if (s.runState >= Scheduler.SHUTDOWN) {
      n += tidy(); // the backstop for a tidy-up that found a timer heap busy (Lifecycle)
    }
    boolean suspects = detector != null && detector.suspects != 0;
    if (n == 0 && !suspects) {
      idleRounds++;
    } else {
      idleRounds = 0;
    }
    d = withinSlice(
        nextSleep(d, idleRounds, rules.blockedThisRound, suspects), s.config.timeSliceNanos());
    if (rules.blockedThisRound != 0) {
      lastBlockedRetake = now;
    }
    boolean retaking = now - lastBlockedRetake < NUDGE_WINDOW_NANOS;
    if (retaking) {
      armNudge();
    }
    slack.set(retaking); // the sleeps that end each request's hand-off: on time (TimerSlack)
    delay = d;
    return d;
  }

  /**
   * How long every round may find blocked tasks (unmarked, or in marked calls), with work
   * waiting, that no thread can be added for (the thread cap or the spare budget reached, no
   * idle M) before sysmon warns: 1 s. Nothing else runs until one of those tasks returns; if they
   * wait for work queued behind them (the executor's own futures, an HttpClient whose executor
   * this is), never.
   */
  static final long STALL_REPORT_NANOS = 1_000_000_000;

  /** At most one stall warning per this long: 60 s. */
  static final long STALL_REPORT_EVERY_NANOS = 60_000_000_000L;

  /** Whether the last round found such a stall, since when, and the last warning (sysmon's own). */
  private boolean stalled;

  private long stallSince;

  private long lastStallReport;

  private boolean stallReportedOnce;

  /** Warns once a stall has lasted {@link #STALL_REPORT_NANOS} (Scheduler#report). */
  private void noteStall(long now, int refused) {
    if (refused == 0) {
      stalled = false;
      return;
    }
    if (!stalled) {
      stalled = true;
      stallSince = now;
      return;
    }
    if (now - stallSince < STALL_REPORT_NANOS
        || stallReportedOnce && now - lastStallReport < STALL_REPORT_EVERY_NANOS) {
      return;
    }
    stallReportedOnce = true;
    lastStallReport = now;
    Config c = s.config;
    IllegalStateException e = new IllegalStateException("GmpExecutor[" + c.name() + "]: work has"
        + " waited over " + STALL_REPORT_NANOS / 1_000_000 + " ms behind " + refused + " blocked"
        + " task(s) holding processors, and no thread can be added to take one (maxThreads "
        + c.maxThreads() + ", maxSpareThreads " + c.maxSpareThreads() + ", " + s.threads.mcount
        + " threads): it runs when one of them returns. If those tasks wait for work queued on"
        + " this executor (a CompletableFuture.join, a synchronous HttpClient.send"
        + " whose client runs here), nothing will return: run that work elsewhere, or wait"
        + " asynchronously. Otherwise raise maxSpareThreads; mark unmarked calls with"
        + " GmpExecutor.blocking(...).");
    e.setStackTrace(new StackTraceElement[0]); // sysmon's stack says nothing about the stall
    s.report(e);
  }

  /**
   * Lets the next {@link #nudge} end the coming sleep (sysmon, at a round's end). A volatile
   * write, then the park: a submitter that reads it and wins the CAS unparks us, and an unpark that
   * comes before the park makes the park return at once (LockSupport's permit), so none is lost.
   */
  void armNudge() {
    nudge = NUDGE_ARMED;
  }

  /**
   * Disarms the nudge for the round that starts (the round itself serves any backlog; it re-arms
   * at its end): true if a nudge ended the sleep. One volatile read when nothing was armed.
   */
  boolean takeNudge() {
    return nudge != 0 && U_NUDGE.getAndSet(this, 0) == NUDGED;
  }

  /**
   * The sleep after a round that slept {@code d}: the fast cadence, doubling after 50 idle
   * rounds up to 10 ms; shorter after a round that retook a blocked task's P (the next handler is
   * likely to block too) and shortest while the detector waits for a second look.
   */
  static long nextSleep(long d, int idleRounds, int blockedRetakes, boolean suspects) {
    long next = idleRounds > 50 ? Math.min(d * 2, MAX_DELAY_NANOS) : MIN_DELAY_NANOS;
    if (blockedRetakes != 0) {
      next = Math.min(next, BLOCKED_DELAY_NANOS);
    }
    if (suspects) {
      next = Math.min(next, SUSPECT_DELAY_NANOS); // a verdict waits for the next look
    }
    return next;
  }

  /**
   * The next sleep, never longer than the time slice: preemption requests count as no work (as
   * in Go's retake), so the cadence backs off to 10 ms while a chain of tasks runs, which made a
   * slice shorter than that last 10-20 ms. The default slice (10 ms) leaves the cadence as it was.
   */
  static long withinSlice(long next, long sliceNanos) {
    return Math.min(next, Math.max(MIN_DELAY_NANOS, sliceNanos));
  }

  /** A shut-down executor's tidy-up, retried each round until it terminates. */
  private int tidy() {
    Lifecycle.tidy(s);
    return 0;
  }

  /** The Ps' schedticks summed at the last round, and whether every P was idle then. */
  private long lastTicks = -1;

  private boolean allIdleLastRound;

  /**
   * Every P idle at this round and at the last, and no task started on any between (their
   * schedticks did not move): only then may sysmon go into its deep sleep. Deciding on one look
   * makes a server at light load, whose Ps are idle for moments between requests, cycle through
   * deep sleeps hundreds of times a second: each a lock and a park for sysmon, a lock and an
   * unpark for the M that woke it, then 50 rounds at the fast cadence (docs/benchmarks.md, "The
   * tiny-handler case").
   */
  private boolean quiet() {
    long ticks = 0;
    for (P pp : s.procs.all) {
      ticks += pp.schedtickOpaque(); // opaque reads: a stale one only delays the sleep by a round
    }
    boolean allIdle = s.idle.npidle == s.gomaxprocs;
    boolean q = allIdle && allIdleLastRound && ticks == lastTicks;
    allIdleLastRound = allIdle;
    lastTicks = ticks;
    return q;
  }

  /** Go 1.25's GOMAXPROCS updates, about once a second (Resize#followAvailableProcessors). */
  private void followAvailableProcessors(long now) {
    if (now - lastCpuCheck >= CPU_CHECK_NANOS) {
      lastCpuCheck = now;
      Resize.followAvailableProcessors(s);
    }
  }

  /**
   * The fallback for work nobody was woken for: queued work, an idle P and nobody spinning (a
   * thread start failed or was written off, so the wakep that claimed a spinner came to nothing;
   * or a virtual thread waits in the runnext of a P whose task runs on).
   */
  private void wakeForQueuedWork() {
    Idle idle = s.idle;
    boolean nobody = idle.npidle > 0 && idle.nmspinning() == 0;
    boolean stuck = nobody && s.global.size() != 0;
    // A virtual thread readied into an empty runnext woke nobody (Scheduler#readyLocal): if the
    // same G still sits there a round later while a P is idle, its owner's task runs on, so let
    // a spinner steal it (the last steal pass takes runnext). Racy reads: a hint, acted on once.
    boolean waits = false;
    for (P pp : s.procs.all) {
      G next = pp.runq.peekRunnext();
      waits |= nobody && next != null && next == pp.sysmonRunnext;
      pp.sysmonRunnext = next;
    }
    if ((stuck && stuckLastRound) || waits) {
      idle.wakep(); // two rounds in a row: nobody is coming (a failing factory retries at our pace)
    }
    stuckLastRound = stuck;
    // Queued work beside an idle P while a spinner is counted: it may be late
    // (Idle#wakeAnotherIfStale decides by its age), for tasks that no outside submission follows.
    if (s.global.size() != 0) {
      idle.wakeAnotherIfStale();
    }
  }

  /** wakeForQueuedWork's view of the previous round (sysmon's thread only). */
  private boolean stuckLastRound;

  /** One round of Go's retake over every P (SysmonRetake); package-private for driven tests. */
  int retake(long now) {
    return rules.round(now);
  }
}
