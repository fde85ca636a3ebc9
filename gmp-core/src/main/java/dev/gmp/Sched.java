package dev.gmp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/** Padding before the words every submit and every spinner write (see SchedHot). */
abstract class SchedPad0 {
  long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The scheduler words that wakep, spinners and idling Ms write, on their own cache lines so that
 * their traffic does not evict the read-mostly fields every task reads (runState, procs,
 * gomaxprocs).
 */
abstract class SchedHot extends SchedPad0 {
  /** Spinning Ms. Accessed through Sched.NMSPINNING (getVolatile / CAS / getAndAdd). */
  volatile int nmspinning;

  /** Idle Ps (Go's npidle); volatile: it takes part in the needspinning protocol. */
  volatile int npidle;

  /** Go 1.20's needspinning: a submitter found no idle P; an M about to drop its P must spin. */
  volatile int needspinning;
}

abstract class SchedPad1 extends SchedHot {
  long p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p30, p31, p32, p33, p34, p35;
}

/** Go's sched.goidgen: every P takes 16 ids at a time from it; its own cache lines. */
abstract class SchedGoid extends SchedPad1 {
  volatile long goidgen = 1;
}

abstract class SchedPad2 extends SchedGoid {
  long p40, p41, p42, p43, p44, p45, p46, p47, p48, p49, p50, p51, p52, p53, p54, p55;
}

/**
 * The scheduler's shared state (Go's {@code schedt}) and the operations that move Ms and Ps
 * around: wakep, startm, stopm, handoffp, the idle-P and idle-M lists, P retirement and the
 * executor's run state. The scheduling loop itself is in {@link Schedule}; blocking calls in
 * {@link Syscall}; the monitor thread in {@link Sysmon}.
 *
 * <p>One lock ({@link GlobalQueue#lock}, Go's sched.lock) guards the global queue, the idle lists,
 * the M count, the zombie list and the run state transitions. The hot paths (local put/get,
 * stealing, spinning accounting) take no lock.
 */
final class Sched extends SchedPad2 {
  // Run states, ordered.
  static final int RUNNING = 0;
  static final int SHUTDOWN = 1;
  static final int STOP = 2;
  static final int TIDYING = 3;
  static final int TERMINATED = 4;

  private static final VarHandle NMSPINNING;
  private static final VarHandle GOIDGEN;

  static {
    try {
      NMSPINNING =
          MethodHandles.lookup().findVarHandle(SchedHot.class, "nmspinning", int.class);
      GOIDGEN = MethodHandles.lookup().findVarHandle(SchedGoid.class, "goidgen", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final GmpExecutor executor;
  final Config config;
  final GlobalQueue runq = new GlobalQueue(this::reserveGoids);
  final ReentrantLock lock = runq.lock;
  final Sysmon sysmon;

  /** allp and its steal order; replaced whole (volatile publication of an immutable snapshot). */
  volatile Procs procs;

  /** GOMAXPROCS. Written under the lock, read anywhere. */
  volatile int gomaxprocs;

  // Idle Ps (Go's pidle); npidle is in SchedHot.
  private P pidle;

  // Idle Ms (Go's midle/nmidle) and the M count; guarded by the lock, volatile for stats.
  private M midle;
  volatile int nmidle;
  volatile int mcount;
  private long mnext = 1;
  volatile M[] allm = new M[0];

  /**
   * The running Ms by thread, an open-addressed table indexed by thread id (copy-on-write under
   * the lock, so readers need no lock): execute() asks "is the caller one of our workers" on every
   * spawn, and a ThreadLocal probe cost ~15% of a yield loop in JFR.
   */
  private volatile M[] mByThread = new M[8];

  /** Ms running a task without a live P (after a retake); guarded by the lock. */
  volatile int nmspare;

  /** Dead Ps whose owning M has not yet noticed (retired or retaken from under a task). */
  final List<P> zombies = new ArrayList<>();

  volatile int runState = RUNNING;
  private boolean sysmonExited;
  /**
   * sysmon is in its deep sleep (all Ps idle). Written under the lock; volatile because every M
   * reads it once per scheduling round (Schedule.schedule) to wake sysmon lazily.
   */
  volatile boolean sysmonWaiting;
  final CountDownLatch terminated = new CountDownLatch(1);

  /** Every worker thread ever started and not retired, for awaitTermination to join. */
  final Set<Thread> threads = ConcurrentHashMap.newKeySet();

  // Global free-G list (Go's sched.gFree), guarded by the lock; the count is a racy hint outside.
  G gFreeList;
  volatile int gFreeCount;

  // Counters of rare events.
  final LongAdder parks = new LongAdder();
  final LongAdder unparks = new LongAdder();
  final LongAdder threadStartFailures = new LongAdder();
  final LongAdder handoffs = new LongAdder();
  final LongAdder retakes = new LongAdder();
  final LongAdder preemptionRequests = new LongAdder();
  final LongAdder sysmonWakeups = new LongAdder();
  volatile Throwable lastThreadStartFailure;
  // Counters of Ms that exited, folded in under the lock.
  private volatile long retiredCompleted;
  private volatile long retiredSteals;

  Sched(GmpExecutor executor, Config config) {
    this(executor, config, true);
  }

  /**
   * Test seam (gmp-stress): with {@code startSysmon} false the sysmon thread is never started, so
   * a test can drive the scheduler's steps (and Sysmon.retake) from its own threads.
   */
  Sched(GmpExecutor executor, Config config, boolean startSysmon) {
    this.executor = executor;
    this.config = config;
    int n = config.parallelism();
    P[] all = new P[n];
    lock.lock();
    try {
      for (int i = n - 1; i >= 0; i--) {
        all[i] = new P(i);
        pidleput(all[i]);
      }
      procs = new Procs(all);
      gomaxprocs = n;
    } finally {
      lock.unlock();
    }
    sysmon = new Sysmon(this);
    if (startSysmon) {
      sysmon.start();
    } else {
      sysmonExited = true; // never started: termination must not wait for it
    }
  }

  long reserveGoids(int n) {
    return (long) GOIDGEN.getAndAdd(this, (long) n); // atomic: Ps refill concurrently (Xadd64)
  }

  int nmspinning() {
    return (int) NMSPINNING.getVolatile(this);
  }

  // ---------------------------------------------------------------- submission

  /** newproc from one of our workers: the task takes runnext (the seed's "go" statement). */
  void submitLocal(M m, P pp, Runnable task) {
    if (runState >= SHUTDOWN) { // volatile: a task seen after SHUTDOWN is rejected
      throw rejected(task);
    }
    G g = Switches.GFREE ? GFree.get(pp, this) : null;
    if (g == null) {
      g = new G();
    }
    g.task = task;
    g.goid = pp.nextGoid(this);
    g.setStatus(G.Grunnable);
    pp.runq.put(g, Switches.RUNNEXT, runq);
    if (!Switches.RUNNEXT) {
      // Without runnext there is no CAS in put: make the StoreLoad explicit (wakep protocol).
      VarHandle.fullFence();
    }
    wakep();
  }

  /**
   * Submission from any other thread: onto the global queue's lock-free injection side (no lock:
   * outside submitters used to queue up on the scheduler lock and park), then wake a P.
   *
   * <p>Shutdown without the lock (Dekker): we inject (an atomic, so a full barrier) and then read
   * the run state; shutdown writes the run state and then, under the lock, reads the queue before
   * deciding the executor is empty. If we still read RUNNING, shutdown sees our task and waits
   * for it. If we read a shutdown state, we cannot know whether it saw our task, so we settle it
   * under the lock: our G still queued is taken back out and rejected; one already taken (run by
   * an M, or returned by shutdownNow) counts as accepted. Never lost, never both.
   */
  void submitExternal(Runnable task) {
    if (runState >= SHUTDOWN) {
      throw rejected(task);
    }
    G g = new G();
    g.task = task;
    g.setStatus(G.Grunnable);
    runq.inject(g);
    // Volatile read after the inject's atomic: pairs with shutdown's run-state write followed by
    // its queue read.
    if (runState >= SHUTDOWN && !Mutations.SUBMIT_CHECK_UNLOCKED) {
      boolean withdrawn;
      lock.lock();
      try {
        withdrawn = runq.remove(g);
        tryTidyLocked(); // the queue may just have become empty
      } finally {
        lock.unlock();
      }
      if (withdrawn) {
        throw rejected(task);
      }
    }
    // Unconditional: without the lock our put is not ordered against an M that checked the queue
    // and is about to idle its P, so when no P is idle yet, wakep must set needspinning (which
    // that M reads after its npidle++), exactly as for a local spawn.
    if (!Mutations.EXTERNAL_WAKE_IF_IDLE || (npidle > 0 && nmspinning() == 0)) {
      wakep();
    }
  }

  RejectedExecutionException rejected(Runnable task) {
    return new RejectedExecutionException(
        "Task " + task + " rejected from " + executor + ": executor is shut down");
  }

  // ---------------------------------------------------------------- spinning and waking

  /**
   * wakep: start one spinning M on an idle P, only if no M is spinning already. When no P is idle
   * it sets needspinning instead (Go 1.20), without the lock: the volatile write of needspinning
   * followed by the volatile read of npidle pairs with findRunnable's volatile npidle++ followed
   * by its read of needspinning, so either we see the P go idle or its M sees the flag.
   */
  void wakep() {
    if (nmspinning() != 0) {
      return;
    }
    if (npidle == 0) {
      if (needspinning == 0) {
        needspinning = 1;
      }
      if (npidle == 0) {
        return;
      }
    }
    if (!NMSPINNING.compareAndSet(this, 0, 1)) { // CAS: only one waker wins the right to spin up
      return;
    }
    M nmp;
    lock.lock();
    try {
      // pidleget and mget under one acquisition of the lock (one lock round trip per wake-up:
      // JFR showed local spawns spending most of their wakep time acquiring it).
      P pp = pidleget();
      if (pp == null) {
        needspinning = 1;
        NMSPINNING.getAndAdd(this, -1);
        return;
      }
      nmp = claimMLocked(pp, true);
    } finally {
      lock.unlock();
    }
    launch(nmp);
  }

  void becomeSpinning(M m) {
    m.spinning = true;
    NMSPINNING.getAndAdd(this, 1);
    needspinning = 0;
  }

  /**
   * resetspinning: a spinner found work; if it was the last, wake another so none is missed. Go
   * wakes unconditionally. Here the wake happens only if work is still visible after the
   * decrement: a submitter that saw us spinning skipped its own wakep, and its StoreLoad pairs
   * with the full barrier of our getAndAdd, so either it saw nmspinning == 0 and woke someone
   * itself, or we see its work now. Skipping the blind wake spares the found task a lock and an
   * unpark before it starts, and the woken M a spin and a park (1.5 parks per task in bursts).
   */
  void resetspinning(M m) {
    m.spinning = false;
    NMSPINNING.getAndAdd(this, -1); // full barrier before the queue reads below
    if (Switches.SPIN_WAKE_ALWAYS || workVisible()) {
      wakep();
    }
  }

  /**
   * Whether any queue holds a G another M could take (the global queue or any P's ring and
   * runnext; volatile reads). Both halves of the spinning protocol ask it after their full
   * barrier: resetspinning, and the spinner's last look (Schedule.recheck).
   */
  boolean workVisible() {
    if (runq.size() != 0) {
      return true;
    }
    for (P p : procs.all) {
      if (!p.runq.isEmpty()) {
        return true;
      }
    }
    return false;
  }

  /** Leaves the spinning state; getAndAdd is a full barrier before the caller's rechecks. */
  void dropSpinning(M m) {
    m.spinning = false;
    if (Mutations.DROP_SPINNING_NO_FENCE) {
      NMSPINNING.setRelease(this, (int) NMSPINNING.getAcquire(this) - 1);
      return;
    }
    NMSPINNING.getAndAdd(this, -1);
  }

  // ---------------------------------------------------------------- Ms

  /**
   * startm: run {@code pp} on an idle M, or a new one. If no thread can be had (maxThreads, or
   * the ThreadFactory fails) the P goes back to the idle list and queued work waits for the Ms
   * that exist; the failure is counted in stats.
   */
  void startm(P pp, boolean spinning) {
    M nmp;
    lock.lock();
    try {
      nmp = claimMLocked(pp, spinning);
    } finally {
      lock.unlock();
    }
    launch(nmp);
  }

  /**
   * The locked half of startm: an idle M, or a new one (not yet started: thread == null), with
   * pp in nextp; null if no M can be had (then pp went back to the idle list). Lock held.
   */
  private M claimMLocked(P pp, boolean spinning) {
    M nmp = mget();
    if (nmp == null) {
      if (mcount >= config.maxThreads() || runState >= TIDYING) {
        startFailedLocked(pp, spinning, null);
        return null;
      }
      nmp = new M(this, mnext++);
      mcount++;
      M[] ms = Arrays.copyOf(allm, allm.length + 1);
      ms[ms.length - 1] = nmp;
      allm = ms;
    }
    nmp.spinning = spinning;
    nmp.nextp = pp;
    return nmp;
  }

  /** The unlocked half of startm: start the new M's thread, or wake the idle one. */
  private void launch(M nmp) {
    if (nmp == null) {
      return;
    }
    if (nmp.thread == null) {
      newm(nmp, nmp.nextp, nmp.spinning);
    } else if (nmp.wakeup()) {
      unparks.increment();
    }
  }

  private void newm(M m, P pp, boolean spinning) {
    Thread t = null;
    try {
      t = config.threadFactory().newThread(m);
      if (t == null) {
        throw new IllegalStateException("ThreadFactory returned null");
      }
      m.thread = t;
      threads.add(t);
      t.start();
    } catch (Throwable e) {
      if (t != null) {
        threads.remove(t);
      }
      lock.lock();
      try {
        mcount--;
        removeFromAllm(m);
        startFailedLocked(pp, spinning, e);
      } finally {
        lock.unlock();
      }
    }
  }

  private void startFailedLocked(P pp, boolean spinning, Throwable e) {
    threadStartFailures.increment();
    if (e != null) {
      lastThreadStartFailure = e;
    }
    if (spinning) {
      NMSPINNING.getAndAdd(this, -1);
    }
    // An idle P must have an empty run queue (Go's pidleput throws otherwise): thieves skip idle
    // Ps, and an M that drops its P and rechecks gets its own P back from the LIFO idle list, so
    // work left on an idle P (handoffp after a retake with a failing ThreadFactory) was stranded
    // while that M spun forever. Nobody owns pp here, so move its work to the global queue, which
    // every M checks under this lock before it parks.
    GQueue q = new GQueue();
    pp.runq.drainTo(q);
    runq.putBatch(q);
    // An M may have parked since we looked for one (it dropped its P while we tried to start a
    // thread): with work queued, hand it this P rather than idling the P next to the work.
    // (The other order, the P idled before that M parks, is caught in stopm.)
    if (runq.size() != 0 && pp.status() != P.Pdead) {
      M idle = mget();
      if (idle != null) {
        idle.spinning = false;
        idle.nextp = pp;
        if (idle.wakeup()) {
          unparks.increment();
        }
        return;
      }
    }
    pidleput(pp);
    tryTidyLocked();
  }

  private void removeFromAllm(M m) {
    M[] ms = allm;
    int i = Arrays.asList(ms).indexOf(m);
    if (i >= 0) {
      M[] next = new M[ms.length - 1];
      System.arraycopy(ms, 0, next, 0, i);
      System.arraycopy(ms, i + 1, next, i, ms.length - i - 1);
      allm = next;
    }
  }

  /**
   * stopm: park this M on the idle list until startm hands it a P. Returns false when the M must
   * exit instead (the executor terminates, or the M idled past keepAlive while more Ms exist than
   * Ps need).
   */
  boolean stopm(M m) {
    for (; ; ) {
      P ready = null;
      lock.lock();
      try {
        if (runState >= TIDYING) {
          return false;
        }
        if (runq.size() != 0) {
          // Work queued next to an idle P that nobody was started for (a failed thread start
          // while we were between dropping our P and parking): take it instead of parking.
          ready = pidleget();
        }
        if (ready == null) {
          mput(m);
        }
      } finally {
        lock.unlock();
      }
      if (ready != null) {
        if (acquirep(m, ready)) {
          return true;
        }
        continue;
      }
      parks.increment();
      while (!m.sleep(config.keepAliveNanos())) {
        lock.lock();
        try {
          if (m.onIdleList && mcount > gomaxprocs) {
            mremove(m);
            threads.remove(m.thread);
            return false;
          }
        } finally {
          lock.unlock();
        }
        // Still needed (or a wake-up is on its way): keep waiting.
      }
      if (m.exitRequested) {
        return false;
      }
      P pp = m.nextp;
      m.nextp = null;
      if (pp != null && acquirep(m, pp)) {
        return true;
      }
      // The P was retired while handed to us: go back to sleep.
      if (m.spinning) {
        dropSpinning(m);
      }
    }
  }

  private void mput(M m) {
    m.schedlink = midle;
    midle = m;
    m.onIdleList = true;
    nmidle++;
  }

  private M mget() {
    M m = midle;
    if (m != null) {
      midle = m.schedlink;
      m.schedlink = null;
      m.onIdleList = false;
      nmidle--;
    }
    return m;
  }

  private void mremove(M m) {
    M prev = null;
    for (M x = midle; x != null; prev = x, x = x.schedlink) {
      if (x == m) {
        if (prev == null) {
          midle = x.schedlink;
        } else {
          prev.schedlink = x.schedlink;
        }
        x.schedlink = null;
        x.onIdleList = false;
        nmidle--;
        return;
      }
    }
  }

  /** The M of this executor running on the calling thread, or null. */
  M currentM() {
    Thread t = Thread.currentThread();
    M[] tab = mByThread; // volatile read: sees a table whose Ms have their runner set
    int mask = tab.length - 1;
    for (int i = (int) t.threadId() & mask; ; i = (i + 1) & mask) {
      M m = tab[i];
      if (m == null || m.runner == t) {
        return m; // the table is at most half full, so an empty slot ends every probe
      }
    }
  }

  /** M.run registers its thread before scheduling anything. */
  void registerRunner(M m) {
    lock.lock();
    try {
      rebuildMByThread(m, null);
    } finally {
      lock.unlock();
    }
  }

  private void rebuildMByThread(M add, M remove) {
    M[] old = mByThread;
    int live = add != null ? 1 : 0;
    for (M x : old) {
      if (x != null && x != remove) {
        live++;
      }
    }
    int size = 8;
    while (size < 2 * live) {
      size <<= 1;
    }
    M[] tab = new M[size];
    for (M x : old) {
      if (x != null && x != remove) {
        insert(tab, x);
      }
    }
    if (add != null) {
      insert(tab, add);
    }
    mByThread = tab; // volatile write: publishes the filled table
  }

  private static void insert(M[] tab, M m) {
    int mask = tab.length - 1;
    int i = (int) m.runner.threadId() & mask;
    while (tab[i] != null) {
      i = (i + 1) & mask;
    }
    tab[i] = m;
  }

  /** Called by every M thread on its way out. */
  void mexit(M m) {
    lock.lock();
    try {
      if (m.runner != null) {
        rebuildMByThread(null, m);
      }
      if (m.p != null) { // only if the scheduler itself failed: never strand a P
        P pp = releasep(m);
        pp.casStatus(P.Prunning, P.Pidle);
        pidleput(pp);
      }
      if (m.onIdleList) {
        mremove(m);
      }
      if (m.spinning) {
        dropSpinning(m);
      }
      mcount--;
      removeFromAllm(m);
      retiredCompleted += m.completed();
      retiredSteals += m.steals();
      tryTerminateLocked();
    } finally {
      lock.unlock();
    }
  }

  // ---------------------------------------------------------------- Ps

  /** acquirep: binds pp to m. False if pp was retired while in transit to m. */
  boolean acquirep(M m, P pp) {
    if (!pp.casStatus(P.Pidle, P.Prunning)) { // CAS: setParallelism may retire it concurrently
      lock.lock();
      try {
        zombieDoneLocked(pp);
      } finally {
        lock.unlock();
      }
      return false;
    }
    pp.setM(m);
    m.p = pp;
    return true;
  }

  P releasep(M m) {
    P pp = m.p;
    m.p = null;
    pp.setM(null);
    return pp;
  }

  /** pidleput; a P retired in transit is finished off instead. Lock held. */
  void pidleput(P pp) {
    if (pp.status() == P.Pdead) {
      zombieDoneLocked(pp);
      return;
    }
    pp.setStatus(P.Pidle);
    pp.link = pidle;
    pidle = pp;
    npidle = npidle + 1; // volatile write under the lock (see wakep)
  }

  /** pidleget. Lock held. */
  P pidleget() {
    P pp = pidle;
    if (pp != null) {
      pidle = pp.link;
      pp.link = null;
      npidle = npidle - 1;
      // No sysmon wake-up here (Go wakes it only from exitsyscall): unparking it in the
      // submitter's wakep put a second unpark, and a second runnable thread, in front of the
      // first task of every burst (p50 31 -> 7 us without it). The M wakes it after its task.
    }
    return pp;
  }

  /** Takes a specific P off the idle list if it is there (exitsyscall prefers its old P). */
  P pidlegetSpecific(P want) {
    P prev = null;
    for (P x = pidle; x != null; prev = x, x = x.link) {
      if (x == want) {
        if (prev == null) {
          return pidleget();
        }
        prev.link = x.link;
        x.link = null;
        npidle = npidle - 1;
        return x;
      }
    }
    return null;
  }

  /**
   * handoffp: give a P whose M is gone (blocked) to an M that will use it: one with work if the P
   * or the global queue has some, a spinning one if nobody spins and no P is idle, else idle it.
   */
  void handoffp(P pp) {
    handoffs.increment();
    if (!pp.runq.isEmpty() || runq.size() != 0) {
      startm(pp, false);
      return;
    }
    if (nmspinning() + npidle == 0 && NMSPINNING.compareAndSet(this, 0, 1)) {
      needspinning = 0;
      startm(pp, true);
      return;
    }
    boolean work;
    lock.lock();
    try {
      work = runq.size() != 0;
      if (!work) {
        pidleput(pp);
        tryTidyLocked();
      }
    } finally {
      lock.unlock();
    }
    if (work) {
      startm(pp, false);
    }
  }

  /** Finds a P for an M that has none (after a retake); false if the M must exit. */
  boolean reacquire(M m) {
    for (; ; ) {
      P pp;
      lock.lock();
      try {
        pp = pidleget();
      } finally {
        lock.unlock();
      }
      if (pp == null) {
        return stopm(m);
      }
      if (acquirep(m, pp)) {
        return true;
      }
    }
  }

  // ---------------------------------------------------------------- retake and retirement

  /**
   * sysmon retakes a P from an M in a marked blocking call. The CAS Psyscall -> Pidle races the
   * M's exitsyscall CAS; it runs under the lock so that an M whose CAS lost finds itself already
   * marked spare when its slow path takes the lock (else nmspare could leak).
   */
  boolean retakeSyscall(P pp, int tok) {
    lock.lock();
    try {
      M mp = pp.m(); // read after tok: the CAS below proves tok (and so this M) is unchanged
      if (!pp.retakeSyscall(tok)) {
        return false;
      }
      pp.setM(null);
      if (mp != null && !mp.spare) {
        mp.spare = true;
        nmspare++;
      }
      retakes.increment();
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * sysmon takes the P of an M whose task has held it for a time slice while work waits (the
   * task blocks without saying so, or hogs the CPU). Java cannot stop the task, so the M keeps
   * running it P-less and the P's permit moves to a new P object on another M: the old object
   * becomes a zombie whose ring only its old M may still push to, swept by sysmon until that M
   * notices at its next scheduling point. Bounded by maxSpareThreads.
   */
  boolean retakeRunning(P pp, M mp, G gp, boolean blocked) {
    P np;
    lock.lock();
    try {
      if (nmspare >= config.maxSpareThreads() || runState >= TIDYING) {
        return false;
      }
      if (pp.m() != mp || mp.curg() != gp || procs.all.length <= pp.id || procs.all[pp.id] != pp) {
        return false;
      }
      if (!pp.casStatus(P.Prunning, P.Pdead)) { // CAS: races entersyscall and setParallelism
        return false;
      }
      if (blocked) {
        gp.casStatus(G.Grunning, G.Gwaiting);
      }
      np = new P(pp.id);
      moveWorkLocked(pp, np);
      procs = procs.replace(pp.id, np);
      zombies.add(pp);
      if (!mp.spare) {
        mp.spare = true;
        nmspare++;
      }
      retakes.increment();
    } finally {
      lock.unlock();
    }
    handoffp(np);
    return true;
  }

  /** Moves a dead P's queued work to its replacement, runnext staying runnext. Lock held. */
  private void moveWorkLocked(P from, P to) {
    G next = from.runq.takeRunnext();
    GQueue q = new GQueue();
    from.runq.drainTo(q);
    to.runq.putBatch(q);
    runq.putBatch(q); // what did not fit (cannot happen: both rings are 256)
    if (next != null) {
      to.runq.put(next, true, runq);
    }
  }

  /** The M noticed its P is dead (or was taken): clean up and leave it P-less. */
  void dropOrphan(M m) {
    boolean moved;
    lock.lock();
    try {
      moved = dropOrphanLocked(m);
      tryTidyLocked();
    } finally {
      lock.unlock();
    }
    if (moved) {
      wakep();
    }
  }

  boolean dropOrphanLocked(M m) {
    P pp = m.p;
    m.p = null;
    if (m.spare) {
      m.spare = false;
      nmspare--;
    }
    boolean moved = false;
    if (pp != null && pp.status() == P.Pdead && pp.m() == m) {
      moved = zombieDoneLocked(pp);
    }
    return moved;
  }

  /** A zombie's owner is done with it: move what it still holds to the global queue. */
  private boolean zombieDoneLocked(P pp) {
    pp.setM(null);
    zombies.remove(pp);
    GQueue q = new GQueue();
    pp.runq.drainTo(q);
    boolean moved = !q.isEmpty();
    runq.putBatch(q);
    return moved;
  }

  /** sysmon: move whatever zombies' late pushes left behind to the global queue. */
  int sweepZombies() {
    if (zombies.isEmpty()) { // racy peek; an add is followed by sysmon's own next tick anyway
      return 0;
    }
    boolean moved = false;
    lock.lock();
    try {
      GQueue q = new GQueue();
      for (P z : zombies) {
        z.runq.drainTo(q);
      }
      moved = !q.isEmpty();
      runq.putBatch(q);
    } finally {
      lock.unlock();
    }
    if (moved) {
      wakep();
      return 1;
    }
    return 0;
  }

  /**
   * GOMAXPROCS(n) without stopping the world: new Ps join the idle list; Ps past n die. A dead P
   * with an M goes on the zombie list; the M sees Pdead at its next scheduling point (or its
   * exitsyscall CAS fails), moves what is left to the global queue and looks for a live P.
   */
  void setParallelism(int n) {
    lock.lock();
    try {
      int old = gomaxprocs;
      if (n == old) {
        return;
      }
      P[] cur = procs.all;
      if (n > old) {
        P[] next = Arrays.copyOf(cur, n);
        for (int i = old; i < n; i++) {
          next[i] = new P(i);
        }
        procs = new Procs(next);
        gomaxprocs = n;
        for (int i = n - 1; i >= old; i--) {
          pidleput(next[i]);
        }
      } else {
        procs = new Procs(Arrays.copyOf(cur, n));
        gomaxprocs = n;
        GQueue q = new GQueue();
        for (int i = n; i < old; i++) {
          P pp = cur[i];
          if (pidlegetSpecific(pp) != null) {
            pp.setStatus(P.Pdead);
          } else {
            for (; ; ) { // CAS loop: the owner may be entering or leaving a syscall right now
              int s = pp.status();
              if (s == P.Pdead || pp.casStatus(s, P.Pdead)) {
                break;
              }
            }
            zombies.add(pp);
          }
          pp.runq.drainTo(q);
        }
        runq.putBatch(q);
        tryTidyLocked();
      }
    } finally {
      lock.unlock();
    }
    wakep();
  }

  // ---------------------------------------------------------------- lifecycle

  void shutdown() {
    lock.lock();
    try {
      if (runState < SHUTDOWN) {
        runState = SHUTDOWN;
      }
      tryTidyLocked();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Drains every queue (global, each P's ring and runnext, zombies) under the lock. A G whose
   * task already started (one waiting for a P after a blocking call) goes back on the queue; all
   * others are returned. Then every worker thread is interrupted; workers re-check the state
   * after clearing a stale interrupt, so a task starting concurrently still sees it (as
   * ThreadPoolExecutor does).
   */
  List<Runnable> shutdownNow() {
    List<Runnable> out = new ArrayList<>();
    lock.lock();
    try {
      if (runState < STOP) {
        runState = STOP;
      }
      GQueue q = new GQueue();
      runq.drainTo(q);
      for (P pp : procs.all) {
        pp.runq.drainTo(q);
      }
      for (P z : zombies) {
        z.runq.drainTo(q);
      }
      for (G g = q.pop(); g != null; g = q.pop()) {
        if (g.lockedm != null) {
          runq.put(g);
        } else {
          out.add(g.task);
          g.task = null;
          g.setStatus(G.Gdead);
        }
      }
      tryTidyLocked();
      for (M m : allm) {
        Thread t = m.thread;
        if (t != null) {
          t.interrupt();
        }
      }
    } finally {
      lock.unlock();
    }
    return out;
  }

  /** When shut down and nothing is queued, running or blocked: tell every thread to exit. */
  void tryTidyLocked() {
    if (runState < SHUTDOWN || runState >= TIDYING) {
      return;
    }
    if (npidle != gomaxprocs || runq.size() != 0 || nmspare != 0 || !zombies.isEmpty()) {
      return;
    }
    runState = TIDYING;
    for (M m = mget(); m != null; m = mget()) {
      m.exitRequested = true;
      if (m.wakeup()) {
        unparks.increment();
      }
    }
    sysmonWaiting = false;
    sysmon.wake();
    tryTerminateLocked();
  }

  private void tryTerminateLocked() {
    if (runState == TIDYING && mcount == 0 && sysmonExited) {
      runState = TERMINATED;
      terminated.countDown();
    }
  }

  void sysmonExit() {
    lock.lock();
    try {
      sysmonExited = true;
      tryTerminateLocked();
    } finally {
      lock.unlock();
    }
  }

  /**
   * sysmon may sleep until woken when every P is idle: sets (or clears) sysmonWaiting to match.
   * Returns true if it should park.
   */
  boolean sysmonMaySleep() {
    if ((npidle != gomaxprocs || nmspare != 0) && !sysmonWaiting) {
      return false;
    }
    lock.lock();
    try {
      sysmonWaiting =
          npidle == gomaxprocs && nmspare == 0 && zombies.isEmpty() && runState < TIDYING;
      return sysmonWaiting;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Ends sysmon's deep sleep. Called by an M between tasks (and by entersyscall), never by a
   * submitter: the first task after an idle period starts without paying for it.
   */
  void wakeSysmonIfWaiting() {
    lock.lock();
    try {
      if (sysmonWaiting) {
        sysmonWaiting = false;
        sysmon.wake();
      }
    } finally {
      lock.unlock();
    }
  }

  void uncaught(Thread t, Throwable e) {
    Thread.UncaughtExceptionHandler h = config.uncaughtExceptionHandler();
    if (h == null) {
      h = t.getUncaughtExceptionHandler();
    }
    try {
      h.uncaughtException(t, e);
    } catch (Throwable ignored) {
      // A throwing handler must not take the worker (and its P) down with it.
    }
  }

  // ---------------------------------------------------------------- stats

  GmpStats stats() {
    P[] all = procs.all;
    int local = 0;
    for (P pp : all) {
      local += pp.runq.size();
    }
    int running = 0;
    int syscall = 0;
    int waiting = 0;
    long completed = retiredCompleted;
    long steals = retiredSteals;
    for (M m : allm) {
      completed += m.completed();
      steals += m.steals();
      G g = m.curg();
      if (g != null) {
        switch (g.status()) {
          case G.Grunning -> running++;
          case G.Gsyscall -> syscall++;
          case G.Gwaiting -> waiting++;
          default -> {}
        }
      }
    }
    int global = runq.size();
    return new GmpStats(
        gomaxprocs,
        mcount,
        nmidle,
        nmspinning(),
        npidle,
        global,
        local,
        global + local,
        running,
        syscall,
        waiting,
        completed,
        steals,
        parks.sum(),
        unparks.sum(),
        threadStartFailures.sum(),
        handoffs.sum(),
        retakes.sum(),
        preemptionRequests.sum(),
        nmspare,
        sysmonWakeups.sum());
  }
}
