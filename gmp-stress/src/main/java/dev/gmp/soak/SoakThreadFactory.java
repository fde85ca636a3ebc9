package dev.gmp.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One round's ThreadFactory, with its faults drawn per thread from the round's seed: good
 * threads; slow ones (sleep 0-400 ms inside the thread before running the Runnable, as an
 * application server's factory might); duds (never run the Runnable: sleep 100-1500 ms, exit);
 * and answers that throw {@link FactoryFault} or return null, in time windows (one may open the
 * round, so that the executor has no thread at all) and now and then outside them; dud windows,
 * in which every thread made is a dud (one may open the round).
 *
 * <p>Its own bookkeeping, independent of the executor's: threads made of each kind, threads
 * alive (counted from the first instruction of the thread to its last) and the peak, duds alive
 * and their peak, the threads
 * inside the executor's Runnable now (the interrupt targets), calls after the executor
 * terminated.
 */
final class SoakThreadFactory implements ThreadFactory {
  /** What the factory throws. */
  static final class FactoryFault extends RuntimeException {
    FactoryFault(String message) {
      super(message);
    }
  }

  private final SplittableRandom rnd; // guarded by this
  private final int pctSlow;
  private final int pctDud;
  private final int pctFail; // outside the windows
  private final boolean canThrow;
  private final boolean canNull;
  private final long t0 = System.nanoTime();
  private final long[] windows; // [from, to) pairs, nanos after t0: every answer fails
  private final long[] dudWindows; // [from, to) pairs: every thread made is a dud
  /**
   * The round opens with every answer failing, until the soak ends it ({@link #endStart}): the
   * executor can have no thread at all.
   */
  volatile boolean failsAtStart;

  /**
   * The round opens with only slow threads, each 300-400 ms late, until the soak ends it ({@link
   * #endSlowStart}): the executor's first task can run only on a late thread.
   */
  volatile boolean slowStart;

  /** Threads meant to run the Runnable (good and slow), and duds. */
  final ConcurrentLinkedQueue<Thread> workers = new ConcurrentLinkedQueue<>();

  final ConcurrentLinkedQueue<Thread> duds = new ConcurrentLinkedQueue<>();

  /** Threads inside the executor's Runnable right now. */
  final Set<Thread> running = ConcurrentHashMap.newKeySet();

  final AtomicInteger calls = new AtomicInteger();
  final AtomicInteger slow = new AtomicInteger();
  final AtomicInteger threw = new AtomicInteger();
  final AtomicInteger nulls = new AtomicInteger();
  final AtomicInteger alive = new AtomicInteger();
  final AtomicInteger peakAlive = new AtomicInteger();
  final AtomicInteger dudsAlive = new AtomicInteger();
  final AtomicInteger peakDudsAlive = new AtomicInteger();
  final AtomicInteger callsAfterTermination = new AtomicInteger();
  volatile boolean terminated;

  /**
   * How a round opens. The soak cycles through the ones its faults allow (round number modulo
   * their count), so that every short run, the smoke included, meets each of them early.
   */
  enum Start {
    /** Nothing special. */
    NORMAL,
    /** Every answer fails (throws or null) until the soak's lone first task was answered. */
    FAILING,
    /** Every thread is a dud for 500-1000 ms. */
    DUDS,
    /** Every thread is 300-400 ms late until the soak's lone first task ran. */
    SLOW;

    /** The openings {@code faults} allow. */
    static List<Start> allowed(Set<Fault> faults) {
      List<Start> l = new ArrayList<>();
      if (faults.contains(Fault.THROWING_FACTORY) || faults.contains(Fault.NULL_FACTORY)) {
        l.add(FAILING);
      }
      if (faults.contains(Fault.DUD_FACTORY)) {
        l.add(DUDS);
      }
      if (faults.contains(Fault.SLOW_FACTORY)) {
        l.add(SLOW);
      }
      l.add(NORMAL);
      return l;
    }
  }

  SoakThreadFactory(SplittableRandom rnd, Set<Fault> faults, long roundMillis, Start start) {
    this.rnd = rnd;
    this.pctSlow = faults.contains(Fault.SLOW_FACTORY) ? pick(rnd, 0, 5, 20, 40) : 0;
    this.pctDud = faults.contains(Fault.DUD_FACTORY) ? pick(rnd, 0, 5, 15, 30) : 0;
    this.canThrow = faults.contains(Fault.THROWING_FACTORY);
    this.canNull = faults.contains(Fault.NULL_FACTORY);
    boolean fails = canThrow || canNull;
    this.pctFail = fails ? pick(rnd, 0, 2, 10) : 0;
    List<Long> w = new ArrayList<>();
    List<Long> dw = new ArrayList<>();
    boolean duds = faults.contains(Fault.DUD_FACTORY);
    if (start == Start.DUDS) {
      dw.add(0L); // from the start: only duds, so no thread runs anything for a while
      dw.add(ms(500 + rnd.nextInt(500)));
    }
    this.failsAtStart = start == Start.FAILING;
    this.slowStart = start == Start.SLOW;
    int more = fails ? rnd.nextInt(3) : 0;
    for (int i = 0; i < more; i++) {
      long from = ms(rnd.nextLong(Math.max(1, roundMillis)));
      w.add(from);
      w.add(from + ms(5 + rnd.nextInt(95)));
    }
    if (duds && rnd.nextInt(3) == 0) {
      long from = ms(rnd.nextLong(Math.max(1, roundMillis)));
      dw.add(from);
      dw.add(from + ms(200 + rnd.nextInt(800)));
    }
    this.windows = w.stream().mapToLong(Long::longValue).toArray();
    this.dudWindows = dw.stream().mapToLong(Long::longValue).toArray();
  }

  /** Ends a failing or slow opening: the factory behaves as the round's settings say. */
  void endStart() {
    failsAtStart = false;
    slowStart = false;
  }

  private static boolean in(long[] windows, long t) {
    boolean in = false;
    for (int i = 0; i < windows.length; i += 2) {
      in |= t >= windows[i] && t < windows[i + 1];
    }
    return in;
  }

  private static int pick(SplittableRandom r, int... choices) {
    return choices[r.nextInt(choices.length)];
  }

  private static long ms(long millis) {
    return millis * 1_000_000;
  }

  /** One line for verbose output: the round's fault settings. */
  String settings() {
    return "slow=" + pctSlow + "% dud=" + pctDud + "% fail=" + pctFail + "% windows="
        + windows.length / 2 + " dudWindows=" + dudWindows.length / 2;
  }

  @Override
  public Thread newThread(Runnable r) {
    calls.incrementAndGet();
    if (terminated) {
      callsAfterTermination.incrementAndGet();
    }
    long now = System.nanoTime() - t0;
    boolean fail;
    boolean throwIt;
    int kind; // 0 good, 1 slow, 2 dud
    long delayMs;
    synchronized (this) {
      boolean slowOnly = slowStart;
      fail = failsAtStart || !slowOnly && (canThrow || canNull)
          && (in(windows, now) || rnd.nextInt(100) < pctFail);
      throwIt = canThrow && (!canNull || rnd.nextBoolean());
      int roll = rnd.nextInt(100);
      kind = slowOnly ? 1 : in(dudWindows, now) || roll < pctDud ? 2
          : roll < pctDud + pctSlow ? 1 : 0;
      delayMs = kind == 2 ? 100 + rnd.nextInt(1401)
          : slowOnly ? 300 + rnd.nextInt(101) : kind == 1 ? rnd.nextInt(401) : 0;
    }
    if (fail && throwIt) {
      threw.incrementAndGet();
      throw new FactoryFault("soak: deliberate ThreadFactory failure");
    }
    if (fail) {
      nulls.incrementAndGet();
      return null;
    }
    Thread t;
    if (kind == 2) {
      t = new Thread(() -> dud(delayMs), "soak-dud");
      duds.add(t);
    } else {
      if (kind == 1) {
        slow.incrementAndGet();
      }
      t = new Thread(() -> worker(r, delayMs), kind == 1 ? "soak-m-slow" : "soak-m");
      workers.add(t);
    }
    t.setDaemon(true);
    return t;
  }

  private void enter() {
    int n = alive.incrementAndGet();
    peakAlive.accumulateAndGet(n, Math::max);
  }

  private void worker(Runnable r, long delayMs) {
    enter();
    try {
      if (delayMs > 0) {
        try {
          Thread.sleep(delayMs);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt(); // passed on, as a real prologue would
        }
      }
      running.add(Thread.currentThread());
      try {
        r.run();
      } finally {
        running.remove(Thread.currentThread());
      }
    } finally {
      alive.decrementAndGet();
    }
  }

  private void dud(long delayMs) {
    enter();
    int n = dudsAlive.incrementAndGet();
    peakDudsAlive.accumulateAndGet(n, Math::max);
    try {
      Thread.sleep(delayMs);
    } catch (InterruptedException e) {
      // a dud ends early when interrupted; it never runs the Runnable either way
    } finally {
      dudsAlive.decrementAndGet(); // before the thread is dead, so before the executor sees it
      alive.decrementAndGet();
    }
  }

  int made() {
    return workers.size() + duds.size();
  }
}
