package dev.gmp.bench.trace;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * A JFR recording's {@code dev.gmp.*} events of one executor, as Go's "View trace by proc": one
 * lane per P, made of state segments (running, syscall, idle, retaken, dead), plus marks (retake,
 * hand-off, runnext demotion), steals (victim lane to thief lane) and the Ms' park intervals.
 * Times are nanoseconds from the first event of that executor.
 */
final class TraceModel {
  /** A lane state from {@code start} to {@code end} (ns); {@code m} the M holding the P, or -1. */
  record Segment(long start, long end, String state, long m) {}

  /** A point event on lane {@code p}: kind retake, handoff or demotion, with a label. */
  record Mark(long t, int p, String kind, String label) {}

  /** Tasks moved from lane {@code from} to lane {@code to} at {@code t}. */
  record Steal(long t, int from, int to, int tasks) {}

  /** An M's park intervals. */
  record Thread(long m, List<long[]> parks) {}

  final String executor;
  final long span;
  final Map<Integer, List<Segment>> procs;
  final List<Mark> marks;
  final List<Steal> steals;
  final List<Thread> threads;
  final Map<String, Integer> counts;

  private TraceModel(String executor, long span, Map<Integer, List<Segment>> procs,
      List<Mark> marks, List<Steal> steals, List<Thread> threads, Map<String, Integer> counts) {
    this.executor = executor;
    this.span = span;
    this.procs = procs;
    this.marks = marks;
    this.steals = steals;
    this.threads = threads;
    this.counts = counts;
  }

  /**
   * Reads {@code jfr} and builds the model of {@code executor}, or of the executor with the most
   * gmp events when it is null.
   *
   * @throws IllegalArgumentException if the recording holds no dev.gmp.ProcState event (of that
   *     executor): it was made without gmp's events enabled
   */
  static TraceModel read(Path jfr, String executor) throws IOException {
    List<RecordedEvent> all = new ArrayList<>();
    Map<String, Integer> perExecutor = new HashMap<>();
    try (RecordingFile f = new RecordingFile(jfr)) {
      while (f.hasMoreEvents()) {
        RecordedEvent e = f.readEvent();
        if (e.getEventType().getName().startsWith("dev.gmp.") && e.hasField("executor")) {
          all.add(e);
          if (e.getEventType().getName().equals("dev.gmp.ProcState")) {
            perExecutor.merge(e.getString("executor"), 1, Integer::sum);
          }
        }
      }
    }
    String name = executor != null ? executor : perExecutor.entrySet().stream()
        .max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(null);
    if (name == null || !perExecutor.containsKey(name)) {
      throw new IllegalArgumentException(jfr + " has no dev.gmp.ProcState event"
          + (executor == null ? "" : " of executor '" + executor + "'") + ": record with gmp's"
          + " events enabled (README, 'Observing gmp'); executors found: " + perExecutor.keySet());
    }
    List<RecordedEvent> mine = new ArrayList<>();
    for (RecordedEvent e : all) {
      if (name.equals(e.getString("executor"))) {
        mine.add(e);
      }
    }
    mine.sort(Comparator.comparing(RecordedEvent::getStartTime));
    return build(name, mine);
  }

  private static long ns(Instant t, Instant t0) {
    return (t.getEpochSecond() - t0.getEpochSecond()) * 1_000_000_000L
        + (t.getNano() - t0.getNano());
  }

  private static TraceModel build(String name, List<RecordedEvent> events) {
    Instant t0 = events.get(0).getStartTime();
    long end = 0;
    for (RecordedEvent e : events) {
      end = Math.max(end, ns(e.getEndTime(), t0));
    }
    Map<Integer, List<Segment>> procs = new TreeMap<>();
    Map<Integer, Segment> open = new HashMap<>(); // the current (unclosed) segment of each lane
    List<Mark> marks = new ArrayList<>();
    List<Steal> steals = new ArrayList<>();
    Map<Long, List<long[]>> parks = new TreeMap<>();
    Map<String, Integer> counts = new TreeMap<>();
    for (RecordedEvent e : events) {
      String type = e.getEventType().getName().substring("dev.gmp.".length());
      counts.merge(type, 1, Integer::sum);
      long t = ns(e.getStartTime(), t0);
      switch (type) {
        case "ProcState" -> change(procs, open, e.getInt("p"), t, e.getString("state"),
            e.getLong("m"));
        case "Retake" -> {
          int p = e.getInt("p");
          String label = e.getString("kind") + ", held " + millis(e.getDuration("held").toNanos())
              + ", M" + e.getLong("m");
          marks.add(new Mark(t, p, "retake", label));
          change(procs, open, p, t, "retaken", -1);
        }
        case "Handoff" -> marks.add(new Mark(t, e.getInt("p"), "handoff",
            (e.getBoolean("eager") ? "eager" : "after " + millis(e.getDuration("callDuration")
                .toNanos())) + " hand-off of a blocking call"));
        case "RunnextDemotion" -> marks.add(new Mark(t, e.getInt("p"), "demotion",
            "runnext G" + e.getLong("goid") + " demoted to the global queue"));
        case "Steal" -> steals.add(new Steal(t, e.getInt("victim"), e.getInt("thief"),
            e.getInt("tasks")));
        case "Park" -> parks.computeIfAbsent(e.getLong("m"), k -> new ArrayList<>())
            .add(new long[] {t, ns(e.getEndTime(), t0)});
        default -> {} // Unpark, ExecutorStats: counted only
      }
    }
    for (Map.Entry<Integer, Segment> o : open.entrySet()) {
      Segment s = o.getValue();
      procs.get(o.getKey()).add(new Segment(s.start(), Math.max(s.start(), end), s.state(),
          s.m()));
    }
    List<Thread> threads = new ArrayList<>();
    parks.forEach((m, list) -> threads.add(new Thread(m, list)));
    return new TraceModel(name, end, procs, marks, steals, threads, counts);
  }

  private static void change(Map<Integer, List<Segment>> procs, Map<Integer, Segment> open,
      int p, long t, String state, long m) {
    List<Segment> lane = procs.computeIfAbsent(p, k -> new ArrayList<>());
    Segment cur = open.get(p);
    if (cur != null) {
      if (cur.state().equals(state) && cur.m() == m) {
        return; // the same state again (a recording's snapshot, a P reacquired by its M)
      }
      lane.add(new Segment(cur.start(), t, cur.state(), cur.m()));
    }
    open.put(p, new Segment(t, -1, state, m));
  }

  static String millis(long nanos) {
    return String.format(java.util.Locale.ROOT, "%.3f ms", nanos / 1e6);
  }
}
