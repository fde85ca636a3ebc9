package dev.gmp;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;

/**
 * Idle Ps and Ms and the spinning protocol (seed 000 section 9.3.5): wakep, startm, stopm,
 * handoffp, needspinning, on the idle-P and idle-M lists (Go's pidle and midle) and the padded
 * words of {@link IdleLists}. The Dekker pairs are listed in Scheduler's overview; each site here
 * says which side it is.
 */
final class Idle extends IdlePad2 {
  // Field updaters, not VarHandles, and volatile fields read directly: why, and how an ordering
  // comment below reads, in docs/design.md section 2 ("How the orderings are spelled").
  private static final AtomicIntegerFieldUpdater<IdleHot> U_NMSPINNING =
      AtomicIntegerFieldUpdater.newUpdater(IdleHot.class, "nmspinning");
  private static final AtomicLongFieldUpdater<IdleLists> U_SPIN_CLAIMED_AT =
      AtomicLongFieldUpdater.newUpdater(IdleLists.class, "spinClaimedAt");

  /**
   * How long the spinner wakep started may be on its way before an outside submission that finds
   * an idle P starts one more ({@link #wakeAnotherIfStale}): on a VM whose host steals CPU a
   * woken thread can wait milliseconds for its vCPU while every submission trusts it (measured
   * in docs/benchmarks.md, "A late spinner no longer holds up outside submissions").
   */
  static final long STALE_SPINNER_NANOS = 100_000;

  private final Scheduler s;

  Idle(Scheduler s) {
    this.s = s;
  }

  int nmspinning() {
    return nmspinning;
  }

  // ---------------------------------------------------------------- spinning and waking

  /**
   * wakep: start one spinning M on an idle P, only if no M is spinning already. When no P is idle
   * it sets needspinning instead (Go 1.20), without the lock. Dekker (B): needspinning = 1, then
   * read npidle, against dropP's npidle++ then read needspinning: one side sees the other. No P
   * idle and nobody spinning is also when sysmon's eye is needed (work waits that only a retake
   * may free), so a deep-sleeping sysmon is woken here (Sysmon#wakeForBacklog).
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
        s.sysmon.wakeForBacklog();
        return;
      }
    }
    if (!roomToWake()) {
      return;
    }
    if (!U_NMSPINNING.compareAndSet(this, 0, 1)) { // CAS: only one waker wins the right to spin up
      return;
    }
    startClaimedSpinner(true);
  }

  /**
   * The wake-up for work injected from outside (an outside submission, an outside goready). Go's
   * injectglist starts an M on an idle P for each G it injects, as far as Ps are idle: the runtime
   * is not stingy about waking threads for the global queue (seed 000, 9.3.5), which is outside
   * the spinning protocol. Here: wakep (the protocol's side of Dekker (A) and (B), unchanged), and
   * while a P is idle and the global queue holds more Gs than there are spinners counted, one more
   * spinner, since the ones counted cannot take them all at once. A burst's second M is then woken
   * by the submitter, beside the first, not by the first after its arrival and its batch take
   * (resetspinning's wakep, which now finds it counted and returns). One G per spinner keeps a
   * trickle of submissions at one wake-up per G, as wakep alone; the idle Ps bound the rest.
   */
  void wakeForInjected() {
    int spinning = nmspinning();
    if (spinning == 0) {
      wakep();
    } else if (npidle > 0 && s.global.size() > spinning && roomToWake()) {
      // Racy reads are enough: a low one skips a wake-up that wakep's guarantee never needed, a
      // high one wakes a spinner that finds nothing and parks; claimAndLaunch bounds both by pidle.
      U_NMSPINNING.getAndAdd(this, 1); // counted before it exists, as wakep's CAS counts its own
      startClaimedSpinner(false);
    }
  }

  /**
   * Whether the stack has room for a wake-up's claim and the lock ({@link StackGuard}). A waker
   * deep in a recursion would overflow in the middle, leaving the spinning count claimed (no
   * wake-up ever again) or the scheduler lock held. Without room, the work that needed the
   * wake-up is queued already: sysmon, woken here, finds it from its own stack
   * (wakeForQueuedWork), and the caller returns normally, its task accepted (an error at the
   * entry of some later call may still reach it, as under ForkJoinPool).
   */
  boolean roomToWake() {
    if (StackGuard.hasRoom()) {
      return true;
    }
    s.sysmon.wake();
    return false;
  }

  /**
   * The rest of a wake-up whose spinner is already counted in nmspinning: an idle P and an M for
   * it under one acquisition of the lock (one round trip per wake-up), then the M's start. No
   * idle P: the count is given back (and, for wakep, needspinning set). False if no M started.
   */
  private boolean startClaimedSpinner(boolean needspinningIfNoP) {
    try {
      return claimAndLaunch(needspinningIfNoP);
    } catch (OutOfMemoryError e) {
      // Each step allocates before it changes anything or gives its claim back on failure
      // (allocm, newm, writeOff), so only the wake-up is undone: sysmon's fallback makes it
      // (wakeForQueuedWork). Thrown on, an error from here would reach an M between taking a
      // task and running it (SchedulingLoop#notStarted puts the task back, but the M dies), or
      // a submitter whose task is already queued. An error the JVM raised between pidleget and
      // the hand-off leaves the P in our hand.
      reclaimHeld();
      s.sysmon.wake();
      return false;
    }
  }

  private boolean claimAndLaunch(boolean needspinningIfNoP) {
    M nmp;
    s.lock.lock();
    try {
      P pp = pidleget();
      if (pp == null) {
        if (needspinningIfNoP) {
          needspinning = 1;
        }
        U_NMSPINNING.getAndAdd(this, -1);
        return false;
      }
      // Release, before nextp publishes the P: the M's arrival (spinnerArrived) clears it after.
      U_SPIN_CLAIMED_AT.lazySet(this, System.nanoTime());
      nmp = claimMLocked(pp, true);
      if (nmp == null || !nmp.spinning) {
        // No spinner (the thread cap; or the P went to a call waiting for one, which is not a
        // spinner): none on its way that we know of. Restoring the old value could put back one
        // an arriving M just cleared; at worst this skips one extra wake-up.
        U_SPIN_CLAIMED_AT.lazySet(this, 0);
      }
    } finally {
      s.lock.unlock();
    }
    launch(nmp);
    return nmp != null;
  }

  /**
   * An outside submission found a spinner counted (so wakep did nothing) while a P is idle: if
   * that spinner was claimed more than {@link #STALE_SPINNER_NANOS} ago, it has not
   * arrived (its thread is still waiting for a CPU, or found nothing and is about to drop its
   * spinning), so start one more spinning M on an idle P, as ForkJoinPool's signalWork starts
   * workers up to the parallelism while earlier ones are in transit. Bounded by the idle Ps; an
   * extra spinner that finds nothing parks again. Never fewer wake-ups than wakep's, so the
   * spinning protocol's guarantees (Dekker A and B) are untouched.
   */
  void wakeAnotherIfStale() {
    long claimed = spinClaimedAt; // 0: no claimed spinner in transit (counted ones are looking)
    if (claimed == 0
        || npidle == 0
        || nmspinning() == 0
        || System.nanoTime() - claimed < STALE_SPINNER_NANOS) {
      return;
    }
    if (!StackGuard.hasRoom()) {
      return; // a submitter deep in a recursion: the claimed spinner is still on its way
    }
    U_NMSPINNING.getAndAdd(this, 1); // counted before it exists, as wakep's CAS counts its own
    if (startClaimedSpinner(false)) {
      Counters.count(s.counters.staleSpinnerWakes);
    }
  }

  /**
   * A spinning M acquired its P: the claimed one arrived, or another looks in its stead. (A spinner
   * that began on its own, with no claim, would look as old as the last claim: a wake-up per
   * outside submission for nothing.)
   */
  void spinnerArrived() {
    if (spinClaimedAt != 0) {
      U_SPIN_CLAIMED_AT.lazySet(this, 0); // release: a heuristic's clock, as at the claim
    }
  }

  void becomeSpinning(M m) {
    m.spinning = true;
    U_NMSPINNING.getAndAdd(this, 1);
    needspinning = 0;
  }

  /**
   * resetspinning: a spinner found work; if it was the last, wake another so none is missed. Go
   * wakes unconditionally; here only if work is still visible after the decrement (a wake-up
   * that would find nothing costs an unpark and a park: docs/benchmarks.md, "Ablation"). Dekker (A,
   * spinner side): a submitter that saw us spinning skipped its wakep, and its put + StoreLoad
   * pairs with the full barrier of our getAndAdd, so either it saw nmspinning == 0 and woke
   * someone itself, or we see its work now. Timers pending with no sleeper get one too
   * (TimerSleeper#handOn): the woken M may have been the sleeper; with no P idle left they need
   * sysmon, which only its deep sleep keeps away (else two volatile reads).
   */
  void resetspinning(M m) {
    m.spinning = false;
    U_NMSPINNING.getAndAdd(this, -1); // full barrier before the queue reads below
    if (workVisible()) {
      wakep();
    }
    if (npidle > 0 || s.sysmon.waiting) {
      s.timers.sleeper.handOn();
    }
  }

  /**
   * Whether any queue holds a G another M could take now: the global queue's takeable part, or a
   * ring or runnext of any P not on the idle list (volatile reads). "Visible" is exactly what a
   * spinner can take (Steal skips idle-list Ps, whose rings are empty, and nothing else), so a
   * spinner never loops on work it cannot take. Both spinner-side halves of Dekker (A) ask it
   * after their full barrier: resetspinning, and the spinner's last look (SchedulingLoop.recheck).
   */
  boolean workVisible() {
    if (s.global.size() != 0) {
      return true;
    }
    for (P p : s.procs.all) {
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
      U_NMSPINNING.lazySet(this, nmspinning - 1);
      return;
    }
    U_NMSPINNING.getAndAdd(this, -1);
  }

  /**
   * A spinning claim that came to nothing (no M could be had), given back under the lock by
   * whoever claimed it, which has just tried to start the one M a recheck would ask for.
   */
  void unclaimSpinningLocked() {
    U_NMSPINNING.getAndAdd(this, -1);
  }

  /**
   * A spinning count given back by someone other than a spinner's last look (a thread that never
   * arrived, an M whose P was retired in transit): the decrement, a full barrier, then Go's
   * recheck (Dekker A, spinner side): a submitter that saw the count skipped its wakep, so if work
   * is visible now, wake someone for it. Not under the lock.
   */
  void unclaimSpinning() {
    U_NMSPINNING.getAndAdd(this, -1);
    if (workVisible()) {
      wakep();
    }
  }

  /** {@link #dropSpinning} with the same recheck, for an M that gives its count back. */
  void leaveSpinning(M m) {
    dropSpinning(m);
    if (workVisible()) {
      wakep();
    }
  }

  /** handoffp's claim of the right to start a spinner when nobody spins and no P is idle. */
  boolean claimSpinning() {
    return nmspinning() + npidle == 0 && U_NMSPINNING.compareAndSet(this, 0, 1);
  }

  // ---------------------------------------------------------------- startm / stopm

  /** startm: run {@code pp} on an idle M, or a new one (see Threads#newm for failures). */
  void startm(P pp, boolean spinning) {
    M nmp;
    s.lock.lock();
    try {
      nmp = claimMLocked(pp, spinning);
    } finally {
      s.lock.unlock();
    }
    launch(nmp);
  }

  /**
   * The locked half of startm: an idle M, or a new one (NEW: no thread yet), with pp in nextp;
   * null if no M can be had (then pp went back through {@link #returnPLocked}). Lock held.
   */
  M claimMLocked(P pp, boolean spinning) {
    M nmp = mget();
    if (nmp == null) {
      nmp = s.threads.allocmLocked(false);
      if (nmp == null) {
        M locked = handToLockedLocked(pp);
        if (locked != null) { // no new M, but one waits for a P to finish its task: it takes pp
          if (spinning) {
            unclaimSpinningLocked(); // it runs its task first; its schedule then finds the work
          }
          return locked;
        }
        if (s.threads.mcount >= s.config.maxThreads()) {
          s.threads.startFailedLocked(null); // maxThreads counts as a failure; the spare cap not
        } else if (s.threads.allocFailureLocked() == null) { // not the heap: allocm counted that
          // At the cap every M exists already: one of them is on its way to park (between
          // dropping its P and mput). stopm sees this flag under the lock and takes the P.
          mWanted = true;
        }
        if (spinning) {
          unclaimSpinningLocked();
        }
        returnPLocked(pp);
        return null;
      }
    }
    nmp.spinning = spinning;
    handLocked(pp, nmp);
    return nmp;
  }

  /**
   * Hands pp to the M of the oldest task waiting for a P on its own thread (its stand-in on the
   * global queue: Syscall#exitsyscallSlow) and returns that M, not yet woken; null if none
   * waits. For a P that no other M can take (none idle, none can be made): otherwise only an M
   * that schedules hands a stand-in its P (SchedulingLoop#startlockedm), so with every M waiting
   * as a stand-in the P idled beside them for good (design.md, section 3). No handedTo: a locked
   * M's P is never taken back (Spares#takeLateHandoffLocked). Lock held.
   */
  M handToLockedLocked(P pp) {
    G standIn = s.global.takeStandIn();
    if (standIn == null) {
      return null;
    }
    M target = (M) standIn.task;
    pp.heldBy = null; // placed, as in handLocked
    target.nextp = pp; // volatile, before the wake-up that publishes it (read after the sleep)
    // Not a hand-off that may be taken back: a stale handedTo naming this very M (it took pp
    // from an earlier hand-off) would let takeLateHandoffLocked cancel its nextp, and the M wake
    // to no P.
    pp.handedTo = null;
    return target;
  }

  /**
   * The first M of an executor that has none (Scheduler#startFirstM), with pp in nextp, not
   * spinning: thread creation's backoff does not apply. Null only at the thread cap (then pp goes
   * back). Lock held.
   */
  M claimFirstMLocked(P pp) {
    M nmp = s.threads.allocmLocked(true);
    if (nmp == null) {
      returnPLocked(pp);
      return null;
    }
    nmp.spinning = false;
    handLocked(pp, nmp);
    return nmp;
  }

  /**
   * Puts pp in m's nextp (written before the wake-up that publishes it) and notes on pp to whom
   * and when: what Spares#takeLateHandoffLocked looks for. A new M (its ThreadFactory call not yet
   * made or returned) is taken from too: the watchdog (Threads#checkStarting) only looks at a
   * thread the factory has returned, and a factory may take longer than any task. Lock held.
   */
  private void handLocked(P pp, M m) {
    pp.heldBy = null; // placed: the hand-off now holds it (and its cancel takes it back)
    m.nextp = pp;
    pp.handedTo = m;
    pp.handedAt = System.nanoTime();
    pp.handedToNew = m.life() == M.NEW;
  }

  /**
   * handoffp: give a P whose M is gone (blocked) to an M that will use it: one with work if the P
   * or the global queue has some, a spinning one if nobody spins and no P is idle, else idle it.
   * Returns the M to {@link #launch} once the lock is released (null: the P went idle). Retake
   * calls it in the same lock hold as its budget check, so the M it counted on is still there.
   * Lock held.
   */
  M handoffLocked(P pp) {
    Counters.count(s.counters.handoffs);
    if (!pp.runq.isEmpty() || s.global.liveSizeLocked() != 0) {
      return claimMLocked(pp, false);
    }
    if (claimSpinning()) {
      needspinning = 0;
      return claimMLocked(pp, true);
    }
    pidleput(pp);
    Lifecycle.tryTidyLocked(s);
    return null;
  }

  /** The unlocked half of startm: start the new M's thread, or wake the idle one. */
  void launch(M nmp) {
    if (nmp == null) {
      return;
    }
    if (nmp.life() == M.NEW) {
      if (s.sysmon.isCurrentThread()) {
        s.threads.startOffSysmon(nmp); // never the user's factory on sysmon's own thread
        return;
      }
      // A task's M starting a thread waits in the kernel for it: not the task blocking, so
      // sysmon's detector must not take its P for that (BlockDetector#look).
      M self = ThreadTable.currentM();
      if (self != null) {
        self.startingThread = true;
      }
      try {
        s.threads.newm(nmp);
      } finally {
        if (self != null) {
          self.startingThread = false;
        }
      }
    } else if (nmp.wakeup()) {
      unparked(nmp);
    }
  }

  /** Counts an M that M#wakeup really had to unpark (stats, and the JFR Unpark event). */
  void unparked(M m) {
    Counters.count(s.counters.unparks);
    if (Jfr.on) {
      Jfr.unpark(s, m);
    }
  }

  /**
   * Gives back a P that no M will run (a failed or written-off thread start, an exiting M): its
   * ring moves to the global queue (an idle P must have an empty ring: thieves skip idle Ps), and
   * with work queued it goes to an idle M rather than next to the work; else to the idle list.
   * Lock held.
   */
  void returnPLocked(P pp) {
    s.global.putRing(pp.runq);
    if (s.global.liveSizeLocked() != 0 && pp.status() != P.Pdead) {
      M idleM = mget();
      if (idleM != null) {
        idleM.spinning = false;
        handLocked(pp, idleM);
        if (idleM.wakeup()) {
          unparked(idleM);
        }
        return;
      }
      M locked = handToLockedLocked(pp);
      if (locked != null) {
        if (locked.wakeup()) {
          unparked(locked);
        }
        return;
      }
    }
    pidleput(pp);
    Lifecycle.tryTidyLocked(s);
  }

  /**
   * Gives back every P the calling thread took and has neither placed nor acquired (P#heldBy),
   * after an Error cut its step short: idle, on no list and in no M's hand-off, such a P would
   * never be placed by anyone. It goes where a returned P goes. mexit runs this for an M's
   * thread; sysmon's round and a failed wake-up for theirs. Lock held.
   */
  void reclaimHeldLocked() {
    Thread self = Thread.currentThread();
    for (P pp : s.procs.all) {
      if (pp.heldBy == self
          && pp.status() == P.Pidle
          && !pp.onIdleList
          && !s.threads.handedLocked(pp)) {
        returnPLocked(pp);
      }
    }
  }

  /**
   * {@link #reclaimHeldLocked} from an error path; never throws (the error being handled is the
   * one to report). Queued work beside a given-back P is sysmon's to wake an M for
   * (Sysmon#wakeForQueuedWork), as after any failed wake-up.
   */
  void reclaimHeld() {
    try {
      s.lock.lock();
      try {
        reclaimHeldLocked();
      } finally {
        s.lock.unlock();
      }
    } catch (Throwable e) {
      // still short of memory: the P stays lost, as it was before this look
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
      boolean timerSleeper = false;
      s.lock.lock();
      try {
        if (s.runState >= Scheduler.TIDYING) {
          return false;
        }
        if (s.global.liveSizeLocked() != 0 || mWanted) {
          // Work queued next to an idle P that nobody was started for (a failed thread start,
          // or a start refused at the thread cap, while we were between dropping our P and
          // parking): take it instead of parking.
          ready = pidleget();
          mWanted = false;
        }
        if (ready == null) {
          mput(m);
          timerSleeper = s.timers.sleeper.claimSleeperLocked(m);
          if (s.runState >= Scheduler.SHUTDOWN) {
            // Whatever cleared the last thing a shutdown waited for (a zombie released in
            // transit, a spare that found no P) may not have looked: look before sleeping.
            Lifecycle.tryTidyLocked(s);
          }
        }
      } finally {
        s.lock.unlock();
      }
      if (ready != null) {
        if (s.acquirep(m, ready)) {
          return true;
        }
        continue;
      }
      Counters.count(s.counters.parks);
      Jfr.ParkEvent park = Jfr.on ? Jfr.parkBegin(s, m) : null;
      int how = timerSleeper ? s.timers.sleeper.sleep(m) : TimerSleeper.IDLE;
      if (how == TimerSleeper.DUE) { // off the idle list, with an idle P for the due timers
        if (park != null) {
          Jfr.parkEnd(park);
        }
        P pp = m.takeNextp();
        if (pp != null && s.acquirep(m, pp)) {
          return true;
        }
        m.timerWake = false;
        continue;
      }
      while (how == TimerSleeper.IDLE && !m.sleep(s.config.keepAliveNanos())) {
        s.lock.lock();
        try {
          if (leaveIfSurplusLocked(m)) {
            Jfr.parkEnd(park); // a counted park has its event, this exit's too (null-safe)
            return false;
          }
        } finally {
          s.lock.unlock();
        }
        // Still needed (or a wake-up is on its way): keep waiting.
      }
      if (park != null) {
        Jfr.parkEnd(park);
      }
      if (m.exitRequested) {
        return false;
      }
      P pp = m.takeNextp(); // getAndSet: Spares#takeLateHandoffLocked may have taken it back
      if (pp != null && s.acquirep(m, pp)) {
        return true;
      }
      // The P was retired while handed to us, or taken back while we were late: sleep again.
      if (m.spinning) {
        leaveSpinning(m);
      }
    }
  }

  /**
   * stopm past keepAlive: m leaves the idle list, to exit, if more Ms have checked in than there
   * are Ps. Ms whose thread has checked in, not mcount: a thread still starting may never run (a
   * dud), and counting it let this M, the one that can run, leave while the only P was in transit
   * to a dud, so the P came back from it to nobody (design.md, 4). m stops counting here, in this
   * lock hold (Threads#leavingLocked). Lock held.
   */
  boolean leaveIfSurplusLocked(M m) {
    if (!m.onIdleList || s.threads.checkedInLocked() <= s.gomaxprocs) {
      return false;
    }
    mremove(m);
    s.threads.leavingLocked(m);
    return true;
  }

  // ---------------------------------------------------------------- idle Ps

  /** pidleput; a P retired in transit is finished off instead. Lock held. */
  void pidleput(P pp) {
    if (pp.status() == P.Pdead) {
      s.retake.zombieDoneLocked(pp);
      return;
    }
    pp.setStatus(P.Pidle);
    pp.handedTo = null;
    pp.heldBy = null;
    pp.link = pidle;
    pp.onIdleList = true;
    pidle = pp;
    npidle = npidle + 1; // volatile write under the lock: Dekker (B), dropP's side
    if (Jfr.on) {
      Jfr.procState(s, pp.id, P.Pidle, null);
    }
  }
}
