package dev.gmp;

import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * What sysmon (and a marked blocking call itself) takes back from an M, and the zombie Ps that
 * result (Go's retake and handoffp, plus the JVM's twist: a task cannot be stopped, so a P taken
 * from under a running task becomes a zombie its old M still holds until it notices).
 *
 * <p>A zombie is a P in state Pdead that some M may still push to (its ring only); it is on
 * {@link #zombies} until that M lets go ({@link #dropOrphanLocked}), and sysmon sweeps whatever
 * late pushes land in it to the global queue ({@link #sweepZombies}).
 */
final class Retake {
  private final Scheduler s;

  /** Dead Ps whose owning M has not yet noticed (retired or retaken from under a task). Lock. */
  final ArrayList<P> zombies = new ArrayList<>(4); // sized: ensureCapacity works

  /**
   * Drained zombies' run-queue islands (CardIsland), for the Ps that replace retaken ones: with
   * unmarked blocking sysmon retakes thousands of times a second, and a fresh island each time
   * would allocate 64 KB per retake. Safe to reuse: the zombie's queue is empty and its M gone, so
   * a thief that still reads the old queue (an old Procs) sees no work, or reads a reused slot
   * and then fails its CAS on the old queue's head or runnext. At most {@link #MAX_ISLANDS}. Lock.
   */
  private final ArrayDeque<G[]> islands = new ArrayDeque<>();

  static final int MAX_ISLANDS = 16;

  /** islands.size(), for retakeRunning's look before the lock (a racy hint). */
  private volatile int islandCount;

  /**
   * How long the marked calls that lost their P lasted, a moving average (1/8 weight), for
   * returnComesSoon. Written by returning Ms without the lock: a racy hint, a lost update only
   * delays the average by one call.
   */
  private volatile long longCallNanos;

  /**
   * What an eager hand-off costs in CPU (an unpark, a context switch, the woken M's first steps),
   * not its latency, which is longer on a loaded VM: see returnComesSoon.
   */
  static final long WAKE_NANOS = 5_000;

  Retake(Scheduler s) {
    this.s = s;
  }

  /** The average length of the calls that outlived their P (0 before the first). */
  long callNanos() {
    return longCallNanos;
  }

  /** exitsyscall's slow path: a call outlived its P; d is how long it took. */
  void noteLongCall(long d) {
    long avg = longCallNanos;
    longCallNanos = avg == 0 ? d : avg + ((d - avg) >> 3);
  }

  /**
   * entersyscall's eager hand-off asks: will a spare's call return (and take this P awake,
   * Spares#takeFree) within about what a wake-up costs? With n spares in calls of average length
   * d, the next return is ~d/n away. Then the P waits those few microseconds rather than cost a
   * park and an unpark. Otherwise it is handed off: the woken M is a new runner whose calls keep
   * going beside the others (the calls in flight grow), while a return only replaces the call
   * that ended. The bound is a wake-up's CPU, not its latency: with returns taking Ps without the
   * scheduler lock, a new runner gains more than a P moved sooner (docs/benchmarks.md, "Returns
   * without the lock").
   */
  boolean returnComesSoon() {
    int n = s.spares.count; // volatile read: a hint
    long d = longCallNanos; // 0 until a call has outlived its P: no evidence, hand off
    return n > 0 && d > 0 && d < WAKE_NANOS * n;
  }

  /**
   * Takes a P from an M in a marked blocking call and hands it on (sysmon's retake, or the call
   * itself when work waits: {@code eager}). The CAS Psyscall -> Pidle on the call's exact token
   * races the M's exitsyscall CAS; it runs under the lock so that an M whose CAS lost finds itself
   * already marked spare when its slow path takes the lock (else nmspare could leak); a call that
   * counted itself (Syscall#entersyscall) needs no marking. Refused when the spare budget is
   * spent: the call then keeps its P (reserveSpare).
   */
  boolean retakeSyscall(P pp, long tok, boolean eager) {
    M next;
    long from = -1; // the M it was taken from, for the JFR events only
    if (!eager) {
      refusedForRoom = false; // sysmon's; an eager call runs on the M entering the call
    }
    s.lock.lock();
    try {
      if (!mayHandOffLocked(eager)) {
        refusedForRoom = !eager;
        return false;
      }
      M mp = pp.m(); // read after tok: the CAS below proves tok (and so this M) is unchanged
      int r = s.spares.reserve(mp);
      boolean won = r >= 0 && pp.retakeSyscall(tok);
      s.spares.settle(mp, r, won);
      if (!won) {
        refusedForRoom = !eager && r < 0;
        return false;
      }
      pp.heldBy = Thread.currentThread(); // ours until handoffLocked places it (P#heldBy)
      pp.setM(null);
      from = mp == null ? -1 : mp.id;
      if (!eager) { // the call giving its own P away is a hand-off, not a retake (GmpStats)
        Counters.count(s.counters.retakes);
      }
      next = s.idle.handoffLocked(pp);
    } finally {
      s.lock.unlock();
    }
    try {
      if (Jfr.on) {
        long held = eager ? 0 : System.nanoTime() - pp.syscallwhen();
        if (!eager) {
          Jfr.retake(s, pp.id, "syscall", from, held);
        }
        Jfr.handoff(s, pp.id, eager, held);
      }
    } finally {
      s.idle.launch(next); // as in the blocked retake: next is woken whatever fails above
    }
    return true;
  }

  /**
   * An M that needs a P (its blocking call returned, or it finished a task as a spare) and finds
   * none idle takes the P of another M's marked blocking call, if work waits: the hand-off
   * sysmon's next round or an eager entersyscall would make, but to an M already awake, so no
   * thread is woken or started, and no P waits idle for one (docs/benchmarks.md, "Many short
   * blocking calls: a returning M takes a blocked call's P").
   * The longest call is the victim (the least likely to return soon); it becomes a spare, the
   * caller stopped being one, so the budget is unchanged and still bounds it. The CAS on the
   * call's token races its exitsyscall exactly as retakeSyscall's does. Returns the P, Pidle and
   * owned by no M, for the caller's acquirep; or null. Lock held.
   */
  P takeSyscallPLocked(M m) {
    if (s.runState >= Scheduler.STOP) {
      return null;
    }
    P best = oldestSyscallWithWork(m, false);
    if (best == null) {
      return null;
    }
    long raw = best.statusRaw(); // volatile: the token for the CAS below, as sysmon reads it
    M mp = best.m(); // read after the token: the CAS proves the token (and so this M) unchanged
    if (P.state(raw) != P.Psyscall || mp == m) {
      return null; // its call just returned, or it is ours: not a P to take
    }
    int r = s.spares.reserve(mp); // the budget: unless its call counted itself
    boolean won = r >= 0 && best.retakeSyscall(raw);
    s.spares.settle(mp, r, won);
    if (!won) {
      return null; // its call just returned: it keeps the P
    }
    best.heldBy = Thread.currentThread(); // the caller's until its acquirep (P#heldBy)
    best.setM(null);
    m.parkAtOnce = false; // m's own field (the caller is m): it has a P again
    Counters.count(s.counters.retakes);
    if (Jfr.on) {
      Jfr.retake(s, best.id, "syscall", mp == null ? -1 : mp.id,
          System.nanoTime() - best.syscallwhen());
    }
    return best;
  }

  /**
   * The P of the longest marked call, not m's, that work waits for (its ring, or the global
   * queue): the least likely to return soon. With {@code counted}, only a call that counted
   * itself (its M's precountTok is the status word, read after it: a stale token cannot match a
   * newer call). A hint for takeSyscallPLocked and Spares#takeFree, which read the status again
   * and CAS on it.
   */
  P oldestSyscallWithWork(M m, boolean counted) {
    boolean globalWork = s.global.size() != 0;
    P best = null;
    long bestWhen = 0;
    for (P pp : s.procs.all) {
      long raw = pp.statusRaw(); // volatile, before pp.m(): see above
      if (P.state(raw) != P.Psyscall || (!globalWork && pp.runq.isEmpty())) {
        continue;
      }
      M mp = pp.m();
      if (mp == m || (counted && (mp == null || mp.precountTok != raw))) {
        continue;
      }
      long when = pp.syscallwhen();
      if (best == null || when - bestWhen < 0) {
        best = pp;
        bestWhen = when;
      }
    }
    return best;
  }

  /**
   * sysmon takes the P of an M whose task is off the CPU (blocked without saying so) while work
   * waits. Java cannot stop the task, so the M keeps running it P-less when it wakes, counted as
   * a spare, and the P's permit moves to a new P object on another M: the old object becomes a
   * zombie. Bounded by the spare budget. {@code completed} is the M's completed count when sysmon
   * first saw this task: unchanged under the lock means the same task still runs (with gFree a G
   * object is reused, so {@code curg == gp} alone cannot tell two tasks apart). {@code detected}:
   * on BlockDetector's verdict (else a JVM wait state a whole slice long), counted before the
   * handoff so that a task run on the new P can already see the count.
   */
  boolean retakeRunning(P pp, M mp, G gp, long completed, boolean detected) {
    refusedForRoom = false;
    M next = null;
    Throwable failed = null;
    // The new P's island: a recycled one, or one allocated here, before the lock (nothing under
    // the lock allocates 64 KB); one left unused joins the pool.
    G[] fresh = islandCount == 0 ? CardIsland.allocate(RunQueue.LIVE) : null;
    s.lock.lock();
    try {
      if (!mayHandOffLocked(false) || s.runState >= Scheduler.TIDYING) {
        refusedForRoom = s.runState < Scheduler.TIDYING;
        return false;
      }
      Procs procs = s.procs;
      if (pp.m() != mp
          || mp.curg() != gp
          || mp.completedAcquire() != completed
          || procs.all.length <= pp.id
          || procs.all[pp.id] != pp) {
        return false;
      }
      // The replacement P, made before the P is marked dead: an OutOfMemoryError here leaves the
      // task its P, where one after the CAS lost the P for good.
      G[] island = islands.poll();
      if (island == null) {
        island = fresh != null ? fresh : CardIsland.allocate(RunQueue.LIVE); // a racing taker
        fresh = null;
      }
      P np = new P(pp.id, island);
      Procs replaced = procs.replace(pp.id, np);
      zombies.ensureCapacity(zombies.size() + 1); // its add below, after the CAS, must not fail
      int r = s.spares.reserve(mp);
      // The task first (Dekker J): checked above, it may have ended since, and the M's next
      // task must not start on a P about to die, so claim it and look at the count again. Then
      // the P (CAS: races entersyscall, whose call may count mp meanwhile: settleSpare, and
      // setParallelism). A claim whose retake fails is withdrawn before the lock is released.
      boolean won = false;
      if (r >= 0) {
        if (!Mutations.RETAKE_NO_CLAIM) {
          mp.setClaimLocked(pp);
          VarHandle.fullFence(); // Dekker J: the claim, then the M's count (M#retakeClaim)
        }
        won = (Mutations.RETAKE_NO_CLAIM || mp.completedAcquire() == completed)
            && pp.casStatus(P.Prunning, P.Pdead);
        if (!won && !Mutations.RETAKE_NO_CLAIM) {
          mp.setClaimLocked(null); // the task ended (the M starts nothing before this unlock)
        }
      }
      s.spares.settle(mp, r, won);
      if (!won) {
        refusedForRoom = r < 0;
        recycleLocked(island);
        return false;
      }
      // pp is dead and its permit lives on in np: whatever fails from here (an Error the JVM can
      // raise anywhere while the heap is full), np is published, pp's timers move, and sysmon's
      // round gives np back if it was never placed (P#heldBy, Idle#reclaimHeldLocked).
      np.heldBy = Thread.currentThread();
      s.timers.willMoveLocked(); // to np, once the lock is released (procs holds np then)
      try {
        try {
          islandCount = islands.size();
          gp.casStatus(G.Grunning, G.Gwaiting);
          pp.runq.moveTo(np.runq); // np is not published yet: we are its only owner
        } finally {
          s.procs = replaced;
        }
        zombies.add(pp);
        Counters.count(s.counters.retakes);
        if (detected) {
          Counters.count(s.counters.blockRetakes);
        }
        next = s.idle.handoffLocked(np);
      } catch (Throwable e) {
        failed = e; // after the move and the launch below, to sysmon's round
      }
    } finally {
      if (fresh != null) {
        recycleLocked(fresh);
      }
      s.lock.unlock();
    }
    // next is off the idle list with the P in nextp: whatever fails here (out of memory), it
    // is woken, or it would park for good beside an executor that can never terminate.
    try {
      s.timers.moveAll(pp);
      s.timers.moved();
      BlockDetector det = s.sysmon.detector; // only sysmon calls this: the detector is its own
      if (det != null && next != null) {
        det.baseline(next, System.nanoTime());
      }
      if (Jfr.on) {
        long seen = mp.since(); // sysmon's first sight of this task (or its last call's start)
        long held = seen == 0 ? 0 : System.nanoTime() - seen;
        Jfr.retake(s, pp.id, "blocked", mp.id, held);
        Jfr.handoff(s, pp.id, false, held); // handoffLocked counted one: each has its event
      }
    } finally {
      s.idle.launch(next);
    }
    if (failed instanceof RuntimeException e) {
      throw e;
    }
    if (failed != null) {
      throw (Error) failed; // nothing above throws a checked exception
    }
    return true;
  }

  /**
   * The M found sysmon's claim as it was about to start gp (SchedulingLoop#execute, Dekker J):
   * under the lock the retake is done or withdrawn. The claim goes; if the M's P is dead (taken
   * for the task that just ended, or retired), gp goes back to the global queue, not started,
   * and the M's next look drops the P: false. Otherwise (withdrawn, or left from a retake of an
   * earlier P) gp starts: true.
   */
  boolean mayStartAfterClaim(M m, G gp) {
    s.lock.lock();
    try {
      m.setClaimLocked(null);
      P pp = m.p;
      if (pp == null || pp.status() != P.Pdead) {
        return true;
      }
      // Grunnable still: execute had not touched it. No wakep: this M, about to drop the dead
      // P, takes an idle P if there is one (Spares#reacquire), and busy ones look at the global
      // queue; nothing after the put may throw, or execute's handler would put gp twice. Behind
      // the queue: a plain G (until 2026-12-06 it went on the stand-ins' list, where an M-less
      // P's hand-off took it for a stand-in: a ClassCastException in the soak).
      s.global.put(gp);
      return false;
    } finally {
      s.lock.unlock();
    }
  }

  /** The M noticed its P is dead (or was taken): clean up and leave it P-less. */
  void dropOrphan(M m) {
    boolean moved;
    s.lock.lock();
    try {
      moved = dropOrphanLocked(m);
      Lifecycle.tryTidyLocked(s);
    } finally {
      s.lock.unlock();
    }
    if (moved) {
      s.idle.wakep();
    }
  }

  boolean dropOrphanLocked(M m) {
    P pp = m.p;
    m.p = null;
    m.setClaimLocked(null); // a retake's claim names the P it drops: settled (Dekker J)
    if (m.spare()) {
      s.spares.removeSelf(m);
      m.parkAtOnce = true; // m's own field: every caller runs on m's thread
    }
    boolean moved = false;
    if (pp != null && pp.status() == P.Pdead && pp.m() == m) {
      moved = zombieDoneLocked(pp);
    }
    return moved;
  }

  /** A zombie's owner is done with it: move what it still holds to the global queue. Lock held. */
  boolean zombieDoneLocked(P pp) {
    pp.setM(null);
    // Its timers moved when it died (Retake#retakeRunning, Resize).
    boolean first = zombies.remove(pp);
    boolean moved = s.global.putRing(pp.runq);
    if (first) { // once per zombie: an island pooled twice would get two owners
      recycleLocked(pp.runq.island()); // drained, and its M is done with it: see islands
    }
    return moved;
  }

  /** Keeps a run queue's island for a later retake, if it is one and there is room. Lock. */
  private void recycleLocked(G[] island) {
    if (RunQueue.isIsland(island) && islands.size() < MAX_ISLANDS) {
      // Its slots still hold the Gs other threads drained from it (only an owner nulls them):
      // dropped, so no finished future's result stays reachable from the pool. The live slots
      // only (~270 stores): the pads are never written, and clearing all 16 K slots here, under
      // the lock, once per retake, was a tenth of a blocking server's worker CPU.
      java.util.Arrays.fill(island, CardIsland.PAD, CardIsland.PAD + RunQueue.LIVE, null);
      islands.push(island);
      islandCount = islands.size();
    }
  }

  /** Islands kept for retakes (tests). */
  int islandsForTest() {
    s.lock.lock();
    try {
      return islands.size();
    } finally {
      s.lock.unlock();
    }
  }

  /** sysmon: move whatever zombies' late pushes left behind to the global queue. */
  int sweepZombies() {
    if (zombies.isEmpty()) { // racy peek; an add is followed by sysmon's own next tick anyway
      return 0;
    }
    boolean moved = false;
    s.lock.lock();
    try {
      for (P z : zombies) {
        moved |= s.global.putRing(z.runq);
      }
    } finally {
      s.lock.unlock();
    }
    if (moved) {
      s.idle.wakep();
      return 1;
    }
    return 0;
  }

  /**
   * Whether sysmon's last {@link #retakeRunning} or {@link #retakeSyscall} failed only because no
   * thread could be added: no idle M, and the thread cap or the spare budget reached. Sysmon's
   * thread only: an eager retakeSyscall (on the M entering its call) leaves it alone.
   */
  boolean refusedForRoom;

  /**
   * Whether a hand-off may take a thread: an idle M can have the P, or a new thread stays within
   * the thread cap (the spare budget itself is reserveSpare's, docs/design.md). With {@code
   * idleOnly} (blocking()'s eager hand-off) only an idle M will do: a new thread takes longer to
   * start than a short call lasts, so that case is left to sysmon's next round. Lock held.
   */
  boolean mayHandOffLocked(boolean idleOnly) {
    if (s.idle.midle != null) {
      return true;
    }
    return !idleOnly && s.threads.roomLocked();
  }
}
