package dev.gmp;

/**
 * Deliberate bugs for gmp-stress to prove that its tests have teeth (docs/stress.md). MUTANT
 * variant: compiled only by the {@code mutants} Maven profile ({@code -Pmutants}, build
 * directory {@code target/mutants}); the production build compiles
 * src/production/java/dev/gmp/Mutations.java, whose constants are all {@code false}. Each flag is
 * read once from a system property ({@code -Dgmp.mutate.NAME=true}), default false. Never set
 * these outside a stress run. Keep the two variants' fields in step.
 */
final class Mutations {
  private Mutations() {}

  /** runqput replaces runnext with a plain read + release store instead of a CAS. */
  static final boolean PLAIN_RUNNEXT = flag("plainRunnext");

  /**
   * runqgrab's runnext steal reads runnext's slot after its CAS, when the owner may already have
   * reused the slot (two puts later) for another G.
   */
  static final boolean NEXT_SLOT_AFTER_CAS = flag("nextSlotAfterCas");

  /**
   * A waiter's take-back of its future's G from runnext (RunQueue#takeOwnRunnextIf) clears
   * runnext with a plain store instead of a CAS, racing a thief's take of the same G.
   */
  static final boolean TAKE_BACK_NO_CAS = flag("takeBackNoCas");

  /**
   * popNewest takes the ring's newest G whenever the ring holds two or more, ignoring the bound
   * below which a thief with a stale tail may be claiming it.
   */
  static final boolean POP_NEWEST_UNBOUNDED = flag("popNewestUnbounded");

  /** runqgrab advances the victim's head with a plain store instead of a CAS. */
  static final boolean GRAB_NO_CAS = flag("grabNoCas");

  /** runqgrab takes n/2 (rounded down) instead of n - n/2. */
  static final boolean STEAL_HALF_DOWN = flag("stealHalfDown");

  /** runqput computes the slot as abs(t % 256): wrong once the free-running index wraps. */
  static final boolean SIGNED_SLOT = flag("signedSlot");

  /** runqputslow claims the half it moves with a plain store of head instead of a CAS. */
  static final boolean PUTSLOW_NO_CAS = flag("putslowNoCas");

  /** runqputslow pushes its batch onto the global queue without taking the lock. */
  static final boolean PUTSLOW_NO_LOCK = flag("putslowNoLock");

  /** A spinning M that drops its P skips the recheck of every queue. */
  static final boolean NO_RECHECK = flag("noRecheck");

  /** Leaving the spinning state is a plain decrement (no StoreLoad before the recheck). */
  static final boolean DROP_SPINNING_NO_FENCE = flag("dropSpinningNoFence");

  /** A non-spinning M dropping its P ignores needspinning (the pre-Go-1.20 race). */
  static final boolean NO_NEEDSPINNING = flag("noNeedspinning");

  /** A spinner's recheck that finds work but no idle P does not set needspinning. */
  static final boolean NO_PIDLEGET_SPINNING = flag("noPidlegetSpinning");

  /** submitExternal checks the run state only before injecting, not again after. */
  static final boolean SUBMIT_CHECK_UNLOCKED = flag("submitCheckUnlocked");

  /** RunQueue.moveTo drains the retaken P's ring without stopping at the target's capacity. */
  static final boolean MOVE_TO_UNBOUNDED = flag("moveToUnbounded");

  /**
   * sysmon's retake of a running task marks the P dead without its claim on the task and second
   * look at the M's count (Dekker J), so an M that ends the task after the check starts its next
   * one on that P.
   */
  static final boolean RETAKE_NO_CLAIM = flag("retakeNoClaim");

  /**
   * A shrink reads a retired P's owner before marking it dead (the code before 2026-12-07), so an
   * M whose acquirep CAS lands between the two gets no claim and may start tasks on the dead P.
   */
  static final boolean SHRINK_OWNER_FIRST = flag("shrinkOwnerFirst");

  /** exitsyscall's fast path reads and then writes the P's status instead of CASing it. */
  static final boolean EXITSYSCALL_NO_CAS = flag("exitsyscallNoCas");

  /** The timer sleeper publishes its deadline with a release store and no StoreLoad fence. */
  static final boolean TIMER_SLEEPER_NO_FENCE = flag("timerSleeperNoFence");

  /** submitExternal calls wakep only when it sees an idle P (safe only while it put under lock). */
  static final boolean EXTERNAL_WAKE_IF_IDLE = flag("externalWakeIfIdle");

  /** A late hand-off is taken back, and picked up, with a read and a plain write, not atomically. */
  static final boolean LATE_HANDOFF_NO_CAS = flag("lateHandoffNoCas");

  /** A future's run is claimed with a read of its runner and a plain write, not a CAS. */
  static final boolean FUTURE_RUN_NO_CAS = flag("futureRunNoCas");

  /** A future that ends reads its waiters' latch before its state CAS, not after it. */
  static final boolean FUTURE_WAKE_EARLY = flag("futureWakeEarly");

  /** exitsyscall's fast path under EXITSYSCALL_NO_CAS: a read, a pause, then a plain write. */
  static boolean setRunning(P pp) {
    Thread.onSpinWait();
    pp.setStatus(P.Prunning);
    return true;
  }

  private static boolean flag(String name) {
    return Boolean.getBoolean("gmp.mutate." + name);
  }
}
