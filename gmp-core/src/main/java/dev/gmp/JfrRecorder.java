package dev.gmp;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;

/**
 * The JFR side that needs jdk.jfr at class-load time: the listener that keeps {@link Jfr#on}
 * (true while any recording runs) and the hook of the periodic {@code dev.gmp.ExecutorStats},
 * which reports every live executor.
 *
 * <p>Registering the listener costs a few milliseconds, once per JVM, at the first executor.
 * Registering the event types and the periodic event costs much more while JFR is not up (it
 * builds its metadata: docs/design.md, section 10.4), so it waits until JFR is initialized ({@code
 * recorderInitialized}), which happens only when someone records or asks for the recorder. When
 * JFR was initialized before gmp's first executor (a recording the application started first),
 * JFR's periodic thread picks the new event up at its next poll, within about a second. All of
 * it is taken back when the last executor terminates, so that nothing in JFR's static lists pins
 * this class's loader.
 */
final class JfrRecorder {
  private JfrRecorder() {}

  /**
   * Every gmp event type, registered once JFR is up, so that a tool listing types ({@code
   * FlightRecorder.getFlightRecorder().getEventTypes()}, JMC's template editor) shows them
   * before their first use. Not at the first executor: registering is what brings JFR's
   * metadata up, several times what the first build costs without it; once it is up,
   * a listener sees it first (getFlightRecorder() calls recorderInitialized before it returns).
   * A method, not a constant: the class literals load the eight event classes, which a JVM
   * that never records has no use for (about 3 ms of the first build).
   */
  static List<Class<? extends Event>> types() {
    return List.of(
        Jfr.ExecutorStatsEvent.class, Jfr.StealEvent.class, Jfr.HandoffEvent.class,
        Jfr.RetakeEvent.class, Jfr.ProcStateEvent.class, Jfr.ParkEvent.class,
        Jfr.UnparkEvent.class, Jfr.RunnextDemotionEvent.class);
  }

  /** Executors the periodic event reports on: added at construction, removed at termination. */
  private static final Set<Scheduler> LIVE = ConcurrentHashMap.newKeySet();

  /**
   * Orders installing and removing the listener (register, Forget), which call into JFR with it
   * held. The listener's callbacks, which JFR may make holding its own locks, never take it:
   * that order would deadlock against a register waiting in addListener.
   */
  private static final Object INSTALL = new Object();

  /**
   * The listener, installed while any executor lives (guarded by INSTALL). JFR keeps its
   * listeners, periodic hooks and registered event classes in static lists, so one left behind
   * pins this class's loader: an application server that redeploys an application with gmp
   * leaked the loader (and its Metaspace) at every redeploy.
   */
  private static volatile Listener listener; // volatile: read by the callbacks, without INSTALL

  /** Whether the event types and the periodic hook are registered (CAS: callback vs callback). */
  private static final AtomicBoolean HOOKED = new AtomicBoolean();

  private static final Runnable PERIODIC = new Periodic();

  /** A class, not a lambda (see Threads.DefaultFactory). */
  private static final class Listener implements FlightRecorderListener {
    @Override
    public void recorderInitialized(FlightRecorder recorder) {
      // On the installing thread, or on JFR's when it comes up later. A removal racing this one
      // can miss what it registers (JFR coming up just as the last executor terminates).
      if (listener != this || !HOOKED.compareAndSet(false, true)) {
        return;
      }
      for (Class<? extends Event> c : types()) {
        FlightRecorder.register(c);
      }
      FlightRecorder.addPeriodicEvent(Jfr.ExecutorStatsEvent.class, PERIODIC);
    }

    @Override
    public void recordingStateChanged(Recording recording) {
      refresh();
    }
  }

  /** A class, not a lambda (see Threads.DefaultFactory). */
  private static final class Periodic implements Runnable {
    @Override
    public void run() {
      emitStats();
    }
  }

  /** Ticket of the latest refresh, and the ticket whose result the gate holds (GATE's). */
  private static final AtomicLong TICKETS = new AtomicLong();

  private static final Object GATE = new Object();

  private static long applied;

  /**
   * Recomputes the gate. While a recording runs, also records every live P's state, so that the
   * per-P lanes of a recording that starts in the middle of things begin with a known state.
   * The listener runs on whichever thread changed a recording's state, so refreshes can overlap:
   * the one with the latest ticket wins, and it read the recordings after the latest change (a
   * recording stopping while another starts once left the gate off with a recording running:
   * JfrEventsTest). No lock is held while JFR is asked, so JFR's locks and gmp's never nest.
   */
  private static void refresh() {
    long ticket = TICKETS.incrementAndGet();
    boolean running = FlightRecorder.getFlightRecorder().getRecordings().stream()
        .anyMatch(r -> r.getState() == RecordingState.RUNNING);
    synchronized (GATE) {
      if (ticket > applied) {
        applied = ticket;
        Jfr.on = running;
      }
    }
    if (running) {
      for (Scheduler s : LIVE) {
        for (P pp : s.procs.all) {
          int st = pp.status(); // status before m, as Dump reads them
          Jfr.procState(s, pp.id, st, pp.m());
        }
      }
    }
  }

  static void register(Scheduler s) {
    synchronized (INSTALL) {
      if (LIVE.isEmpty() && listener == null) {
        listener = new Listener();
        FlightRecorder.addListener(listener); // calls recorderInitialized now if JFR is up
        if (FlightRecorder.isInitialized()) {
          refresh(); // recordings started before the listener (-XX:StartFlightRecording)
        }
      }
      LIVE.add(s);
    }
    Lifecycle.onTermination(s, new Forget(s));
  }

  /** The last executor's termination takes everything gmp gave JFR back. INSTALL held. */
  private static void uninstallLocked() {
    FlightRecorder.removeListener(listener);
    listener = null;
    if (HOOKED.compareAndSet(true, false)) {
      FlightRecorder.removePeriodicEvent(PERIODIC);
      for (Class<? extends Event> c : types()) {
        FlightRecorder.unregister(c);
      }
    }
    Jfr.on = false; // no executor to record; the next one's register refreshes the gate
  }

  /** A class, not a lambda (see Threads.DefaultFactory). */
  private static final class Forget implements Runnable {
    private final Scheduler s;

    Forget(Scheduler s) {
      this.s = s;
    }

    @Override
    public void run() {
      synchronized (INSTALL) {
        if (LIVE.remove(s) && LIVE.isEmpty() && listener != null) {
          uninstallLocked();
        }
      }
    }
  }

  private static void emitStats() {
    for (Scheduler s : LIVE) {
      Jfr.ExecutorStatsEvent e = new Jfr.ExecutorStatsEvent();
      if (!e.shouldCommit()) {
        return;
      }
      s.recordLatency(); // a recording that reports latency starts it: its first period has none
      GmpStats st = Counters.snapshot(s);
      e.executor = s.config.name();
      e.parallelism = st.parallelism();
      e.threads = st.threads();
      e.idleThreads = st.idleThreads();
      e.spinningThreads = st.spinningThreads();
      e.idleProcessors = st.idleProcessors();
      e.globalQueueLength = st.globalQueueLength();
      e.localQueueLength = st.localQueueLength();
      e.runningTasks = st.runningTasks();
      e.syscallTasks = st.syscallTasks();
      e.waitingTasks = st.waitingTasks();
      e.steals = st.steals();
      e.handoffs = st.handoffs();
      e.retakes = st.retakes();
      e.completed = st.completedTasks();
      e.spareThreads = st.spareThreads();
      e.oversubscribed = s.sysmon.oversubscription.on();
      SchedulingLatency l = s.counters.latency.sinceLastPeriod();
      e.latencySamples = l.samples();
      e.latencyP50 = l.p50Nanos();
      e.latencyP99 = l.p99Nanos();
      e.latencyP999 = l.p999Nanos();
      e.latencyMax = l.maxNanos();
      e.commit();
    }
  }
}
