package dev.gmp;

import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntToLongFunction;

/**
 * The scheduler's root (Go's {@code schedt}): allp, the run state, the lock, and the entry points
 * that make a task runnable (newproc). Everything else is one concept per class, named as in the
 * seeds: {@link G}, {@link M}, {@link P}; {@link RunQueue} (runq + runnext); {@link GlobalQueue}
 * (sched.runq + the injection side); {@link Idle} (pidle, midle, spinning, wakep / startm / stopm
 * / handoffp); {@link SchedulingLoop} (schedule / findRunnable / execute); {@link Steal}
 * (stealWork); {@link Syscall} (entersyscall / exitsyscall); {@link Spares} (the spare budget,
 * and an M without a P getting one); {@link Sysmon}, {@link SysmonRetake} and {@link Retake}
 * ({@link TimerSlack}: sysmon's sleeps on time while it retakes); {@link BlockDetector} and {@link
 * CpuClock} (unmarked blocking); {@link Oversubscription} (do threads
 * wait for a CPU); {@link Resize} (procresize); {@link Threads}
 * (allm, newm, check-in, mexit); {@link ThreadTable} (the current M); {@link Lifecycle}
 * (shutdown, tidy, terminate); {@link Counters} (stats); {@link GFree} (gfput / gfget); {@link
 * Timers}, {@link TimerSleeper}, {@link TimerHeap}, {@link ScheduledTask}
 * (p.timers, checkTimers, pollUntil); {@link Carriers} (JDK virtual threads carried by the Ms)
 * and {@link VirtualThreads} (the JDK-internal adapter).
 *
 * <h2>Implementation overview</h2>
 *
 * <p><b>Ownership.</b> One lock ({@link #lock}, Go's sched.lock) guards the global queue's array
 * and its consumer side, the idle-P and idle-M lists, mcount / allm, the zombie list, the
 * starting list and the run-state transitions but shutdownNow's STOP (each a CAS that only
 * raises the state, so that STOP can be written first). The spare count changes by CAS only (a
 * blocking call that work waits behind counts itself, and its return settles, without the lock:
 * Spares#takeFree).
 * The hot paths take no lock: a P's ring is single-producer (its owner M) and multi-consumer
 * (owner and thieves, by CAS on head; the owner also pops newest first from the tail, above the
 * half a thief may be claiming: RunQueue#popNewest); runnext is CASed by owner and thieves;
 * spinning counts are atomics; outside submitters inject without the lock. Nothing done under the
 * lock waits for another thread's progress; no lock hold is longer than one batch (129 Gs), bar
 * shutdownNow.
 * The references stored per task (a P's ring and runnext slots, an M's running G) live in
 * {@link CardIsland}s, so that under card-marking collectors no two Ms write one card-table
 * line; a drained zombie's island is reused (Retake), only once its M let go.
 *
 * <p><b>Invariants.</b>
 *
 * <ul>
 *   <li>Every P of allp is exactly one of: <i>idle</i> (Pidle, on the idle list, ring empty),
 *       <i>held</i> (Prunning or Psyscall, {@code p.m()} its M, {@code m.p} it), <i>in
 *       transit</i> (Pidle, on no list, in exactly one M's nextp: startm to the M's acquirep;
 *       an idle M's, if it is late to wake, may be taken back by an M that needs a P,
 *       {@link Spares#takeLateHandoffLocked}),
 *       <i>in hand</i> (Pidle, on no list, in one thread's local variable between taking and
 *       placing or acquiring it, {@link P#heldBy} that thread: if an Error ends the step, that
 *       thread gives it back, {@link Idle#reclaimHeldLocked}; in transit or in hand, {@code
 *       p.m()} may already name the M whose acquirep is about to CAS it to Prunning),
 *       <i>zombie</i> (Pdead, on {@link Retake#zombies}, still held by an M that has not noticed)
 *       or <i>dead</i> (Pdead, on no list, ring empty). A P on the idle list has an empty ring:
 *       thieves skip such Ps ({@code P.onIdleList}), so whoever idles a P first moves its ring to
 *       the global queue ({@link Idle#returnPLocked}); a P in transit may hold work and is stolen
 *       from like a running one.
 *   <li>No P idles while an M waits for one to finish its task (a stand-in on the global queue,
 *       M#asLocked) and no other M can take it: an M that schedules dequeues the stand-in and
 *       hands over its P (SchedulingLoop#startlockedm); a P given away with no M to take it goes
 *       to the oldest waiting M directly ({@link Idle#handToLockedLocked}).
 *   <li>Only the owning M pushes to a P's ring; a zombie's ring only its old M, until it drops it.
 *   <li>nmspinning counts Ms with {@code spinning} set, including an M in transit that was
 *       started spinning; an M that is written off or exits, or whose P is taken back while its
 *       thread is late, gives its count back (with Go's recheck: Idle#unclaimSpinning).
 *   <li>mcount counts Ms from allocm until mexit, or until its thread is known never to run it
 *       (died, never started: a write-off). A live thread that is late to check in is never
 *       written off: its nextp P (and spinning count) is taken back by CAS, so no P stays in
 *       transit to a thread that does not run, and it stays counted against maxThreads, not
 *       against the spare budget ({@link Threads#roomLocked}).
 *   <li>Go's one invariant: task code runs on a CPU on at most gomaxprocs Ms, those holding Ps,
 *       plus spares finishing the task whose block cost them their P (ForkJoinPool's
 *       compensation). A P is handed away only from a task that is off the CPU: a marked call
 *       (Psyscall), or a task sysmon finds blocked (SysmonRetake); never from a running task. A
 *       spare never starts another task without a P (Spares). Spares are counted
 *       (Spares#count) and never exceed maxSpareThreads: every count is reserved before the CAS
 *       that takes a P (Spares#reserve).
 *   <li>A G is on at most one queue; a G taken from the global queue is marked {@code taken}, and
 *       an outside submitter that lost the race with shutdown withdraws its G only if it is not.
 *       A submitted task's future is its own G, queued at most once (submit queues the one it
 *       makes; invokeAll's executeFuture claims each by HelpingFuture#claimQueue) and never
 *       recycled.
 * </ul>
 *
 * <p><b>Dekker pairs</b> (seed 000 section 9.3.5: each side writes its own word, full fence,
 * reads the other's; then at least one side sees the other):
 *
 * <ol type="A">
 *   <li>Work vs spinner. Submitter: put the G (RunQueue#put's runnext getAndSet, or the ring's
 *       release store + a fence: RunQueue#putNext without runnext, {@link #submitInOrder}; {@link
 *       GlobalQueue#inject}'s fence), then
 *       read nmspinning ({@link Idle#wakep}; outside work: {@link Idle#wakeForInjected}, which
 *       reads it first and calls wakep when it is 0). Spinner: decrement nmspinning by getAndAdd ({@link
 *       Idle#dropSpinning}, {@link Idle#resetspinning}), then read every queue ({@link
 *       Idle#workVisible}, from SchedulingLoop#spinnerLastLook and resetspinning).
 *   <li>needspinning vs idling. wakep: needspinning = 1, then read npidle. SchedulingLoop#dropP:
 *       npidle++ (Idle#pidleput), then read needspinning. A spinner's recheck that finds work but
 *       no idle P sets needspinning under the lock (Go's pidlegetSpinning), read by dropP under it.
 *   <li>Outside submit vs shutdown. {@link #submitExternal}: inject + fence, then read runState.
 *       Lifecycle#shutdown: write runState, then (lock) read the global queue's live size in
 *       Lifecycle#tryTidyLocked. A submitter that reads a shut-down state settles under the lock:
 *       withdrawn (rejected) if nobody took its G, accepted otherwise.
 *   <li>Idle M note. Idle#launch / startm: write nextp, then M#wakeup's getAndSet of the note.
 *       M#sleep: CAS the note to PARKED, then park; a waker that sees PARKED unparks.
 *   <li>sysmon's deep sleep is decided and ended under the lock (Sysmon#maySleep,
 *       Sysmon#wakeIfWaiting); whoever queues work that no idle P can take (Idle#wakep with
 *       npidle == 0, a spinner's recheck, a lazy runnext put) reads {@code Sysmon.waiting}
 *       racily and rechecks under it. sysmon sets it only while every P is idle, and a P leaves
 *       the idle list under the lock, so a reader that saw npidle == 0 sees a deep sleep that
 *       began before.
 *   <li>Timer add vs the timer sleeper. {@link Timers#add}: the heap write (nextWhen, a
 *       volatile store in TimerHeap#addLocked), then {@link Timers#added}'s fence, then read
 *       {@code TimerSleeper.until} and kick if it is later (an add that leaves nextWhen as it
 *       was compares it with {@code until} unfenced, for a kick an interrupted add missed).
 *       {@link TimerSleeper#publish}: write {@code until}, fence, re-read every heap. With
 *       no sleeper: the adder reads npidle (wakep) against stopm's npidle++, fence, heap reads in
 *       {@link TimerSleeper#claimSleeperLocked}. A timer add vs shutdown, and vs a retire or
 *       retake of its P, is settled by the heap lock (Timers#add's comment).
 *   <li>Virtual-thread start vs shutdown. Carriers#admit: add to the live set, fence, then read
 *       runState. Lifecycle#shutdown: write runState, then (lock) read the live count in
 *       tryTidyLocked.
 *       A start that reads a shut-down state settles under the lock (refused only once TIDYING).
 *   <li>A submitted task's end vs its waiters. HelpingFuture's run or cancel: CAS the state out
 *       of PENDING, then read the waiters' latch and count it down (HelpingFuture#wakeWaiters;
 *       a waiter's run in place probes the stack in between, FutureEndInPlaceVsWaiterStress).
 *       A waiter about to block: put the latch in place by CAS, then read the state
 *       (HelpingFuture#latchToWaitOn).
 *   <li>The owner's newest-first pop vs a thief's claim. RunQueue#popNewest: lower tail (volatile
 *       store), then read head. RunQueue#grab: read head, then tail, then CAS head. A thief that
 *       read the old tail claims below the bound popNewest checks against the head it read.
 *   <li>A retake vs the M's next task. Retake#retakeRunning (lock held): write the claim
 *       (M#retakeClaim), fence, read the M's completed count; unchanged, mark the P dead, else
 *       withdraw the claim. The M: store its count at a task's end (SchedulingLoop#endTask),
 *       take its next G by a CAS or under the lock (findRunnable), then read the claim
 *       (SchedulingLoop#mayStart); one it sees is settled under the lock, where a G taken for a
 *       dead P goes to the global queue unstarted (Retake#mayStartAfterClaim). A shrink
 *       (Resize#retireLocked) marks a retired P dead (CAS), then reads its owner and writes the
 *       same claim on it; an M taking a P in transit writes itself as owner before its CAS
 *       (Scheduler#acquirep). Whichever CAS came second sees the other's side: acquirep's fails,
 *       or the shrink reads that M. A start that misses the claim came before the call returned.
 * </ol>
 *
 * <p><b>CAS arbitrations</b> (one winner, no fence argument): exitsyscall's fast path vs sysmon's
 * retake, the eager hand-off and another returning M's take (Retake#takeSyscallPLocked, or without
 * the lock Spares#takeFree) on the P status token (61-bit generation: no ABA); a call counting
 * itself vs sysmon counting it (M#markSpare); retakeRunning vs entersyscall and setParallelism on
 * Prunning; M#run's check-in vs the write-off on the M's life state; a late idle M's pickup of its
 * hand-off (M#takeNextp, Idle#stopm) vs another M taking it back (M#cancelNextp,
 * Spares#takeLateHandoffLocked) on that M's nextp; a submitted task's run by its M, by a waiter in
 * place and shutdownNow's return of it on the future's runner (HelpingFuture#run,
 * HelpingFuture#runInPlace, HelpingFuture#claimForReturn); an execute of a future vs another on its G's status
 * (HelpingFuture#claimQueue); outside submitters on sysmon's nudge (Sysmon#nudge: the winner
 * unparks it; no fence needed, LockSupport keeps an unpark that comes before the park).
 *
 * <p>docs/design.md maps each seed mechanism onto these classes.
 */
final class Scheduler extends SchedulerPad1 {
  // Run states, ordered (ThreadPoolExecutor's).
  static final int RUNNING = 0;
  static final int SHUTDOWN = 1;
  static final int STOP = 2;
  static final int TIDYING = 3;
  static final int TERMINATED = 4;

  private static final AtomicLongFieldUpdater<SchedulerGoid> U_GOIDGEN =
      AtomicLongFieldUpdater.newUpdater(SchedulerGoid.class, "goidgen");
  private static final AtomicIntegerFieldUpdater<Scheduler> U_RUN_STATE =
      AtomicIntegerFieldUpdater.newUpdater(Scheduler.class, "runState");

  final Config config;
  final ReentrantLock lock = new SchedLock(); // never queues a virtual thread (SchedLock)
  final GlobalQueue global = new GlobalQueue(lock, new GoidSource(this));
  final Idle idle = new Idle(this);
  final Threads threads = new Threads(this);
  final Retake retake = new Retake(this);
  final Spares spares = new Spares(this);
  final Counters counters = new Counters();
  final Timers timers = new Timers(this);
  final Reports reports = new Reports(this);
  final Sysmon sysmon;
  /** Released once TERMINATED and the termination actions ran (Lifecycle#finishTermination). */
  final CountDownLatch terminated = new CountDownLatch(1);

  /** Run once at termination, outside the lock (JMX unregistration, JFR hooks). */
  final List<Runnable> terminationActions = new CopyOnWriteArrayList<>();

  /** Who runs the termination actions: the first to CAS it (Lifecycle#finishTermination). */
  private final AtomicBoolean terminationClaimed = new AtomicBoolean();

  /** The executor, weakly: threads must not keep it reachable (see GmpExecutor's Cleaner). */
  WeakReference<GmpExecutor> owner = new WeakReference<>(null);

  /** allp and its steal order; replaced whole (volatile publication of an immutable snapshot). */
  volatile Procs procs;

  /** GOMAXPROCS. Written under the lock, read anywhere. */
  volatile int gomaxprocs;

  /**
   * The parallelism was set explicitly (Builder#parallelism, setParallelism, the MXBean): sysmon
   * no longer follows availableProcessors(). Written under the lock, where Resize also decides;
   * volatile so that sysmon can skip reading the CPU count without taking the lock.
   */
  volatile boolean parallelismPinned;

  /**
   * Only ever raised ({@link #advanceRunState}), under the lock but for shutdownNow's STOP;
   * volatile: submitters and Ms read it without (Dekker C).
   */
  volatile int runState = RUNNING;

  /**
   * The tasks Ms took at STOP while shutdownNow drained the queues (Lifecycle#takenAtStop): its
   * list gets them. Made by the first such M; guarded by the lock.
   */
  List<Runnable> takenAtStop;

  /** shutdownNow's drain is over: an M at STOP runs what it takes. Guarded by the lock. */
  boolean stopDrained;

  /**
   * Whether new Gs are sampled for scheduling latency (SchedLatency): off until the first demand
   * (recordLatency), since the sampled path in newG, even untaken 63 times in 64, cost every local
   * spawn about a tenth of its time, where an untaken test of this flag costs nothing measurable
   * (docs/benchmarks.md, "Scheduling latency on demand"). Volatile: set once, by a monitoring
   * thread; a spawn that misses the store is one sample fewer.
   */
  volatile boolean sampleLatency;

  /** The virtual-thread scheduler (Carriers#of, under the lock), or null until the first. */
  volatile Carriers carriers;

  // Global free-G list (Go's sched.gFree), guarded by the lock; the count is a racy hint outside.
  G gFreeList;
  volatile int gFreeCount;

  /**
   * @param withSysmon false only for gmp-stress's driven schedulers, whose actors call the
   *     scheduler's steps (and Sysmon#retake) from their own threads
   */
  Scheduler(Config config, boolean withSysmon) {
    Threads.loadMClasses(); // here, not on the way to the first task
    this.config = config;
    if (config.recordLatency()) {
      sampleLatency = true;
    }
    int n = config.parallelism();
    P[] all = new P[n];
    for (int i = 0; i < n; i++) {
      all[i] = new P(i, CardIsland.allocate(RunQueue.LIVE)); // before the lock: 64 KB each
    }
    lock.lock();
    try {
      for (int i = n - 1; i >= 0; i--) {
        idle.pidleput(all[i]);
      }
      procs = new Procs(all);
      gomaxprocs = n;
      parallelismPinned = config.availableProcessors() == null;
    } finally {
      lock.unlock();
    }
    sysmon = new Sysmon(this, withSysmon);
  }

  /** Starts sampling scheduling latency (a read or listener of it, a JFR recording). */
  void recordLatency() {
    if (!sampleLatency) {
      sampleLatency = true;
    }
  }

  /**
   * Raises the run state to {@code target} unless it is there or past it. A CAS, so that no
   * transition can undo another: shutdownNow writes STOP without the lock (Lifecycle#shutdownNow).
   */
  void advanceRunState(int target) {
    for (int c = runState; c < target; c = runState) {
      if (U_RUN_STATE.compareAndSet(this, c, target)) {
        return;
      }
    }
  }

  boolean claimTermination() {
    return terminationClaimed.compareAndSet(false, true); // CAS: one thread runs the actions
  }

  long reserveGoids(int n) {
    return U_GOIDGEN.getAndAdd(this, n); // atomic: Ps refill concurrently (Xadd64)
  }

  /** reserveGoids for the global queue; a class, not a method reference (Threads.DefaultFactory). */
  private static final class GoidSource implements IntToLongFunction {
    private final Scheduler s;

    GoidSource(Scheduler s) {
      this.s = s;
    }

    @Override
    public long applyAsLong(int n) {
      return s.reserveGoids(n);
    }
  }

  // ---------------------------------------------------------------- newproc

  /**
   * execute's decision: from one of our own Ms really running a task on a live P, newproc on that
   * P; from anywhere else (inside blocking() or after a retake the P may be someone else's), the
   * global queue.
   */
  void submit(Runnable task) {
    // execute's path, shaped for C1 to inline whole into execute: each method at most 35 bytes,
    // with at most 4 stack and local slots beyond its parameters (C1InlineStackLimit, counting
    // one the JVM adds). A method C1 leaves out is called, counted and compiled by C2 on its
    // own; C2 then keeps that big code out of execute's later compile (a call per spawn for the
    // JVM's life: benchmarks.md, "One compile for the spawn path"). Futures take submitFuture.
    P pp = callersP();
    if (pp != null) {
      submitLocal(pp, task);
    } else {
      submitExternal(task, null);
    }
  }

  /**
   * Queues a future that is its own G (submit's, or one HelpingFuture#claimQueue claimed): as
   * {@link #submit(Runnable)}, with no G to make.
   */
  void submitFuture(HelpingFuture<?> f) {
    P pp = callersP();
    if (pp != null) {
      rejectIfShutdown(f);
      readyLocal(pp, initG(pp, f, f), false);
    } else {
      submitExternal(f, f);
    }
  }

  /**
   * The P on which the caller, one of our Ms, runs a task, or null: execute's question. Kept
   * apart so that submit stays small enough for C1 to inline into execute.
   */
  private P callersP() {
    M m = ThreadTable.currentM();
    return m == null ? null : m.runningTaskP(this);
  }

  /**
   * As {@link #submit(Runnable)}, but from a worker the task goes to its ring's tail, not runnext,
   * and the ring keeps its order for the owner: a timer due at once runs after those scheduled
   * before it (ScheduledThreadPoolExecutor's FIFO for equal deadlines), not before them.
   */
  void submitInOrder(Runnable task) {
    P pp = callersP();
    if (pp == null) {
      submitExternal(task, null);
      return;
    }
    rejectIfShutdown(task);
    pp.runq.put(newG(pp, task), false, global);
    pp.runq.keepOrder();
    // Dekker (A) without runnext's swap: the put's release store, then wakep's read of
    // nmspinning; a full fence keeps them in that order (as RunQueue#putNext without runnext).
    VarHandle.fullFence();
    idle.wakep();
  }

  /** newproc from one of our workers: the task takes runnext (the seed's "go" statement). */
  void submitLocal(P pp, Runnable task) {
    rejectIfShutdown(task);
    pp.runq.putNext(newG(pp, task), global); // readyLocal, less its lazy wake (C1: as in submit)
    idle.wakep();
  }

  private void rejectIfShutdown(Runnable task) {
    if (runState >= SHUTDOWN) { // volatile: a task seen after SHUTDOWN is rejected
      throw rejected(task);
    }
  }

  /** A runnable G for {@code task} on pp: from pp's free list when gFree is on, else a new one. */
  G newG(P pp, Runnable task) {
    G g = Switches.GFREE ? GFree.get(pp, this) : null; // owner only
    return initG(pp, g != null ? g : new G(), task);
  }

  /** Makes {@code g} a runnable G for {@code task} on pp, with the next goid. */
  private G initG(P pp, G g, Runnable task) {
    int goid = (int) pp.nextGoid(this);
    g.goid = goid;
    // 1 G in 64 is timed from here to execute, once someone asked for it.
    g.task = sampleLatency ? SchedLatency.local(goid, task) : task;
    g.setStatus(G.Grunnable);
    return g;
  }

  /**
   * newproc / goready(next=true) on pp, whose owner is the calling thread (its M, or a virtual
   * thread mounted on it), with no run-state check: a virtual thread's continuation is never
   * rejected (Carriers). With {@code lazyWake} (continuations), a G that took an empty runnext
   * wakes nobody: this M runs it next (Tokio's LIFO slot rule); if this M's task runs on instead,
   * sysmon retakes the P after a slice, or its fallback wakes a spinner (Sysmon#wakeForQueuedWork).
   */
  void readyLocal(P pp, Runnable task, boolean lazyWake) {
    readyLocal(pp, newG(pp, task), lazyWake);
  }

  /** runqput + wakep for g, made runnable on pp by {@link #newG}; as {@link #readyLocal}. */
  private void readyLocal(P pp, G g, boolean lazyWake) {
    if (pp.runq.putNext(g, global) || !lazyWake) {
      idle.wakep();
    } else {
      sysmon.wakeForBacklog(); // nobody woken: sysmon's fallback moves g if our task runs on
    }
  }

  /**
   * Submission from any other thread: onto the global queue's lock-free injection side, then wake
   * a P. Dekker (C) with shutdown: we inject (its CAS is a full barrier) and then read the run state;
   * shutdown writes the run state and then, under the lock, reads the queue before deciding the
   * executor is empty. If we still read RUNNING, shutdown sees our task and waits for it. If we
   * read a shut-down state, we settle it under the lock: our G, if nobody took it yet, is
   * withdrawn and rejected; one already taken (run by an M, or returned by shutdownNow) counts as
   * accepted. Never lost, never both.
   */
  void submitExternal(Runnable task, G own) {
    if (runState >= SHUTDOWN) {
      throw rejected(task);
    }
    G g = own != null ? own : new G();
    g.task = sampleLatency ? SchedLatency.external(task) : task; // as in newG
    injectOrPut(g); // Gidle until a take moves it onto the array (GlobalQueue#withdraw)
    if (runState >= SHUTDOWN && !Mutations.SUBMIT_CHECK_UNLOCKED) {
      boolean withdrawn;
      boolean more;
      // Not with the lock held (StackGuard). Overflowing here leaves g's fate unsettled, as
      // ThreadPoolExecutor's addWorker can: never unaccounted (Ms run it, a tidy-up counts it).
      StackGuard.ensure();
      lock.lock();
      try {
        withdrawn = global.withdraw(g);
        Lifecycle.tryTidyLocked(this); // the queue may just have become empty
        more = global.pendingSizeLocked() != 0;
      } finally {
        lock.unlock();
      }
      Lifecycle.finishTermination(this);
      if (more) {
        idle.wakep(); // Gs accepted behind ours (their producers saw RUNNING) must still run
      }
      if (withdrawn) {
        throw rejected(task);
      }
      return;
    }
    if (threads.mcount == 0) { // volatile: no M at all, so none can run g unless one starts
      startFirstOrReject(g, task);
      return;
    }
    // Unconditional: without the lock our put is not ordered against an M that checked the queue
    // and is about to idle its P, so when no P is idle yet, wakep must set needspinning (which
    // that M reads after its npidle++), exactly as for a local spawn.
    if (!Mutations.EXTERNAL_WAKE_IF_IDLE || (idle.npidle > 0 && idle.nmspinning() == 0)) {
      idle.wakeForInjected();
    }
    if (idle.npidle == 0) {
      sysmon.nudge(); // every P taken: after a blocked retake, the next one may be all that runs g
    }
    idle.wakeAnotherIfStale(); // a spinner counted but late, beside an idle P: one more
  }

  /**
   * The executor has no M at all (none started yet, or every thread start failed): start one for
   * g here, past any backoff, and if no thread can be had, take g back and throw, as
   * ThreadPoolExecutor and ForkJoinPool let the factory's failure reach the caller. Nothing is
   * accepted that no thread can run. An M that appears meanwhile (another submitter's) accepts g.
   */
  private void startFirstOrReject(G g, Runnable task) {
    if (!idle.roomToWake()) {
      return; // accepted: sysmon starts the M (Idle#roomToWake)
    }
    Throwable failure = startFirstM();
    if (failure == null) {
      return;
    }
    boolean withdrawn;
    lock.lock();
    try {
      withdrawn = threads.mcount == 0 && global.withdraw(g);
      Lifecycle.tryTidyLocked(this);
    } finally {
      lock.unlock();
    }
    Lifecycle.finishTermination(this);
    if (withdrawn) {
      throw noThread(task, failure);
    }
  }

  /**
   * Starts an M on an idle P if the executor has none, whatever the backoff; the factory's
   * failure if that failed, else null (an M exists, or now starts). With an M there, wakep.
   */
  Throwable startFirstM() {
    M nm = null;
    Throwable noRoom = null;
    lock.lock();
    try {
      if (threads.mcount == 0 && runState < TIDYING) {
        P pp = idle.pidleget(); // every P is idle: no M holds one
        if (pp != null) {
          nm = idle.claimFirstMLocked(pp);
          noRoom = nm == null ? threads.allocFailureLocked() : null;
        }
      }
    } catch (Throwable e) {
      idle.reclaimHeldLocked(); // an Error between pidleget and the hand-off (P#heldBy)
      throw e;
    } finally {
      lock.unlock();
    }
    if (noRoom != null) {
      return noRoom; // the heap had no room for the M: as a factory's failure
    }
    if (nm == null) {
      idle.wakep(); // an M exists after all: the ordinary path
      return null;
    }
    return threads.newm(nm);
  }

  RejectedExecutionException noThread(Runnable task, Throwable failure) {
    return new RejectedExecutionException("Task " + task + " rejected from GmpExecutor["
        + config.name() + "]: no worker thread could be started (" + failure + ")", failure);
  }

  /**
   * Onto the injection side, lock-free; when it is full, the locked path in bounded steps: move
   * one batch of injected Gs onto the array (which grows), then try again. Each hold of the lock
   * is one batch, whatever the backlog; FIFO from one submitter is kept.
   */
  private void injectOrPut(G g) {
    while (!global.inject(g)) {
      StackGuard.ensure(); // not with the lock held; g is not queued yet
      lock.lock();
      try {
        global.drainInjectedLocked();
      } finally {
        lock.unlock();
      }
    }
    // The element is stored now; the fence orders that store before our reads of nmspinning and
    // the run state (Dekker A and C), so a taker that cannot see the G yet is one whose M we see.
    VarHandle.fullFence();
  }

  /**
   * goready from any other thread, and Gosched: the injection side (or, when full, the locked
   * path) and wakep, with no run-state check: a continuation is never rejected, and one can only
   * come while a virtual thread of ours is alive, which keeps the executor from TIDYING (so Ms
   * are there to run it). The wakep is unconditional for the reason given in submitExternal.
   */
  void readyExternal(Runnable task) {
    G g = new G();
    g.task = sampleLatency ? SchedLatency.external(task) : task; // as in newG
    injectOrPut(g); // Gidle until a take moves it onto the array
    idle.wakeForInjected();
  }

  RejectedExecutionException rejected(Object task) {
    return new RejectedExecutionException(
        "Task " + task + " rejected from GmpExecutor[" + config.name() + "]: executor is shut"
            + " down");
  }

  // ---------------------------------------------------------------- P <-> M

  /** acquirep: binds pp to m. False if pp was retired while in transit to m. */
  boolean acquirep(M m, P pp) {
    // The owner before the status, which publishes it: a shrink that marks pp dead after this
    // CAS reads m as its owner and claims m's next start (Resize#retireLocked). Written after,
    // a shrink between the two missed both the owner and the dead mark's effect on m.
    pp.setM(m);
    if (!pp.casStatus(P.Pidle, P.Prunning)) { // CAS: setParallelism may retire it concurrently
      lock.lock();
      try {
        retake.zombieDoneLocked(pp);
        Lifecycle.tryTidyLocked(this); // that zombie may have been all a shutdown waited for
      } finally {
        lock.unlock();
      }
      return false;
    }
    pp.heldBy = null; // acquired: nobody's hand now (P#heldBy)
    m.p = pp;
    if (m.spinning) {
      idle.spinnerArrived();
    }
    // No sysmon wake-up here: a task that starts beside idle Ps needs no watcher until work waits
    // behind it that no idle P can take, and whoever queues that work wakes sysmon (wakep).
    if (Jfr.on) {
      Jfr.procState(this, pp.id, P.Prunning, m);
    }
    return true;
  }

  P releasep(M m) {
    P pp = m.p;
    m.p = null;
    pp.setM(null);
    return pp;
  }

  /**
   * gmp's own trouble rather than a task's (no thread could be started, a sysmon round failed, a
   * termination action or a latency listener threw): to the configured handler, else logged as a
   * warning. Not the current thread's handler: the default one prints "Exception in thread ..."
   * for a thread that goes on (a submitter that got a RejectedExecutionException, or sysmon).
   */
  void report(Throwable e) {
    if (sysmon != null && sysmon.isCurrentThread()) {
      reports.offSysmon(e); // a slow handler or logger must not hold sysmon up
      return;
    }
    reportHere(e);
  }

  /** report's delivery, on the calling thread. */
  void reportHere(Throwable e) {
    if (config.uncaughtExceptionHandler() != null) {
      uncaught(Thread.currentThread(), e);
      return;
    }
    try {
      System.Logger log = System.getLogger(GmpExecutor.class.getName());
      if (e.getStackTrace().length == 0 && e.getCause() == null) {
        log.log(System.Logger.Level.WARNING, e.getMessage()); // a notice, such as a stall
      } else {
        log.log(System.Logger.Level.WARNING, "GmpExecutor[" + config.name() + "]", e);
      }
    } catch (Throwable ignored) {
      // A failing logger must not take sysmon or a submitter down with it.
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
}
