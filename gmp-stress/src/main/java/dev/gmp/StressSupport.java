package dev.gmp;

import java.util.concurrent.ThreadFactory;

/**
 * Shared helpers of the jcstress tests: Gs with ids, draining queues into per-id counts, and a
 * scheduler whose sysmon never starts and whose Ms are never really started, so that actors can
 * drive the production code paths (submitLocal, wakep, findRunnable's drop-P step, retake,
 * exitsyscall) without threads of their own.
 */
final class StressSupport {
  private StressSupport() {}

  /**
   * The M a waiter's run in place ({@code HelpingFuture#runInPlace}) names: it is touched only
   * when the run's end overflows the stack, never in these tests; one for all of them.
   */
  static final M WAITER = new M(sched(1), 1);

  /** A runnable G whose goid is {@code id}. */
  static G g(int id) {
    G g = new G();
    g.goid = id;
    g.task = () -> {};
    g.setStatus(G.Grunnable);
    return g;
  }

  static void count(int[] counts, G g) {
    if (g != null) {
      counts[(int) g.goid]++;
    }
  }

  /** Takes everything left in q (ring, then runnext), as its owner would. */
  static void drain(RunQueue q, int[] counts) {
    int bound = 4096;
    for (G g = q.pollRing(); g != null && bound-- > 0; g = q.pollRing()) {
      count(counts, g);
    }
    count(counts, q.takeOwnRunnext());
  }

  /** Empties the global queue (caller owns it: the arbiter). */
  static void drain(GlobalQueue gq, int[] counts) {
    gq.lock.lock();
    try {
      int bound = 4096; // a list corrupted by a mutation must not hang the arbiter
      for (G g = gq.get(); g != null && bound-- > 0; g = gq.get()) {
        count(counts, g);
      }
    } finally {
      gq.lock.unlock();
    }
  }

  /** Bits of the ids taken by one party (ids 1..30). */
  static int mask(int[] counts) {
    int m = 0;
    for (int i = 0; i < counts.length && i < 31; i++) {
      if (counts[i] > 0) {
        m |= 1 << i;
      }
    }
    return m;
  }

  /**
   * "ok", or what went wrong with ids 1..n: "LOST" / "DUP" / "LOST+DUP". Index 0 counts null Gs
   * (a slot read that was never written), always wrong.
   */
  static String verdict(int n, int[]... parts) {
    boolean lost = false;
    boolean dup = false;
    for (int id = 0; id <= n; id++) {
      int c = 0;
      for (int[] p : parts) {
        c += p[id];
      }
      if (id == 0) {
        dup |= c > 0;
      } else if (c == 0) {
        lost = true;
      } else if (c > 1) {
        dup = true;
      }
    }
    return lost && dup ? "LOST+DUP" : lost ? "LOST" : dup ? "DUP" : "ok";
  }

  /** Thread that records start() instead of running its M: startm "wakes" it and nothing runs. */
  static final class UnstartedThread extends Thread {
    volatile boolean started;

    UnstartedThread(Runnable r) {
      super(r, "gmp-stress-fake-m");
      setDaemon(true);
    }

    @Override
    public void start() {
      started = true;
    }
  }

  static final ThreadFactory UNSTARTED = UnstartedThread::new;

  /**
   * A scheduler with {@code nprocs} idle Ps, no sysmon thread, and Ms that startm creates but
   * never runs (their P stays in {@code nextp}, which the tests read as "handed to an M").
   */
  static Scheduler sched(int nprocs) {
    Config c =
        new Config(nprocs, 64, 8, 10_000_000L, 60_000_000_000L, "stress", UNSTARTED, null, null);
    return new Scheduler(c, false);
  }

  /** An M of s, counted, holding an idle P of s (taken off the idle list), optionally spinning. */
  static M mWithP(Scheduler s, long id, boolean spinning) {
    M m = new M(s, id);
    P pp;
    s.lock.lock();
    try {
      pp = s.idle.pidleget();
      // Counted, as Threads#newM counts a real M: with no M counted, an outside submit takes the
      // no-M path (Scheduler#startFirstOrReject) and never reaches the race under test.
      s.threads.mcount++;
    } finally {
      s.lock.unlock();
    }
    if (!s.acquirep(m, pp)) {
      throw new IllegalStateException("acquirep failed");
    }
    if (spinning) {
      s.idle.becomeSpinning(m);
    }
    return m;
  }

  /**
   * The outcome of a race between an M dropping its P (m1) and a submitter, for the wake-up
   * tests: the task lost, m1 kept a P and spins, wakep started an M for the idle P, or NOBODY
   * (a P idle, the task queued, nobody spinning or started: the lost wake-up).
   */
  static String wakeVerdict(Scheduler s, M m1, boolean queued) {
    boolean spins = m1.p != null && m1.spinning;
    int started = s.threads.ms().length;
    String state = wakeState(s);
    if (!queued) {
      return "LOST task " + state;
    } else if (spins && started == 0) {
      return "M1 spins " + state;
    } else if (m1.p == null && started == 1 && s.idle.npidle == 0) {
      return "wakep started an M " + state;
    } else if (m1.p == null && started == 0) {
      return "NOBODY " + state;
    }
    return "odd m1p=" + (m1.p != null) + " spinning=" + m1.spinning + " started=" + started
        + " " + state;
  }

  /**
   * The outcome of a race between the only spinner dropping its P and rechecking (m1) and a
   * submitter, for the StoreLoad tests: the task lost (or taken by m1's own drop step), m1's
   * recheck took a P back, wakep started an M, or NOBODY (the lost wake-up).
   */
  static String recheckVerdict(Scheduler s, M m1, boolean queued, boolean m1TookIt) {
    boolean back = m1.p != null;
    int started = s.threads.ms().length;
    String state = wakeState(s);
    if (!queued) {
      return (m1TookIt ? "M1 took it " : "LOST task ") + state;
    } else if (back && started == 0) {
      return "recheck took a P back " + state;
    } else if (!back && started == 1 && s.idle.npidle == 0) {
      return "wakep started an M " + state;
    } else if (!back && started == 0) {
      return "NOBODY " + state;
    }
    return "odd back=" + back + " started=" + started + " " + state;
  }

  static String wakeState(Scheduler s) {
    return "npidle=" + s.idle.npidle + " nmspinning=" + s.idle.nmspinning() + " needspinning="
        + s.idle.needspinning;
  }

  /** How many Ms startm created and handed {@code pp} to (through nextp). */
  static int handedTo(Scheduler s, P pp) {
    int n = 0;
    for (M m : s.threads.ms()) {
      if (m.nextp == pp) {
        n++;
      }
    }
    return n;
  }

  /**
   * Injects {@code n} times and takes them all again, so that the next injection lands where the
   * caller wants it (n = capacity - 1: it claims the injection ring's last slot). One G object
   * serves all of them: only the ring's indices matter here.
   */
  static void fillAndConsume(GlobalQueue gq, int n) {
    G filler = g(1);
    for (int i = 0; i < n; i++) {
      if (!gq.inject(filler)) {
        throw new IllegalStateException("injection ring full at " + i);
      }
    }
    gq.lock.lock();
    try {
      for (int i = 0; i < n; i++) {
        gq.get();
      }
    } finally {
      gq.lock.unlock();
    }
  }
}
