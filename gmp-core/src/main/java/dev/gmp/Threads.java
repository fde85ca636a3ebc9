package dev.gmp;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * The Ms' life cycle (Go's allm, newm, mexit): creating a thread for an M,
 * its check-in, writing off an M whose thread never checked in, and the M's exit.
 *
 * <p>Check-in: newm marks the M STARTING and starts its thread; the thread's first act, M.run,
 * CASes STARTING to RUNNING. A ThreadFactory may hand back a thread that ignores its Runnable,
 * dies in its own prologue, or is never really started; such an M would keep the P handed to it
 * in nextp (and its share of mcount and nmspinning) for ever, and every later wakep would see a
 * spinner that does not exist. sysmon's watchdog ({@link #checkStarting}) therefore writes off an
 * M whose thread is dead before checking in, or has not checked in {@link #CHECK_IN_NANOS} after
 * its start: the CAS STARTING to DEAD wins against a late check-in or loses to it, never both.
 *
 * <p>Thread creation does not depend on which thread triggers it (a submitter, a worker, sysmon):
 * the default factory and sysmon's thread ({@link #newDaemon}) do not inherit inheritable
 * thread-locals, and carry the context class loader captured when the executor was built, not
 * the caller's (an application server's redeploy must not be pinned by a worker that happened to
 * be created from a request thread). A user's ThreadFactory is called as it is.
 */
final class Threads {
  /** How long a started thread has to reach M.run before its M is written off. */
  static final long CHECK_IN_NANOS = 250_000_000;

  private static final AtomicInteger POOL_IDS = new AtomicInteger();
  private static final AtomicIntegerFieldUpdater<Threads> U_NMSPARE =
      AtomicIntegerFieldUpdater.newUpdater(Threads.class, "nmspare");

  private final Scheduler s;

  // Guarded by the scheduler lock; volatile where stats or sysmon read them without it.
  volatile int mcount;
  private long mnext = 1;
  volatile M[] allm = new M[0];

  /**
   * Ms counted against the spare budget (M#spare): running a task without a live P, or in a
   * blocking call they counted themselves for. Changed by CAS or atomic add only: blocking calls
   * count and uncount themselves without the lock (Syscall), lock holders count the Ms they take
   * a P from.
   */
  volatile int nmspare;

  /**
   * Reserves a place in the spare budget: false when maxSpareThreads are counted already. A CAS
   * loop, not a check under the lock: a blocking call counts itself without it.
   */
  boolean tryAddSpare() {
    int max = s.config.maxSpareThreads();
    for (int n = nmspare; n < max; n = nmspare) {
      if (U_NMSPARE.compareAndSet(this, n, n + 1)) {
        return true;
      }
    }
    return false;
  }

  /** Gives a place back (an M stops being a spare, or a reservation was not used). */
  void removeSpare() {
    U_NMSPARE.getAndAdd(this, -1); // atomic: counts and uncounts race without the lock
  }

  /** Ms ever allocated, and the most alive at once (stats). */
  volatile long created;

  volatile int peak;

  /** Ms whose thread was started and has not checked in yet (the watchdog's list). */
  private final List<M> starting = new ArrayList<>();

  private volatile int nstarting;

  /** Counters of Ms that exited, folded in under the lock. */
  volatile long retiredCompleted;

  volatile long retiredSteals;

  volatile Throwable lastStartFailure;

  /** Threads of Ms that passed mexit and may still be unwinding (awaitTermination joins them). */
  private final List<Thread> exited = new ArrayList<>();

  Threads(Scheduler s) {
    this.s = s;
  }

  // ---------------------------------------------------------------- creation

  /**
   * The most Ms at once: parallelism + maxSpareThreads (the one spare budget), within maxThreads.
   * Lock held.
   */
  int capLocked() {
    return (int) Math.min(s.config.maxThreads(), (long) s.gomaxprocs + s.config.maxSpareThreads());
  }

  /** A new M counted in mcount and allm, or null past the cap or once terminating. Lock held. */
  M allocmLocked() {
    if (mcount >= capLocked() || s.runState >= Scheduler.TIDYING) {
      return null;
    }
    M m = new M(s, mnext++);
    mcount++;
    created++;
    if (mcount > peak) {
      peak = mcount;
    }
    M[] ms = Arrays.copyOf(allm, allm.length + 1);
    ms[ms.length - 1] = m;
    allm = ms;
    return m;
  }

  private void freemLocked(M m) {
    mcount--;
    M[] ms = allm;
    int i = Arrays.asList(ms).indexOf(m);
    if (i >= 0) {
      M[] next = new M[ms.length - 1];
      System.arraycopy(ms, 0, next, 0, i);
      System.arraycopy(ms, i + 1, next, i, ms.length - i - 1);
      allm = next;
    }
  }

  /** Counts a thread that could not be had. Lock held. */
  void startFailedLocked(Throwable e) {
    s.counters.threadStartFailures.increment();
    if (e != null) {
      lastStartFailure = e;
    }
  }

  /**
   * newm: a thread from the ThreadFactory for {@code m} (which holds its P in nextp), started.
   * A factory that throws or returns null, or a start() that throws, writes the M off at once;
   * one that never runs its Runnable is written off by the watchdog.
   */
  void newm(M m) {
    Thread t;
    try {
      t = s.config.threadFactory().newThread(m);
      if (t == null) {
        throw new IllegalStateException("ThreadFactory returned null");
      }
    } catch (Throwable e) {
      writeOff(m, M.NEW, e);
      return;
    }
    m.thread = t;
    s.lock.lock();
    try {
      m.startedAt = System.nanoTime();
      m.setLife(M.STARTING);
      starting.add(m);
      nstarting = starting.size();
    } finally {
      s.lock.unlock();
    }
    s.sysmon.watch(); // the watchdog runs on sysmon: make sure it is started and awake
    try {
      t.start();
    } catch (Throwable e) {
      writeOff(m, M.STARTING, e);
    }
  }

  /**
   * Writes off an M whose thread will never run it: its P goes back (with its work) to another M
   * or the idle list, and mcount, nmspinning and the failure count are set right. False if the M
   * checked in meanwhile (then it is a normal, running M).
   */
  private boolean writeOff(M m, int from, Throwable cause) {
    boolean spinning;
    s.lock.lock();
    try {
      if (!m.casLife(from, M.DEAD)) {
        return false;
      }
      if (starting.remove(m)) {
        nstarting = starting.size();
      }
      freemLocked(m);
      startFailedLocked(cause);
      spinning = m.spinning;
      m.spinning = false;
      P pp = m.nextp;
      m.nextp = null;
      if (pp != null) {
        s.idle.returnPLocked(pp);
      }
      Lifecycle.tryTerminateLocked(s);
    } finally {
      s.lock.unlock();
    }
    Lifecycle.finishTermination(s);
    if (spinning) {
      s.idle.unclaimSpinning();
    }
    // No wakep from here: a factory that always fails would recurse through startm. sysmon
    // retries (Sysmon#wakeForQueuedWork) at its own, backing-off cadence, not in a tight loop.
    s.sysmon.ensureStarted();
    return true;
  }

  /**
   * sysmon's watchdog round: writes off every starting M whose thread died before checking in
   * or is late past {@link #CHECK_IN_NANOS}. Returns how many; cheap while nothing is starting.
   */
  int checkStarting(long now) {
    if (nstarting == 0) {
      return 0;
    }
    List<M> late = new ArrayList<>();
    s.lock.lock();
    try {
      for (int i = starting.size() - 1; i >= 0; i--) {
        M m = starting.get(i);
        if (m.life() != M.STARTING) {
          starting.remove(i); // checked in
        } else if (m.thread.getState() == Thread.State.TERMINATED
            || now - m.startedAt > CHECK_IN_NANOS) {
          late.add(m);
        }
      }
      nstarting = starting.size();
    } finally {
      s.lock.unlock();
    }
    int n = 0;
    for (M m : late) {
      if (writeOff(m, M.STARTING, new IllegalStateException(
          "thread " + m.thread.getName() + " from the ThreadFactory never ran its Runnable"))) {
        n++;
      }
    }
    return n;
  }

  /** A copy of the threads that exited and may not have died yet. */
  List<Thread> exitedThreads() {
    s.lock.lock();
    try {
      return new ArrayList<>(exited);
    } finally {
      s.lock.unlock();
    }
  }

  boolean anyStarting() {
    return nstarting != 0;
  }

  // ---------------------------------------------------------------- exit

  /**
   * mexit: every checked-in M's thread calls it on its way out. Whatever the M still holds goes
   * back: its P (normally none: only if the scheduler itself failed) and a P handed to it through
   * nextp with their work, its spinning claim and its spare slot.
   */
  void mexit(M m) {
    boolean spinning;
    s.lock.lock();
    try {
      if (m.onIdleList) {
        s.idle.mremove(m);
      }
      if (m.p != null) {
        P pp = s.releasep(m);
        if (pp.casStatus(P.Prunning, P.Pidle) || pp.casStatus(P.Psyscall, P.Pidle)) {
          s.idle.returnPLocked(pp);
        } else {
          s.retake.zombieDoneLocked(pp);
        }
      }
      P next = m.nextp;
      m.nextp = null;
      if (next != null) {
        s.idle.returnPLocked(next);
      }
      s.retake.removeSelfAsSpare(m); // mexit runs on m's own thread
      spinning = m.spinning;
      m.spinning = false;
      m.setLife(M.DEAD);
      freemLocked(m);
      if (exited.size() >= 64) {
        exited.removeIf(t -> !t.isAlive()); // keep the list as long as the threads still dying
      }
      exited.add(m.runner);
      retiredCompleted += m.completed();
      retiredSteals += m.steals();
      Lifecycle.tryTidyLocked(s);
      Lifecycle.tryTerminateLocked(s);
    } finally {
      s.lock.unlock();
    }
    ThreadTable.unregister(m);
    Lifecycle.finishTermination(s); // after unregister: no thread table entry outlives it
    if (spinning) {
      s.idle.dropSpinning(m);
      if (s.idle.workVisible()) {
        s.idle.wakep();
      }
    }
  }

  // ---------------------------------------------------------------- the default thread path

  /** The default ThreadFactory: daemon threads named {@code prefix-mN}, see {@link #newDaemon}. */
  static ThreadFactory defaultFactory(String prefix, ClassLoader ccl) {
    return new DefaultFactory(prefix, ccl);
  }

  /** A class, not a lambda: a fresh JVM's first lambda links the lambda machinery (~10 ms). */
  private static final class DefaultFactory implements ThreadFactory {
    private final AtomicInteger ids = new AtomicInteger();
    private final String prefix;
    private final ClassLoader ccl;

    DefaultFactory(String prefix, ClassLoader ccl) {
      this.prefix = prefix;
      this.ccl = ccl;
    }

    @Override
    public Thread newThread(Runnable r) {
      return newDaemon(prefix + "-m" + ids.incrementAndGet(), r, ccl);
    }
  }

  /**
   * A daemon thread that inherits nothing from the thread that creates it: no inheritable
   * thread-locals, normal priority, the given context class loader.
   */
  static Thread newDaemon(String name, Runnable r, ClassLoader ccl) {
    Thread t = new Thread(null, r, name, 0, false);
    t.setDaemon(true);
    t.setPriority(Thread.NORM_PRIORITY);
    t.setContextClassLoader(ccl);
    return t;
  }

  static String nextPoolName() {
    return "gmp-" + POOL_IDS.incrementAndGet();
  }
}
