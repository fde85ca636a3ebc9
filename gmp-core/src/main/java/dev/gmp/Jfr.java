package dev.gmp;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * gmp's JFR events (module jdk.jfr, no dependency): the event types, nested at the end so that
 * every name, field and default is read in one place; the gate the hot paths test; one emit
 * method per event type. {@link JfrRecorder} keeps the gate and the periodic {@code
 * dev.gmp.ExecutorStats}. Every event is disabled by default ({@code @Enabled(false)}): a
 * recording turns on those it wants (README, "Observing gmp"; gmp.jfc turns on all of them).
 *
 * <p>Cost. Each emitting site is written {@code if (Jfr.on) Jfr.x(...)}: with no recording
 * running, one read of a static volatile boolean (a plain load on x86 and ARM), and no event
 * class is loaded. With a recording running, the emit method creates the event and checks
 * {@code shouldCommit()} before filling it (the JIT removes the allocation of an event that is
 * not committed); no event records a stack trace.
 *
 * <p>Never throws. An emitter drops its event on any Error (one that cannot be allocated or
 * committed with the heap full, or with the stack nearly used up), as JFR drops events when its
 * buffers are full: the emitting sites sit inside the scheduler's steps (a steal that has taken a
 * task, a P put on the idle list or retired, a blocking call that has marked its P), and an Error
 * from one would leave its step half done: a task lost, a P owned twice.
 *
 * <p>This class touches jdk.jfr only inside the emitters, which run only once {@link #on} was
 * set by JfrRecorder's listener, and in its nested event classes, each loaded only when first
 * used: on a runtime without the jdk.jfr module gmp runs, unrecorded.
 */
final class Jfr {
  private Jfr() {}

  /**
   * True while any JFR recording is running. Volatile: written by JfrRecorder's listener, read
   * by every emitting site; a site that reads a stale value only misses or checks one event.
   */
  static volatile boolean on;

  /** A new executor (GmpExecutor's constructor): starts listening, reports it in ExecutorStats. */
  static void register(Scheduler s) {
    try {
      JfrRecorder.register(s);
    } catch (LinkageError e) {
      // No jdk.jfr in this runtime (a jlinked image without it): nothing to record into.
    }
  }

  // ---------------------------------------------------------------- emitters (call if on)

  static void steal(Scheduler s, int thief, int victim, int tasks) {
    try {
      StealEvent e = new StealEvent();
      if (e.shouldCommit()) {
        e.executor = s.config.name();
        e.thief = thief;
        e.victim = victim;
        e.tasks = tasks;
        e.commit();
      }
    } catch (Throwable dropped) {
      // never throws: see the class comment
    }
  }

  static void handoff(Scheduler s, int p, boolean eager, long callNanos) {
    try {
      HandoffEvent e = new HandoffEvent();
      if (e.shouldCommit()) {
        e.executor = s.config.name();
        e.p = p;
        e.eager = eager;
        e.callDuration = callNanos;
        e.commit();
      }
    } catch (Throwable dropped) {
      // never throws: see the class comment
    }
  }

  static void retake(Scheduler s, int p, String kind, long m, long heldNanos) {
    try {
      RetakeEvent e = new RetakeEvent();
      if (e.shouldCommit()) {
        e.executor = s.config.name();
        e.p = p;
        e.kind = kind;
        e.m = m;
        e.held = heldNanos;
        e.commit();
      }
    } catch (Throwable dropped) {
      // never throws: see the class comment
    }
  }

  static void procState(Scheduler s, int p, int state, M m) {
    try {
      ProcStateEvent e = new ProcStateEvent();
      if (e.shouldCommit()) {
        e.executor = s.config.name();
        e.p = p;
        e.state = Dump.pStatus(state);
        e.m = m == null ? -1 : m.id;
        e.commit();
      }
    } catch (Throwable dropped) {
      // never throws: see the class comment
    }
  }

  static void unpark(Scheduler s, M m) {
    try {
      UnparkEvent e = new UnparkEvent();
      if (e.shouldCommit()) {
        e.executor = s.config.name();
        e.m = m.id;
        e.commit();
      }
    } catch (Throwable dropped) {
      // never throws: see the class comment
    }
  }

  static void runnextDemotion(Scheduler s, int p, long goid) {
    try {
      RunnextDemotionEvent e = new RunnextDemotionEvent();
      if (e.shouldCommit()) {
        e.executor = s.config.name();
        e.p = p;
        e.goid = goid;
        e.commit();
      }
    } catch (Throwable dropped) {
      // never throws: see the class comment
    }
  }

  /** A park about to begin: the event to end after the wake-up, or null if not recorded. */
  static ParkEvent parkBegin(Scheduler s, M m) {
    try {
      ParkEvent e = new ParkEvent();
      if (!e.isEnabled()) {
        return null;
      }
      e.executor = s.config.name();
      e.m = m.id;
      e.begin();
      return e;
    } catch (Throwable dropped) {
      return null; // never throws: see the class comment
    }
  }

  /** Ends a park parkBegin began; nothing if it returned null (no recording). */
  static void parkEnd(ParkEvent e) {
    try {
      if (e == null) {
        return;
      }
      e.end();
      if (e.shouldCommit()) {
        e.commit();
      }
    } catch (Throwable dropped) {
      // never throws: see the class comment
    }
  }

  // ---------------------------------------------------------------- event types

  /** {@code dev.gmp.ExecutorStats}: a periodic snapshot of each live executor (GmpStats). */
  @Name("dev.gmp.ExecutorStats")
  @Label("GMP Executor Statistics")
  @Category("gmp")
  @Description("Periodic snapshot of a GmpExecutor's scheduler")
  @Enabled(false)
  @Period("1 s")
  @StackTrace(false)
  static final class ExecutorStatsEvent extends jdk.jfr.Event {
    @Label("Executor") String executor;
    @Label("Parallelism") int parallelism;
    @Label("Threads") int threads;
    @Label("Idle Threads") int idleThreads;
    @Label("Spinning Threads") int spinningThreads;
    @Label("Idle Processors") int idleProcessors;
    @Label("Global Queue Length") int globalQueueLength;
    @Label("Local Queue Length") int localQueueLength;
    @Label("Running Tasks") int runningTasks;
    @Label("Tasks In Blocking Calls") int syscallTasks;
    @Label("Tasks Found Blocked") int waitingTasks;
    @Label("Steals") long steals;
    @Label("Handoffs") long handoffs;
    @Label("Retakes") long retakes;
    @Label("Completed Tasks") long completed;

    @Label("Spare Threads") int spareThreads;

    @Label("Oversubscribed")
    @Description("sysmon holds back hand-offs of short blocking calls: threads wait for a CPU")
    boolean oversubscribed;

    @Label("Latency Samples")
    @Description("Tasks timed from runnable to started since the previous ExecutorStats (one in"
        + " 64 is)")
    long latencySamples;

    @Label("Latency P50") @Description("Median scheduling latency in the period") @Timespan
    long latencyP50;

    @Label("Latency P99") @Description("99th percentile scheduling latency in the period")
    @Timespan
    long latencyP99;

    @Label("Latency P99.9") @Description("99.9th percentile scheduling latency in the period")
    @Timespan
    long latencyP999;

    @Label("Latency Max") @Description("Longest scheduling latency in the period") @Timespan
    long latencyMax;
  }

  /** {@code dev.gmp.Steal}: a P's M took tasks from another P's queue (Go's runqsteal). */
  @Name("dev.gmp.Steal")
  @Label("GMP Steal")
  @Category("gmp")
  @Description("A processor stole tasks from another processor's local queue")
  @Enabled(false)
  @StackTrace(false)
  static final class StealEvent extends jdk.jfr.Event {
    @Label("Executor") String executor;
    @Label("Thief P") int thief;
    @Label("Victim P") int victim;
    @Label("Tasks Taken") int tasks;
  }

  /**
   * {@code dev.gmp.Handoff}: one per {@link GmpStats#handoffs}: a P passed on from an M that
   * cannot use it (Go's handoffp), by a {@link GmpExecutor#blocking} call as it starts because
   * tasks were waiting (eager, Go's entersyscallblock), or after a sysmon retake (a {@code
   * dev.gmp.Retake} event at the same instant says which kind).
   */
  @Name("dev.gmp.Handoff")
  @Label("GMP Handoff")
  @Category("gmp")
  @Description("A processor passed on from a thread that cannot use it (a blocking call, or a"
      + " sysmon retake), to another thread or the idle list")
  @Enabled(false)
  @StackTrace(false)
  static final class HandoffEvent extends jdk.jfr.Event {
    @Label("Executor") String executor;
    @Label("P") int p;
    @Label("Eager") @Description("At the call's start, because tasks were waiting") boolean eager;
    @Label("Call Duration")
    @Description("How long the blocking call or the task had run when its P was handed off")
    @Timespan long callDuration;
  }

  /**
   * {@code dev.gmp.Retake}: one per {@link GmpStats#retakes}: a P taken from an M not using it
   * (Go's retake): by sysmon from a marked blocking call ({@code syscall}), or from a task
   * blocked without saying so ({@code blocked}: found by the block detector, or in a JVM wait
   * state for a whole time slice while work waited; a task on a CPU is never retaken); or by an M
   * back from its own blocking call from another's ({@code syscall}). A call's own eager
   * hand-off is a Handoff only.
   */
  @Name("dev.gmp.Retake")
  @Label("GMP Retake")
  @Category("gmp")
  @Description("A processor taken from a blocking call or a blocked task, by sysmon or by"
      + " a thread back from its own blocking call")
  @Enabled(false)
  @StackTrace(false)
  static final class RetakeEvent extends jdk.jfr.Event {
    @Label("Executor") String executor;
    @Label("P") int p;
    @Label("Kind") @Description("syscall or blocked") String kind;
    @Label("M") @Description("The worker the processor was taken from") long m;
    @Label("Held") @Description("How long the call or the task had been running") @Timespan
    long held;
  }

  /**
   * {@code dev.gmp.ProcState}: a P changed state: {@code running} (an M acquired it or came back
   * from a blocking call), {@code syscall} (its M entered a blocking call), {@code idle} (on the
   * idle list), {@code dead} (retired by setParallelism). The lanes of gmp-bench's trace view.
   */
  @Name("dev.gmp.ProcState")
  @Label("GMP Processor State")
  @Category("gmp")
  @Description("A processor changed state (the per-P lanes of the trace view)")
  @Enabled(false)
  @StackTrace(false)
  static final class ProcStateEvent extends jdk.jfr.Event {
    @Label("Executor") String executor;
    @Label("P") int p;
    @Label("State") @Description("running, syscall, idle or dead") String state;
    @Label("M") @Description("The worker holding it, -1 if none") long m;
  }

  /** {@code dev.gmp.Park}: an M slept on the idle list for want of work (Go's stopm). */
  @Name("dev.gmp.Park")
  @Label("GMP Park")
  @Category("gmp")
  @Description("A worker thread slept on the idle list")
  @Enabled(false)
  @StackTrace(false)
  static final class ParkEvent extends jdk.jfr.Event {
    @Label("Executor") String executor;
    @Label("M") long m;
  }

  /** {@code dev.gmp.Unpark}: a parked M had to be woken (Go's notewakeup of a sleeping M). */
  @Name("dev.gmp.Unpark")
  @Label("GMP Unpark")
  @Category("gmp")
  @Description("A parked worker thread was woken")
  @Enabled(false)
  @StackTrace(false)
  static final class UnparkEvent extends jdk.jfr.Event {
    @Label("Executor") String executor;
    @Label("M") long m;
  }

  /**
   * {@code dev.gmp.RunnextDemotion}: a chain of runnext tasks shared one time slice for too long,
   * so sysmon's preemption request sent the next one to the global queue.
   */
  @Name("dev.gmp.RunnextDemotion")
  @Label("GMP Runnext Demotion")
  @Category("gmp")
  @Description("A preempted processor's runnext task went to the global queue")
  @Enabled(false)
  @StackTrace(false)
  static final class RunnextDemotionEvent extends jdk.jfr.Event {
    @Label("Executor") String executor;
    @Label("P") int p;
    @Label("Goroutine Id") long goid;
  }
}
