package dev.gmp.soak;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The faults the soak injects, each switchable so that a failure can be bisected:
 * {@code -Dgmp.soak.faults=all} (the default), {@code none}, a list ({@code
 * interrupts,slowFactory}), or {@code all,-timers} to drop one. Names are case-insensitive.
 */
public enum Fault {
  /** An outside thread interrupts the executor's worker threads and its sysmon thread. */
  INTERRUPTS("interrupts"),
  /** Factory threads that sleep 0-400 ms before running their Runnable. */
  SLOW_FACTORY("slowFactory"),
  /** Factory threads that never run their Runnable: they sleep 100-1500 ms and exit. */
  DUD_FACTORY("dudFactory"),
  /** A factory that throws, in windows and now and then (a window may open the round). */
  THROWING_FACTORY("throwingFactory"),
  /** A factory that returns null, as THROWING_FACTORY. */
  NULL_FACTORY("nullFactory"),
  /** Tasks that throw Errors: AssertionError, a custom Error, an OutOfMemoryError (not real). */
  ERRORS("errors"),
  /** setParallelism and shutdownNow from other threads racing shutdown()/shutdownNow(). */
  RACES("races"),
  /** schedule (Runnable, Callable), scheduleAtFixedRate, scheduleWithFixedDelay, cancel. */
  TIMERS("timers"),
  /** Virtual threads carried by the executor that park, unpark each other and sleep. */
  VIRTUAL_THREADS("virtualThreads"),
  /**
   * A task decorator (context propagation) on every other round: each task body must run inside
   * its decoration, a task that runs a child in place must get its own context back, and now and
   * then the decorator throws (that submission fails, with nothing queued).
   */
  DECORATOR("decorator");

  /** The name used in {@code -Dgmp.soak.faults}. */
  public final String key;

  Fault(String key) {
    this.key = key;
  }

  /** Parses a fault list: {@code all}, {@code none}, names, {@code -name} removes one. */
  public static Set<Fault> parse(String spec) {
    EnumSet<Fault> set = EnumSet.noneOf(Fault.class);
    if (spec == null || spec.isBlank()) {
      return EnumSet.allOf(Fault.class);
    }
    for (String raw : spec.split(",")) {
      String s = raw.trim();
      if (s.isEmpty()) {
        continue;
      }
      boolean remove = s.startsWith("-");
      String name = (remove ? s.substring(1) : s).toLowerCase(Locale.ROOT);
      EnumSet<Fault> these;
      if (name.equals("all")) {
        these = EnumSet.allOf(Fault.class);
      } else if (name.equals("none")) {
        these = EnumSet.noneOf(Fault.class);
      } else {
        these = EnumSet.of(byKey(name));
      }
      if (remove) {
        set.removeAll(these);
      } else {
        set.addAll(these);
      }
    }
    return set;
  }

  private static Fault byKey(String name) {
    for (Fault f : values()) {
      if (f.key.toLowerCase(Locale.ROOT).equals(name)) {
        return f;
      }
    }
    StringBuilder known = new StringBuilder("all, none");
    for (Fault f : values()) {
      known.append(", ").append(f.key);
    }
    throw new IllegalArgumentException("unknown soak fault '" + name + "'; known: " + known);
  }
}
