package dev.gmp;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
 * recorderInitialized}), which happens only when someone records or asks for the recorder. When JFR was initialized before gmp's first executor (a recording the
 * application started first), JFR's periodic thread picks the new event up at its next poll,
 * within about a second.
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

  static {
    FlightRecorder.addListener(new FlightRecorderListener() {
      @Override
      public void recorderInitialized(FlightRecorder recorder) {
        for (Class<? extends Event> c : types()) {
          FlightRecorder.register(c);
        }
        FlightRecorder.addPeriodicEvent(Jfr.ExecutorStatsEvent.class, JfrRecorder::emitStats);
      }

      @Override
      public void recordingStateChanged(Recording recording) {
        refresh();
      }
    });
    if (FlightRecorder.isInitialized()) {
      refresh(); // recordings started before the listener (-XX:StartFlightRecording)
    }
  }

  /**
   * Recomputes the gate. While a recording runs, also records every live P's state, so that the
   * per-P lanes of a recording that starts in the middle of things begin with a known state.
   * Synchronized, so that the last write reflects the last state change: the listener runs on
   * whichever thread changed a recording's state, and unserialized, a recording stopping while
   * another starts could compute false and write it after the other's true, leaving the gate off
   * with a recording running (a candidate for JfrEventsTest seeing no Steal event once in CI).
   */
  private static synchronized void refresh() {
    boolean running = FlightRecorder.getFlightRecorder().getRecordings().stream()
        .anyMatch(r -> r.getState() == RecordingState.RUNNING);
    Jfr.on = running;
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
    LIVE.add(s);
    Lifecycle.onTermination(s, new Forget(s));
  }

  /** A class, not a lambda (see Threads.DefaultFactory). */
  private static final class Forget implements Runnable {
    private final Scheduler s;

    Forget(Scheduler s) {
      this.s = s;
    }

    @Override
    public void run() {
      LIVE.remove(s);
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
