package dev.gmp;

import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;

/**
 * The scheduler that JDK virtual threads of one executor see: the {@link Executor} their
 * builder is given ({@link GmpExecutor#virtualThreadBuilder}, through a {@link Handle}). The JDK
 * calls {@link #execute}
 * with a thread's continuation whenever the thread becomes runnable: on start, after unpark,
 * unblock or notify, after a timeout, and after Thread.yield. Each call is one G; its run mounts
 * the thread on the M (the carrier), and the run returns when the thread parks, yields or ends.
 * So a parked virtual thread is a goroutine in Gwaiting with no G object at all: it exists only
 * in {@link #live}. The JDK internals this needs are all in {@link VirtualThreads}.
 *
 * <p><b>Go's entry points, by caller.</b> The caller is classified by its carrier thread, never
 * by {@code isVirtual()}: a virtual thread mounted on one of our Ms, or the M itself (the JDK
 * resubmits a yielding thread from its carrier after unmounting it), is "on a gmp carrier"; a
 * JDK unparker or unblocker thread, a poller, a virtual thread of another scheduler or any
 * platform thread is not.
 *
 * <ul>
 *   <li>Start or unpark from a gmp carrier whose M runs on a live P: newproc / goready with
 *       next=true, the thread takes that P's runnext (a communicating pair stays on one P).
 *   <li>Thread.yield: Go's Gosched, the global queue and wakep.
 *   <li>From anywhere else: the global queue's lock-free injection side and wakep.
 * </ul>
 *
 * <p><b>Never rejected.</b> A rejected continuation would strand its thread for ever, so
 * continuations go past the run-state checks of {@link GmpExecutor#execute}. The executor cannot
 * terminate while a thread of it is alive: {@link Lifecycle#tryTidyLocked} waits for {@link
 * #liveCount} to reach 0, so every resumption finds Ms to run it, after shutdown() as before.
 * The one refusal is a start after the executor reached TIDYING (then no thread of it is left):
 * Thread.start throws RejectedExecutionException and the new thread is terminated at once,
 * never stranded. shutdownNow() keeps continuations queued and interrupts every live thread.
 *
 * <p><b>Never blocks.</b> The JDK calls execute with the calling virtual thread pinned. Both
 * paths are the plain executor's: a CAS into runnext or into the injection ring, and wakep. The
 * locks they may take (the scheduler lock, in wakep, in runqputslow's overflow and when the
 * injection ring is full) are held by Ms only for bounded work that waits for no other thread,
 * and no virtual thread holds one across a blocking point; so a pinned caller may wait a few
 * microseconds for one but can never deadlock on it (the Netty scheduler's issue #4).
 */
final class Carriers {
  private final Scheduler s;

  /**
   * Started and not terminated threads, for shutdownNow's interrupts. A concurrent set: added by
   * whoever starts a thread, removed by the M that ran its last continuation.
   */
  private final ConcurrentHashMap<Thread, Boolean> live = new ConcurrentHashMap<>();

  /** Continuation Gs queued or running: live minus this is the parked threads (stats only). */
  private final LongAdder continuations = new LongAdder();

  /** How many continuations may wait for sysmon's round after a stack overflow (below). */
  private static final int DEFERRED_MAX = 256;

  /**
   * Continuations a stack overflow kept out of the queues ({@link #execute}), for sysmon's next
   * round ({@link #queueDeferred}), and whether each was counted in {@link #continuations}.
   * Allocated up front: the overflowing thread may only store into them (an allocation there
   * overflowed too). Guarded by {@link #deferLock}; {@link #deferredCount} is volatile for
   * sysmon's read without the monitor, once a round.
   */
  private final Runnable[] deferred = new Runnable[DEFERRED_MAX];

  private final boolean[] deferredCounted = new boolean[DEFERRED_MAX];

  private volatile int deferredCount;

  /**
   * Continuations queueDeferred has taken out of {@link #deferred} and not yet queued (sysmon's
   * own writes): a tidy-up that read the list empty in between terminated the executor, and a
   * deferred start was then refused after its Thread.start() had returned (it never ran).
   */
  private volatile int requeuing;

  private final Object deferLock = new Object();

  /** Continuations readied on the caller's own P (runnext), and Thread.yields (tests, dump). */
  final LongAdder readiedLocal = new LongAdder();

  final LongAdder yields = new LongAdder();

  private Carriers(Scheduler s) {
    this.s = s;
  }

  /** The scheduler's Carriers, made on first use. */
  static Carriers of(Scheduler s) {
    Carriers c = s.carriers;
    if (c != null) {
      return c;
    }
    StackGuard.ensure(); // the first virtual-thread builder, from any stack: not inside the lock
    s.lock.lock();
    try {
      if (s.carriers == null) {
        s.carriers = new Carriers(s); // volatile write under the lock: one instance per scheduler
      }
      return s.carriers;
    } finally {
      s.lock.unlock();
    }
  }

  /** A builder whose threads this executor carries; it and they keep {@code owner} reachable. */
  Thread.Builder.OfVirtual builder(GmpExecutor owner) {
    return VirtualThreads.builder(new Handle(this, owner));
  }

  /**
   * What the JDK's virtual threads hold as their scheduler. It refers to the executor strongly,
   * so that a builder, a factory or a live thread keeps it from being collected (and shut down
   * by its Cleaner) while it is still in use; the scheduler itself refers only to Carriers, so
   * an executor with no builder and no thread left is still collected as before. A thread that
   * has ended keeps it too (VirtualThread's scheduler field is final, and one Handle serves a
   * builder and all its threads, so it cannot tell them apart): documented, not fixed.
   */
  private record Handle(Carriers carriers, GmpExecutor owner) implements Executor {
    @Override
    public void execute(Runnable continuation) {
      try {
        carriers.execute(continuation);
      } catch (StackOverflowError e) {
        // The call itself overflowed (or its handler did): deferred as there, inline for the
        // same reason (no call on a spent stack). Full (never seen): thrown, as before.
        synchronized (carriers.deferLock) {
          int n = carriers.deferredCount;
          if (n == DEFERRED_MAX) {
            throw e;
          }
          carriers.deferred[n] = continuation;
          carriers.deferredCounted[n] = false;
          carriers.deferredCount = n + 1;
        }
      }
    }
  }

  /**
   * Called by the JDK only (through a Handle), with a virtual thread's continuation. Never throws
   * a StackOverflowError: the JDK has marked the thread runnable (or started) before it calls,
   * and retries only an OutOfMemoryError, so such an error would strand the thread for good (a
   * second unpark finds it runnable and does nothing; the executor never terminates). A thread
   * at the end of its stack that wakes or starts another gets there: the continuation then waits
   * for sysmon's next round ({@link #deferred}).
   */
  void execute(Runnable continuation) {
    Thread vt = null;
    int kind = -1;
    boolean admitted = false;
    boolean counted = false;
    try {
      vt = VirtualThreads.threadOf(continuation);
      kind = vt == null ? VirtualThreads.RESUME : VirtualThreads.kind(vt);
      if (kind == VirtualThreads.START) {
        admit(vt); // may refuse a start after termination, before anything is queued
        admitted = true;
      }
      // LongAdder, through Counters.count: a stats count (parked), no ordering needed, and
      // never thrown out of a contended adder's cell allocation after admit registered a start.
      Counters.count(continuations);
      counted = true;
      ready(new Run(continuation, vt, this), kind);
    } catch (StackOverflowError e) {
      // Nothing is queued: the queues' paths overflow before they change anything (StackGuard).
      // A monitor and stores into arrays made up front from here: no call, no allocation (the
      // stack is spent). sysmon's execute of it starts over (a start already admitted is
      // admitted again: a set's put). Full (never seen): thrown to Handle, which throws it on.
      synchronized (deferLock) {
        int n = deferredCount;
        if (n == DEFERRED_MAX) {
          throw e;
        }
        deferred[n] = continuation;
        deferredCounted[n] = counted;
        deferredCount = n + 1;
      }
    } catch (Throwable e) { // an OutOfMemoryError: the JDK retries a resumption, ends a start
      if (counted) {
        Counters.count(continuations, -1); // as above: forget below must run
      }
      if (admitted) {
        forget(vt);
      }
      throw e;
    }
  }

  /**
   * sysmon, each round: queues the continuations a stack overflow left ({@link #deferred}), as
   * from any other thread. One that fails to queue (out of memory) goes back for a later round.
   */
  void queueDeferred() {
    if (deferredCount == 0) { // volatile read: nearly always 0
      return;
    }
    Runnable[] cs;
    boolean[] counted;
    synchronized (deferLock) { // all at once: a waker overflowing meanwhile finds it free sooner
      int n = deferredCount;
      cs = Arrays.copyOf(deferred, n);
      counted = Arrays.copyOf(deferredCounted, n);
      Arrays.fill(deferred, 0, n, null);
      requeuing = n; // volatile, before the count's: anyDeferred never reads both empty early
      deferredCount = 0;
    }
    try {
      requeue(cs, counted);
    } finally {
      requeuing = 0; // volatile, after each start's admit put it in live (tryTidyLocked reads both)
    }
  }

  private void requeue(Runnable[] cs, boolean[] counted) {
    for (int i = 0; i < cs.length; i++) {
      if (counted[i]) {
        Counters.count(continuations, -1); // counted by the call that overflowed
      }
      try {
        execute(cs[i]);
      } catch (Throwable e) { // what it would throw the JDK (out of memory): back, for a later round
        synchronized (deferLock) {
          for (int k = i; k < cs.length && deferredCount < DEFERRED_MAX; k++) {
            deferred[deferredCount] = cs[k];
            deferredCounted[deferredCount] = k > i && counted[k]; // execute took back cs[i]'s
            deferredCount = deferredCount + 1;
          }
        }
        throw e; // sysmon reports it and goes on
      }
    }
  }

  /**
   * Whether continuations wait for sysmon's round, or are being queued by it (Lifecycle: not
   * terminated before). Read before {@link #liveCount}: once this reads false, a start it queued
   * is in the live set.
   */
  boolean anyDeferred() {
    return deferredCount != 0 || requeuing != 0;
  }

  private void ready(Run run, int kind) {
    if (kind == VirtualThreads.YIELD) {
      Counters.count(yields); // LongAdder: a count for tests and diagnosis
      s.readyExternal(run); // Gosched: globrunqput + wakep
      return;
    }
    M m = ThreadTable.carrierM();
    // The caller runs on m's OS thread (a mounted virtual thread, or m itself after an unmount),
    // so m.p is read by the thread that owns it; the mount's volatile writes order it after the
    // carrier's own writes.
    P pp = m == null ? null : m.runningTaskP(s);
    if (pp != null) {
      Counters.count(readiedLocal); // LongAdder: a count for tests and diagnosis
      s.readyLocal(pp, run, true); // an empty runnext wakes nobody: this M runs it next
      return;
    }
    s.readyExternal(run);
  }

  /**
   * Registers a starting thread. Dekker (G) with shutdown: we add to {@link #live} and fence, then
   * read runState; shutdown writes runState and then reads the live count under the lock
   * (tryTidyLocked). If we read RUNNING, tidy sees our thread and waits for it; if we read a
   * shut-down state, we settle under the lock: accepted unless tidy already ran. The same pair with
   * shutdownNow's interrupts (it writes STOP, then walks {@link #live}): a thread it may miss reads
   * STOP here and is interrupted before it first runs.
   */
  private void admit(Thread vt) {
    live.put(vt, Boolean.TRUE); // CHM: its CAS or bin lock publishes vt to interruptAll's walk
    // StoreLoad (G): the map's count may land in a new counter cell by a plain store, so the
    // CHM's own CASes are not relied on; this fence orders the add before the runState read.
    VarHandle.fullFence();
    if (s.runState < Scheduler.SHUTDOWN) { // volatile read, after the fence
      return;
    }
    boolean refused;
    // An overflow delayed out of the lock would leave it held (StackGuard); here it reaches
    // execute's handler before the lock, which defers the start to sysmon (admitted again there:
    // a set's put). Only after shutdown: the probe would triple a start's cost on the hot path.
    StackGuard.ensure();
    s.lock.lock();
    try {
      refused = s.runState >= Scheduler.TIDYING;
      if (refused) {
        forget(vt);
      }
    } finally {
      s.lock.unlock();
    }
    if (refused) {
      throw new RejectedExecutionException("virtual thread " + vt + " not started: GmpExecutor["
          + s.config.name() + "] has terminated");
    }
    if (s.runState >= Scheduler.STOP) {
      vt.interrupt(); // as shutdownNow interrupts every thread it finds (the thread is not run yet)
    }
  }

  private void forget(Thread vt) {
    live.remove(vt);
  }

  /** After each continuation run, on the M that ran it. */
  private void ran(Thread vt) {
    continuations.decrement(); // LongAdder: a stats count
    if (vt != null && VirtualThreads.isTerminated(vt)) {
      forget(vt); // its last run: the M will tidy when it idles its P, if shut down
    }
  }

  /**
   * Threads started and not terminated (Lifecycle: the executor terminates only at 0). The map's
   * own striped count rather than a shared counter beside it: a spawner and the Ms ending threads
   * no longer take turns on one cache line (spawn+join inside a virtual thread at p=2: 0.76x the
   * time, docs/benchmarks.md).
   */
  long liveCount() {
    return live.mappingCount(); // volatile reads of the count's base and cells
  }

  /** Live threads that are neither queued nor running: parked (GmpStats: Gwaiting). */
  int parked() {
    long live = this.live.mappingCount();
    // Racy: the sum may see a continuation's end without its start (a reader descheduled while
    // it adds the cells), below 0 or above the live count. Never more parked than live.
    long p = live - continuations.sum();
    return (int) Math.max(0, Math.min(Math.min(Integer.MAX_VALUE, live), p));
  }

  /** shutdownNow: interrupt every live thread. Called without the scheduler lock. */
  void interruptAll() {
    for (Thread t : live.keySet()) {
      t.interrupt(); // an unpark: its continuation comes back through execute, never rejected
    }
  }

  /** Whether a queued task is a continuation (shutdownNow keeps those queued). */
  static boolean isContinuation(Runnable task) {
    return task instanceof Run;
  }

  /** The dump's name for a task: the virtual thread for a continuation, else the class. */
  static String describe(Runnable task) {
    if (task instanceof Run r && r.vt != null) {
      String name = r.vt.getName();
      return "VirtualThread#" + r.vt.threadId() + (name.isEmpty() ? "" : "/" + name);
    }
    return task.getClass().getName();
  }

  /** One continuation run: a G's task. */
  private static final class Run implements Runnable {
    final Runnable continuation;
    final Thread vt;
    final Carriers owner;

    Run(Runnable continuation, Thread vt, Carriers owner) {
      this.continuation = continuation;
      this.vt = vt;
      this.owner = owner;
    }

    @Override
    public void run() {
      try {
        continuation.run(); // mounts vt on this M; returns once it parks, yields or ends
      } finally {
        owner.ran(vt);
      }
    }
  }
}
