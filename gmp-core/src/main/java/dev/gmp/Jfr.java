package dev.gmp;

/**
 * gmp's JFR events (module jdk.jfr, no dependency): the gate the hot paths test and one emit
 * method per event type; {@link JfrRecorder} keeps the gate and the periodic {@code
 * dev.gmp.ExecutorStats}. Every event is disabled by default ({@code @Enabled(false)}): a
 * recording turns on those it wants (README, "Observing gmp").
 *
 * <p>Cost. Each emitting site is written {@code if (Jfr.on) Jfr.x(...)}: with no recording
 * running, one read of a static volatile boolean (a plain load on x86 and ARM), and no event
 * class is loaded. With a recording running, the emit method creates the event and checks
 * {@code shouldCommit()} before filling it (the JIT removes the allocation of an event that is
 * not committed); no event records a stack trace.
 *
 * <p>This class touches jdk.jfr only inside the emitters, which run only once {@link #on} was
 * set by JfrRecorder's listener: on a runtime without the jdk.jfr module gmp runs, unrecorded.
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
    StealEvent e = new StealEvent();
    if (e.shouldCommit()) {
      e.executor = s.config.name();
      e.thief = thief;
      e.victim = victim;
      e.tasks = tasks;
      e.commit();
    }
  }

  static void handoff(Scheduler s, int p, boolean eager, long callNanos) {
    HandoffEvent e = new HandoffEvent();
    if (e.shouldCommit()) {
      e.executor = s.config.name();
      e.p = p;
      e.eager = eager;
      e.callDuration = callNanos;
      e.commit();
    }
  }

  static void retake(Scheduler s, int p, String kind, long m, long heldNanos) {
    RetakeEvent e = new RetakeEvent();
    if (e.shouldCommit()) {
      e.executor = s.config.name();
      e.p = p;
      e.kind = kind;
      e.m = m;
      e.held = heldNanos;
      e.commit();
    }
  }

  static void procState(Scheduler s, int p, int state, M m) {
    ProcStateEvent e = new ProcStateEvent();
    if (e.shouldCommit()) {
      e.executor = s.config.name();
      e.p = p;
      e.state = Dump.pStatus(state);
      e.m = m == null ? -1 : m.id;
      e.commit();
    }
  }

  static void unpark(Scheduler s, M m) {
    UnparkEvent e = new UnparkEvent();
    if (e.shouldCommit()) {
      e.executor = s.config.name();
      e.m = m.id;
      e.commit();
    }
  }

  static void runnextDemotion(Scheduler s, int p, long goid) {
    RunnextDemotionEvent e = new RunnextDemotionEvent();
    if (e.shouldCommit()) {
      e.executor = s.config.name();
      e.p = p;
      e.goid = goid;
      e.commit();
    }
  }

  /** A park about to begin: the event to end after the wake-up, or null if not recorded. */
  static ParkEvent parkBegin(Scheduler s, M m) {
    ParkEvent e = new ParkEvent();
    if (!e.isEnabled()) {
      return null;
    }
    e.executor = s.config.name();
    e.m = m.id;
    e.begin();
    return e;
  }

  static void parkEnd(ParkEvent e) {
    e.end();
    if (e.shouldCommit()) {
      e.commit();
    }
  }
}
