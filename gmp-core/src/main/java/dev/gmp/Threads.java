package dev.gmp;

import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The Ms' life cycle (Go's allm, newm, mexit): creating a thread for an M, its check-in, the
 * watchdog over threads that have not checked in, and the M's exit.
 *
 * <p>Check-in: newm marks the M STARTING and starts its thread; the thread's first act, M.run,
 * CASes STARTING to RUNNING under the lock ({@link #checkIn}). A ThreadFactory may hand back a
 * thread that is slow to run its Runnable (an application server's factory, a loaded host), one
 * that never runs it, or one that dies first. sysmon's watchdog ({@link #checkStarting})
 * therefore:
 *
 * <ul>
 *   <li>writes off an M whose thread died before checking in (the CAS STARTING to DEAD wins
 *       against a late check-in or loses to it, never both): its P goes back, it leaves mcount;
 *   <li>never writes off a live thread for being late: past {@link #CHECK_IN_NANOS} it takes back
 *       the P handed to the M and its spinning count (so the work runs elsewhere and wakep is not
 *       fooled by a spinner that is not there), and the M stays counted in mcount, against
 *       maxThreads but not against the spare budget ({@link #roomLocked}), until its thread
 *       checks in (then it is an ordinary M without a P, or, if the Ms made meanwhile fill the
 *       spare budget, it leaves at once) or dies.
 * </ul>
 *
 * <p>Failures back off: a thread that could not be had (the factory threw or returned null,
 * start() threw) or is late stops new threads from being created for {@link #MIN_BACKOFF_NANOS},
 * doubling per failed attempt up to {@link #MAX_BACKOFF_NANOS}, until a thread checks in; idle
 * Ms are still woken meanwhile. An attempt is one generation of threads: only a thread made
 * after the last pause began (or a check-in ended it) moves the pause. Threads made together
 * that fail together (three duds asked for at once, a late thread that then dies) are one
 * failure: counting each of them took the pause to its ceiling within one burst and renewed it
 * at every dud's end (docs/design.md, section 4). While no M has checked in, the pause is at
 * most {@link #MIN_BACKOFF_NANOS} ({@link #pauseLocked}). The first failure of a burst is
 * reported (Scheduler#report: the executor's handler, else a logged warning). When no M exists
 * at all, an outside submission starts one itself, backoff or not, and is rejected if that fails
 * (Scheduler#submitExternal): a task is never accepted that no thread can run.
 *
 * <p>sysmon never calls the ThreadFactory on its own thread (a slow factory would stall retakes
 * and the watchdog): the Ms it needs are started by a short-lived thread of gmp's own ({@link
 * #startOffSysmon}), as Go's sysmon leaves some thread creation to its template thread.
 *
 * <p>Thread creation does not depend on which thread triggers it (a submitter, a worker, sysmon):
 * the default factory and gmp's own threads ({@link #newDaemon}) do not inherit inheritable
 * thread-locals, and carry the context class loader captured when the executor was built, not
 * the caller's (an application server's redeploy must not be pinned by a worker that happened to
 * be created from a request thread). A user's ThreadFactory is called as it is.
 */
final class Threads {
  /** How long a started thread has to reach M.run before its P is taken back. */
  static final long CHECK_IN_NANOS = 250_000_000;

  /** The first pause in thread creation after a failed or late start. */
  static final long MIN_BACKOFF_NANOS = 250_000_000;

  /** The longest pause: a factory that keeps failing is asked about twice in ten seconds. */
  static final long MAX_BACKOFF_NANOS = 4_000_000_000L;

  private static final AtomicInteger POOL_IDS = new AtomicInteger();

  private final Scheduler s;

  // Guarded by the scheduler lock; volatile where stats or sysmon read them without it.
  volatile int mcount;
  private long mnext = 1;
  /** Every M not freed, and empty slots where freed Ms were (allocm drops them; {@link #ms}). */
  volatile M[] allm = new M[0];

  /** Threads the factory made for Ms, and the most Ms alive at once (stats). */
  volatile long created;

  volatile int peak;

  /** Ms whose thread was started and has not checked in yet (the watchdog's list). */
  private final ArrayList<M> starting = new ArrayList<>(4); // sized: ensureCapacity works

  private volatile int nstarting;

  /** Counters of Ms that exited, folded in under the lock. */
  volatile long retiredCompleted;

  volatile long retiredSteals;

  /**
   * A seqlock over the fold (mexit): odd while an exiting M's counts are neither in its slot nor
   * in the retired totals. Counters#snapshot reads the counts again under the lock when it moved.
   * Written under the lock.
   */
  volatile int exitSeq;

  volatile Throwable lastStartFailure;

  /** The current pause after failed or late starts (0: none), and when it began. Lock held. */
  private long backoff;

  private long backoffFrom;

  /** Ms whose thread checked in and has not exited. Lock held. */
  private int ncheckedIn;

  /** Pauses begun and pauses ended by a check-in: the attempt a new M belongs to. Lock held. */
  private long outcomes;

  /** A failure was reported since the last check-in (one report per burst). Lock held. */
  private boolean failureReported;

  /** Ms sysmon needs started, for the starter thread (startOffSysmon). */
  private final ConcurrentLinkedQueue<M> toStart = new ConcurrentLinkedQueue<>();

  private final AtomicBoolean starterRunning = new AtomicBoolean();

  /** Threads of Ms that passed mexit and may still be unwinding (awaitTermination joins them). */
  private final ArrayList<Thread> exited = new ArrayList<>(16); // sized: ensureCapacity works

  /** See {@link #allocFailureLocked}. Lock held. */
  private Throwable allocFailure;

  /** This JVM has run {@link #loadMClasses} (plain: a stale false only repeats idempotent work). */
  private static boolean mClassesLoaded;

  Threads(Scheduler s) {
    this.s = s;
  }

  /**
   * Loads and initializes, once per JVM, the classes that the first submission and a new M's
   * thread would otherwise load on their way to the first task: the M (and, verifying it, its
   * exit), the thread table, the scheduling loop, stealing, what the first task and sysmon's
   * first look meet, sysmon's thread starter, its timer slack and the waker's stack guard.
   * Loading a class from a jar runs mostly interpreted in a fresh JVM, and the first task waited
   * for each in turn (ForkJoinPool's classes come from the JDK's class-data archive). Called while
   * an executor is built, which loads most of gmp's classes already.
   */
  static void loadMClasses() {
    if (mClassesLoaded) {
      return;
    }
    MethodHandles.Lookup lookup = MethodHandles.lookup();
    try {
      for (Class<?> c :
          new Class<?>[] {
            M.class,
            ThreadTable.class,
            ThreadTable.MThread.class,
            SchedulingLoop.class,
            Steal.class,
            SchedLatency.Sampled.class,
            BlockDetector.Sample.class,
            Starter.class,
            TimerSlack.class,
            StackGuard.class
          }) {
        lookup.ensureInitialized(c);
      }
    } catch (IllegalAccessException e) {
      throw new AssertionError(e); // this package's own classes
    }
    mClassesLoaded = true;
  }

  // ---------------------------------------------------------------- creation

  /** parallelism + maxSpareThreads: the one spare budget, what Ms not late may number. Lock. */
  private long spareCapLocked() {
    return (long) s.gomaxprocs + s.config.maxSpareThreads();
  }

  /**
   * Whether one more M may be made: all Ms within maxThreads, and those not late to check in
   * within parallelism + maxSpareThreads. A late thread counts against maxThreads only: it runs
   * nothing while it is late, and counting it against the spare budget let one thread stuck in
   * its factory's prologue keep an executor with {@code maxSpareThreads(0)} from running
   * anything. Lock held.
   */
  boolean roomLocked() {
    return mcount < s.config.maxThreads() && mcount - lateLocked() < spareCapLocked();
  }

  /**
   * Ms still starting whose thread is late, counted on the starting list (almost always empty)
   * rather than kept in a counter that every check-in and write-off would have to adjust. Lock
   * held.
   */
  private int lateLocked() {
    int n = 0;
    for (M m : starting) {
      if (m.late && m.life() == M.STARTING) {
        n++;
      }
    }
    return n;
  }

  /**
   * A new M counted in mcount and allm, or null past the caps, once terminating, or while thread
   * creation backs off after a failure (unless {@code anyway}: the last M of the executor is
   * gone, Scheduler#startFirstOrReject). Lock held.
   */
  M allocmLocked(boolean anyway) {
    allocFailure = null; // this call's outcome only: a stale one read as the heap's refusal
    if (!roomLocked() || s.runState >= Scheduler.TIDYING) {
      return null;
    }
    if (!anyway && backoff != 0 && System.nanoTime() - (backoffFrom + pauseLocked()) < 0) {
      return null;
    }
    M m;
    M[] ms;
    try {
      m = new M(s, mnext);
      ms = live(allm, 1);
    } catch (OutOfMemoryError e) {
      // Before any change: the caller takes its no-M path (its P back, its claim undone), as
      // for a factory that fails, and the next wake-up tries again.
      allocFailure = e;
      startFailedLocked(e);
      return null;
    }
    mnext++;
    m.attempt = outcomes;
    m.pinned = s.owner.get(); // M#pinned: made for a submission, whose caller holds the executor
    mcount++;
    int counted = mcount - lateLocked();
    if (counted > peak) {
      peak = counted;
    }
    ms[ms.length - 1] = m;
    allm = ms; // volatile: readers see the new M's fields set above
    return m;
  }

  /** The Ms of {@code ms} (freed ones' slots dropped), then {@code room} free slots. */
  private static M[] live(M[] ms, int room) {
    int live = 0;
    for (M x : ms) {
      live += x != null ? 1 : 0;
    }
    M[] next = new M[live + room];
    int k = 0;
    for (M x : ms) {
      if (x != null) { // slots only empty (allocm swaps in a new array): k never passes live
        next[k++] = x;
      }
    }
    // ms() reads allm without the lock: an M freed between the two passes empties its slot in
    // place (freemLocked), so fewer are copied than counted; no copy may end in nulls (Dump).
    return k == live ? next : Arrays.copyOf(next, k + room);
  }

  /** allm without the freed Ms' empty slots (a copy: Dump, tests). */
  M[] ms() {
    return live(allm, 0);
  }

  /**
   * Why the last {@link #allocmLocked} returned null, if the heap had no room for an M (null for
   * the caps, termination and the backoff). Lock held.
   */
  Throwable allocFailureLocked() {
    return allocFailure;
  }

  private void freemLocked(M m) {
    m.pinned = null; // M#pinned: a freed M no longer keeps the executor
    mcount--;
    M[] ms = allm;
    for (int i = 0; i < ms.length; i++) {
      if (ms[i] == m) {
        // In place, allocating nothing: an exit must not fail for want of memory (mexit). Plain:
        // lock-free readers (stats) take a racy snapshot anyway and skip empty slots; allocm
        // drops them.
        ms[i] = null;
        break;
      }
    }
  }

  /** Whether pp waits in an M's nextp: handed to it and not yet picked up. Lock held. */
  boolean handedLocked(P pp) {
    for (M m : allm) {
      if (m != null && m.nextp == pp) {
        return true;
      }
    }
    return false;
  }

  /** Counts a thread that could not be had (maxThreads reached: no cause). Lock held. */
  void startFailedLocked(Throwable e) {
    if (e != null) {
      lastStartFailure = e;
    }
    Counters.count(s.counters.threadStartFailures); // never throws: a write-off's P, allocm's claim
  }

  /**
   * How long creation waits after the last failure: the backoff, but at most {@link
   * #MIN_BACKOFF_NANOS} while no M has checked in. Then nothing runs until a thread comes, so a
   * long pause only delays the work; a factory that always fails is still asked only four times
   * a second. Lock held.
   */
  private long pauseLocked() {
    return ncheckedIn == 0 ? Math.min(backoff, MIN_BACKOFF_NANOS) : backoff;
  }

  /** Ms whose thread checked in and has not exited: Ms that can run tasks. Lock held. */
  int checkedInLocked() {
    return ncheckedIn;
  }

  /**
   * An idle M decided to leave past its keepAlive (Idle#stopm): it stops counting as checked in
   * now, in the same lock hold, not at its mexit a moment later. Another idle M timing out in
   * between still counted it, and left too: two exits for one thread too many, and with
   * parallelism 1 no thread at all. Lock held.
   */
  void leavingLocked(M m) {
    ncheckedIn--;
    m.leaving = true;
  }

  /** {@link #pauseLocked} (tests). */
  long pauseNanos() {
    s.lock.lock();
    try {
      return pauseLocked();
    } finally {
      s.lock.unlock();
    }
  }

  /** The current pause after failed or late starts, 0 if none (tests). */
  long backoffNanos() {
    s.lock.lock();
    try {
      return backoff;
    } finally {
      s.lock.unlock();
    }
  }

  /**
   * m's start failed or came late: hold further creation back, twice as long each time, unless m
   * was made before the last pause began or ended (its failure was counted with that attempt's, or
   * a later thread has shown the factory works). Lock held.
   */
  private void backOffLocked(M m) {
    if (m.attempt != outcomes) {
      return;
    }
    outcomes++;
    backoff = backoff == 0 ? MIN_BACKOFF_NANOS : Math.min(MAX_BACKOFF_NANOS, backoff * 2);
    backoffFrom = System.nanoTime();
  }

  /**
   * M.run's check-in, the first act of m's thread: CAS STARTING to RUNNING (against a write-off)
   * under the lock, once per thread. The factory works, so creation may go on at once. A thread
   * that comes after being found late is written off here instead if the Ms made meanwhile fill
   * the spare budget (it holds no P: the watchdog took it back), so late threads never push the
   * Ms that run tasks past parallelism + maxSpareThreads. False: the thread must return at once.
   */
  boolean checkIn(M m) {
    boolean in;
    s.lock.lock();
    try {
      // Late and still counted so: the Ms not late, m not among them, fill the spare budget?
      boolean unneeded = m.late && m.life() == M.STARTING
          && mcount - lateLocked() >= spareCapLocked();
      in = !unneeded && m.casLife(M.STARTING, M.RUNNING);
      if (in) {
        ncheckedIn++;
      } else if (m.casLife(M.STARTING, M.DEAD)) {
        freemLocked(m);
        Lifecycle.tryTerminateLocked(s);
      }
      if (starting.remove(m)) {
        nstarting = starting.size();
      }
      if (in || unneeded) { // a thread we started, late or not: the factory works
        backoff = 0;
        outcomes++; // threads made before this check-in no longer speak for the factory
        failureReported = false;
      }
      // Else the M was written off before its thread came (a start that failed, as with a
      // factory that starts its threads itself): no sign that the factory works.
    } finally {
      s.lock.unlock();
    }
    if (!in) {
      Lifecycle.finishTermination(s);
    }
    return in;
  }

  /**
   * newm: a thread from the ThreadFactory for {@code m} (which holds its P in nextp), started.
   * A factory that throws or returns null, or a start() that throws, writes the M off at once and
   * the failure is returned (null: started); a thread that never runs its Runnable is the
   * watchdog's ({@link #checkStarting}).
   */
  Throwable newm(M m) {
    Thread t;
    try {
      t = s.config.threadFactory().newThread(m);
      if (t == null) {
        throw new IllegalStateException("ThreadFactory returned null");
      }
    } catch (Throwable e) {
      writeOff(m, M.NEW, e);
      return e;
    }
    m.thread = t;
    OutOfMemoryError noRoom = null;
    s.lock.lock();
    try {
      // Before m becomes STARTING: an M made STARTING and not listed is one no watchdog sees.
      starting.ensureCapacity(starting.size() + 1);
      created++; // threads the factory made (an M waiting for its factory call is not one yet)
      m.startedAt = System.nanoTime();
      m.setLife(M.STARTING);
      starting.add(m); // fits
      nstarting = starting.size();
    } catch (OutOfMemoryError e) {
      noRoom = e; // thrown by ensureCapacity, before any change
    } finally {
      s.lock.unlock();
    }
    if (noRoom != null) {
      writeOff(m, M.NEW, noRoom); // as a factory's failure: its P back, its claim undone
      return noRoom;
    }
    try {
      t.start();
      m.startReturned = true;
    } catch (Throwable e) {
      return writeOff(m, M.STARTING, e) ? e : null;
    } finally {
      // The watchdog runs on sysmon: make sure it is started and awake. After start(), so that
      // the M's thread, not sysmon's, starts first: the watchdog acts only past CHECK_IN_NANOS.
      s.sysmon.watch();
    }
    return null;
  }

  /**
   * sysmon needs {@code m} (NEW, its P in nextp) started: a short-lived thread of gmp's own calls
   * newm, so that a slow ThreadFactory cannot stall sysmon. One at a time, draining the queue.
   */
  void startOffSysmon(M m) {
    try {
      toStart.add(m);
    } catch (OutOfMemoryError e) {
      writeOff(m, M.NEW, e); // not queued: no starter or watchdog would ever find it
      return;
    }
    startStarter();
  }

  /** Starts a starter unless one runs; without a thread at all, drains the queue here. */
  private void startStarter() {
    if (starterRunning.compareAndSet(false, true)) { // CAS: one starter drains at a time
      try {
        String name = s.config.name() + "-starter";
        newDaemon(name, new Starter(this), s.config.contextClassLoader()).start();
      } catch (Throwable e) { // no thread at all (out of memory): start them here after all
        starterRunning.set(false);
        drainStarts();
      }
    }
  }

  /**
   * A new M whose P was taken back before the starter came to it (Spares#takeLateHandoffLocked)
   * would only park: it is dropped, and no thread is made for it. One whose factory call has begun
   * (the starter's, or a submitter's own newm) comes up as an idle M. The queue's remove and the
   * starter's poll are one CAS on the node: one of them has m. Lock held.
   */
  void dropUnstartedLocked(M m) {
    if (toStart.remove(m) && m.casLife(M.NEW, M.DEAD)) {
      freemLocked(m);
    }
  }

  private void drainStarts() {
    for (; ; ) {
      M m = toStart.poll();
      if (m != null) {
        try {
          newm(m);
        } catch (Throwable e) { // an Error past the factory call (an OutOfMemoryError): m's P back
          writeOff(m, M.NEW, e); // one already STARTING is the watchdog's (its thread stays NEW)
        }
        continue;
      }
      starterRunning.set(false); // volatile; then recheck: an add after our poll may have seen us
      if (toStart.isEmpty() || !starterRunning.compareAndSet(false, true)) {
        return;
      }
    }
  }

  /** The starter's body; a class, not a lambda (see DefaultFactory). */
  private static final class Starter implements Runnable {
    private final Threads threads;

    Starter(Threads threads) {
      this.threads = threads;
    }

    @Override
    public void run() {
      try {
        threads.drainStarts();
      } catch (Throwable e) {
        // Out of memory even for a write-off: let the next request start another starter rather
        // than find this one still "running" and queue its Ms for nobody.
        threads.starterRunning.set(false);
        throw e;
      }
    }
  }

  /**
   * Writes off an M whose thread will never run it: its P goes back (with its work) to another M
   * or the idle list, and mcount, nmspinning and the failure count are set right; creation backs
   * off, and the first failure of a burst is reported. False if the M checked in meanwhile (then
   * it is a normal, running M).
   */
  private boolean writeOff(M m, int from, Throwable cause) {
    boolean spinning;
    boolean report;
    s.lock.lock();
    try {
      if (!m.casLife(from, M.DEAD)) {
        return false;
      }
      // Nothing from here to the unlock allocates: the factory's failure is often the heap's,
      // and an error halfway lost the M's P (a starter that died so left the executor unable to
      // terminate).
      if (starting.remove(m)) {
        nstarting = starting.size();
      }
      freemLocked(m);
      startFailedLocked(cause);
      backOffLocked(m); // a no-op for a late thread: its lateness began the pause already
      report = !failureReported;
      failureReported = true;
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
      s.idle.unclaimSpinning(); // with the recheck a dropped count needs (Dekker A)
    }
    if (report) {
      try {
        s.report(new IllegalStateException(
            "GmpExecutor[" + s.config.name() + "]: no worker thread could be started", cause));
      } catch (OutOfMemoryError noRoom) {
        // not even room for the report: the failure still counts in stats
      }
    }
    s.sysmon.ensureStarted(); // its fallback retries once the backoff ends
    return true;
  }

  /**
   * sysmon's watchdog round: writes off every starting M whose thread died before checking in,
   * and takes back the P (and spinning count) of one that is late past {@link #CHECK_IN_NANOS}
   * without writing it off. Returns how many it acted on; cheap while nothing is starting.
   */
  int checkStarting(long now) {
    int unmade = takeBackFromUnmade(now);
    if (nstarting == 0) {
      return unmade;
    }
    List<M> dead = new ArrayList<>();
    List<M> late = new ArrayList<>();
    s.lock.lock();
    try {
      for (int i = starting.size() - 1; i >= 0; i--) {
        M m = starting.get(i);
        if (m.life() != M.STARTING) {
          starting.remove(i); // checked in (or written off)
        } else {
          // The flag before the state: a start() that has returned has left the thread past NEW.
          boolean returned = m.startReturned;
          Thread.State ts = m.thread.getState();
          boolean overdue = now - m.startedAt > CHECK_IN_NANOS;
          // Ended, or a start() that returned without starting it (an override that never calls
          // the JDK's). NEW while start() has not returned is late, not dead, however long: a
          // start() slow to create the thread (an overloaded host, a factory's own override), or
          // newm descheduled between its bookkeeping and start().
          if (ts == Thread.State.TERMINATED || ts == Thread.State.NEW && returned && overdue) {
            dead.add(m);
          } else if (!m.late && overdue) {
            late.add(m);
          }
        }
      }
      nstarting = starting.size();
    } finally {
      s.lock.unlock();
    }
    int n = 0;
    for (M m : dead) {
      if (writeOff(m, M.STARTING, new IllegalStateException(
          "thread " + m.thread.getName() + " from the ThreadFactory ended without running its"
              + " Runnable (it ended, or never started)"))) {
        n++;
      }
    }
    for (M m : late) {
      n += takeBackFromLate(m);
    }
    return n + unmade;
  }

  /**
   * The watchdog for threads not made yet: a P handed to a new M that has had no thread for
   * {@link #CHECK_IN_NANOS} (a factory call that slow, or a starter that died: out of memory)
   * goes back, to an idle M if work waits (Idle#returnPLocked), with the M's spinning count; the
   * M is dropped if the starter has not come to it. An M that needs a P takes such a P sooner
   * (Spares#takeLateHandoffLocked); this is for when none does, with Ms parked idle beside it. A
   * starter that died with Ms queued is replaced. Cheap while no P waits for a new M: a read of
   * each P's hint.
   */
  private int takeBackFromUnmade(long now) {
    int n = 0;
    for (P pp : s.procs.all) {
      M to = pp.handedTo; // a hint, rechecked under the lock
      if (to != null && to.life() == M.NEW && now - pp.handedAt > CHECK_IN_NANOS
          && takeBackFromUnmade(pp, to)) {
        n++;
      }
    }
    if (!toStart.isEmpty() && !starterRunning.get()) {
      startStarter();
    }
    return n;
  }

  private boolean takeBackFromUnmade(P pp, M to) {
    boolean spinning = false;
    s.lock.lock();
    try {
      if (pp.handedTo != to || !pp.handedToNew || pp.status() != P.Pidle
          || to.life() != M.NEW) {
        return false;
      }
      int took = Spares.cancelHandoffLocked(s, pp, to);
      if (took == Spares.LOST) {
        return false;
      }
      spinning = took == Spares.TOOK_SPINNING;
      Counters.count(s.counters.lateThreadStarts);
      s.idle.returnPLocked(pp);
    } finally {
      s.lock.unlock();
    }
    if (spinning) {
      s.idle.unclaimSpinning();
    }
    return true;
  }

  /**
   * A live thread that has not checked in {@link #CHECK_IN_NANOS} after its start keeps its M
   * (counted, never written off: it runs once it checks in), but the P handed to it goes back,
   * with its spinning count, and creation backs off. The spinning flag is read before the CAS on
   * nextp, which the thread's own takeNextp races: the winner of that CAS owns the P and the
   * count (SchedulingLoop#mstart).
   */
  private int takeBackFromLate(M m) {
    boolean spinning = false;
    s.lock.lock();
    try {
      if (m.life() != M.STARTING || m.late) {
        return 0;
      }
      m.late = true;
      backOffLocked(m);
      Counters.count(s.counters.lateThreadStarts);
      boolean spin = m.spinning; // before the CAS: see above
      P pp = m.nextp;
      if (pp != null && m.cancelNextp(pp)) {
        spinning = spin;
        m.spinning = false; // its count goes back below: a later write-off must not give it again
        s.idle.returnPLocked(pp);
      }
    } finally {
      s.lock.unlock();
    }
    if (spinning) {
      s.idle.unclaimSpinning();
    }
    return 1;
  }

  /**
   * TIDYING: every M still starting holds no P (all are idle), so its thread, if it ever runs,
   * has nothing to do: write it off now, so that a thread that never runs its Runnable does not
   * keep the executor from terminating. Lock held.
   */
  void writeOffStartingLocked() {
    for (M m : starting) {
      if (m.casLife(M.STARTING, M.DEAD)) { // CAS: a check-in now fails and the thread returns
        freemLocked(m);
      }
    }
    starting.clear();
    nstarting = 0;
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
    // An M dies as the heap runs out too: an OutOfMemoryError left it counted, and the executor
    // never terminated. Each step allocates before it changes anything, so a failed one is
    // tried again once memory may have come back.
    boolean spinning;
    for (; ; ) {
      try {
        spinning = exitLocked(m);
        break;
      } catch (OutOfMemoryError e) {
        awaitMemory();
      }
    }
    for (; ; ) {
      try {
        ThreadTable.unregister(m); // replaces its table whole, or not at all
        break;
      } catch (OutOfMemoryError e) {
        awaitMemory();
      }
    }
    Lifecycle.finishTermination(s); // after unregister: no thread table entry outlives it
    if (spinning) {
      s.idle.dropSpinning(m);
      if (s.idle.workVisible()) {
        s.idle.wakep();
      }
    }
  }

  /**
   * A pause before trying an allocation again, for steps that must not be left half done (an
   * exit, a dead P's timers): a collection or a finished task may free room meanwhile.
   */
  static void awaitMemory() {
    LockSupport.parkNanos(MEMORY_RETRY_NANOS);
  }

  private static final long MEMORY_RETRY_NANOS = 10_000_000;

  /** mexit's locked part: whether m was spinning. Allocates first, so an error changes nothing. */
  private boolean exitLocked(M m) {
    boolean spinning;
    s.lock.lock();
    try {
      roomForExited();
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
      s.idle.reclaimHeldLocked(); // one it held in a local only, if an Error ended its thread
      s.spares.removeSelf(m); // mexit runs on m's own thread
      spinning = m.spinning;
      m.spinning = false;
      m.setLife(M.DEAD);
      if (!m.leaving) {
        ncheckedIn--; // else counted out when it decided to leave (leavingLocked)
      }
      exitSeq++; // odd: the counts move (volatile, single writer under the lock)
      freemLocked(m);
      m.dropIsland(); // its curg is null: the 64 KB need not outlive the thread (roomForExited)
      exited.add(m.runner); // fits: roomForExited
      retiredCompleted += m.tasksEnded(); // its thread's: the loop's and the runs in place
      retiredSteals += m.steals();
      exitSeq++; // even: moved
      Lifecycle.tryTidyLocked(s);
      Lifecycle.tryTerminateLocked(s);
    } finally {
      s.lock.unlock();
    }
    return spinning;
  }

  /**
   * Room in {@link #exited} for one more thread, dropping those that have died (it holds only
   * threads still unwinding: a dead thread keeps its Runnable, the M, and until 2026-12-06 up to
   * 64 dead ones stayed here, each with its M's 64 KB island, for the executor's life). May throw
   * OutOfMemoryError. Lock held.
   */
  private void roomForExited() {
    int k = 0;
    for (int i = 0; i < exited.size(); i++) {
      Thread t = exited.get(i);
      if (t.isAlive()) {
        exited.set(k++, t);
      }
    }
    for (int i = exited.size() - 1; i >= k; i--) {
      exited.remove(i);
    }
    exited.ensureCapacity(exited.size() + 1);
  }

  // ---------------------------------------------------------------- the default thread path

  /** The default ThreadFactory: daemon threads named {@code prefix-mN}, see {@link #newDaemon}. */
  static ThreadFactory defaultFactory(String prefix, ClassLoader ccl) {
    return new DefaultFactory(prefix, ccl);
  }

  /**
   * A class, not a lambda: a fresh JVM's first lambda links the lambda machinery, which is slow
   * (docs/benchmarks.md, "Where the rest of the warm-up goes").
   */
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
      // An M's thread takes the M's number, so that a dump's "M7: thread=gmp-1-m7" lines match.
      if (r instanceof M m) {
        return daemon(new ThreadTable.MThread(prefix + "-m" + m.id, m), ccl);
      }
      return newDaemon(prefix + "-m" + ids.incrementAndGet(), r, ccl);
    }
  }

  /**
   * A daemon thread that inherits nothing from the thread that creates it: no inheritable
   * thread-locals, normal priority, the given context class loader.
   */
  static Thread newDaemon(String name, Runnable r, ClassLoader ccl) {
    return daemon(new Thread(null, r, name, 0, false), ccl);
  }

  private static Thread daemon(Thread t, ClassLoader ccl) {
    t.setDaemon(true);
    t.setPriority(Thread.NORM_PRIORITY);
    t.setContextClassLoader(ccl);
    return t;
  }

  static String nextPoolName() {
    return "gmp-" + POOL_IDS.incrementAndGet();
  }
}
