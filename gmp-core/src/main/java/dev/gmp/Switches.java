package dev.gmp;

/**
 * Ablation switches for the seed mechanisms, read once from system properties so the JIT folds
 * them into constants. Not public API: they exist so gmp-bench can measure what each mechanism
 * costs or gains (docs/benchmarks.md), e.g. {@code -Dgmp.runnext=false}.
 */
final class Switches {
  private Switches() {}

  /** runnext slot: a task spawned by a running task runs next and inherits its time slice. */
  static final boolean RUNNEXT = flag("gmp.runnext", true);

  /** Every 61st schedtick take one task from the global queue before the local one. */
  static final boolean GLOBAL_CHECK_61 = flag("gmp.tick61", true);

  /** Steal half of a victim's ring (Go's runqgrab); false steals a single task. */
  static final boolean STEAL_HALF = flag("gmp.stealHalf", true);

  /** Back off ~3 us before stealing the runnext of a running P (its owner is about to run it). */
  static final boolean RUNNEXT_STEAL_BACKOFF = flag("gmp.runnextBackoff", true);

  /** Spin only while 2 * spinning < busy Ps; false lets every M with nothing to do spin. */
  static final boolean SPIN_LIMIT = flag("gmp.spinLimit", true);

  /**
   * Two-level free-G cache (gFree). Off by default: on the JVM a fresh G is a TLAB bump in the
   * young generation, while recycling walks linked lists of cold, old-generation Gs under the
   * lock; spawn_many_local ran 1.4-3x slower with it (docs/benchmarks.md). {@code
   * -Dgmp.gfree=true} turns Go's cache on.
   */
  static final boolean GFREE = flag("gmp.gfree", false);

  /**
   * Go's resetspinning wakes another M whenever the last spinner finds work; false (default)
   * wakes one only if work is still queued somewhere after the spinner stops (Idle#resetspinning).
   */
  static final boolean SPIN_WAKE_ALWAYS = flag("gmp.spinWakeAlways", false);

  /**
   * blocking() hands its P to another M at once when tasks are waiting (Go's entersyscallblock);
   * false leaves the hand-off to sysmon (Go's entersyscall).
   */
  static final boolean EAGER_HANDOFF = flag("gmp.eagerHandoff", true);

  /**
   * blocking()'s eager hand-off may start a new thread; false (default) lets it hand the P only
   * to an idle M and leaves the rest to sysmon's next round (>= 20 us later, as Go's retake),
   * since a thread start takes longer than a short call lasts (docs/benchmarks.md).
   */
  static final boolean EAGER_HANDOFF_NEW_THREAD = flag("gmp.eagerHandoffNewThread", false);

  /**
   * A blocking() call that returns to find no P finishes its task P-less, as a spare within the
   * budget (ForkJoinPool's compensation: the thread runs on), instead of queueing its G locked to
   * the M and parking until someone hands a P back (Go's exitsyscall). false restores Go's way.
   */
  static final boolean EXITSYSCALL_SPARE = flag("gmp.exitsyscallSpare", true);

  /**
   * An M that needs a P after its blocking call (exitsyscall, or its spare task done) and finds
   * none idle takes one from another M's marked call when work waits (Retake#takeSyscallPLocked):
   * the hand-off sysmon or an eager entersyscall would make to a woken M, made to an M already
   * awake. false leaves such Ps to sysmon's next round and eager hand-offs (Go's way).
   */
  static final boolean EXITSYSCALL_TAKE = flag("gmp.exitsyscallTake", true);

  /**
   * A virtual thread readied into an empty runnext from its own P (goready from a gmp carrier)
   * wakes no other M: the owner runs it next, as Tokio's LIFO slot does (Carriers). True wakes one
   * on every ready, as Go's ready() does (docs/benchmarks.md, virtual threads).
   */
  static final boolean VT_RUNNEXT_WAKE = flag("gmp.vtRunnextWake", false);

  /**
   * sysmon's fast detector of unmarked blocking (BlockDetector): a task found off the CPU for a
   * round while work waits loses its P within a round or two. false leaves unmarked blocking to
   * the time-slice rule (a whole slice, 10 ms by default), as before.
   */
  static final boolean BLOCK_DETECT = flag("gmp.blockDetect", true);

  /** runqputslow moves half the ring in one locked batch; false moves one task per overflow. */
  static final boolean BATCH_OVERFLOW = flag("gmp.batchOverflow", true);

  /**
   * Onspinwait rounds an M polls its wake-up note before it parks (~33 ns each on the reference
   * machine, so 256 is ~8 us, ForkJoinPool's deactivate spins as long). A wake-up within the
   * window skips both the unpark and the park: WakeupParallelSpinning 17-24% faster at 0-2 us
   * delays (docs/benchmarks.md). 0 parks at once, as Go does.
   */
  static final int IDLE_SPINS = intProp("gmp.idleSpins", 256);

  /**
   * How long (nanoseconds) the spinner wakep started may be on its way before an outside
   * submission that finds an idle P starts one more (Idle#wakeAnotherIfStale); 0 never does, as
   * Go's wakep. On a VM whose host steals CPU a woken thread can wait milliseconds for its vCPU,
   * and meanwhile every submission trusts it: p99 submit-to-start 4-6 ms against ForkJoinPool's
   * 0.4-1.2 ms, whose signalWork wakes up to the parallelism in parallel (docs/benchmarks.md).
   */
  static final int STALE_SPINNER_NANOS = intProp("gmp.staleSpinnerNanos", 100_000);

  /**
   * How long (nanoseconds) a P may sit in an idle M's hand-off, that M not yet running, before an
   * M that lost its P and needs one while work is queued (Spares.reacquire; a blocking
   * call past the spare budget) takes it back (Spares#takeLateHandoffLocked); 0 never does, as Go:
   * a P handed to a woken M is that M's. On a VM whose host steals CPU a woken thread can wait
   * hundreds of microseconds, while both Ps sit in transit and every returning M parks
   * (docs/benchmarks.md).
   */
  static final int LATE_HANDOFF_NANOS = intProp("gmp.lateHandoffNanos", 100_000);

  /**
   * A blocking call that work waits behind counts its M against the spare budget as it starts
   * (Syscall#entersyscall), so that its return, and a P-less M taking its P, need no lock: the
   * victim is counted already and the returning M knows it is (Spares#takeFree). False:
   * every return that lost its P settles under the scheduler lock, which many short calls queue
   * on (docs/benchmarks.md).
   */
  static final boolean PRECOUNT_CALLS = flag("gmp.precountCalls", true);

  /**
   * A spare that finds nothing to take without the lock (Spares#reacquire) retries that and
   * tryLock up to this many times, yielding its CPU in between, before it blocks on the lock:
   * blocked there, it waits to be unparked and then for a CPU, the lock idles meanwhile, and with
   * dozens of spares on 2 CPUs they queued for milliseconds (docs/benchmarks.md). 0: block at once.
   */
  static final int SPARE_LOCK_YIELDS = intProp("gmp.spareLockYields", 16);

  /**
   * sysmon's averaged sleep lateness (ns) above which the CPUs count as oversubscribed and
   * hand-offs that would grow the calls in flight wait (Oversubscription); 0: never.
   */
  static final int OVERSUBSCRIBED_LATE_NANOS = intProp("gmp.oversubscribedLateNanos", 250_000);

  private static boolean flag(String name, boolean dflt) {
    String v = System.getProperty(name);
    return v == null ? dflt : Boolean.parseBoolean(v.trim());
  }

  private static int intProp(String name, int dflt) {
    String v = System.getProperty(name);
    if (v == null) {
      return dflt;
    }
    try {
      int n = Integer.parseInt(v.trim());
      if (n < 0) {
        throw new IllegalArgumentException(name + " must be >= 0, was " + v);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be an integer, was '" + v + "'", e);
    }
  }
}
