package dev.gmp;

/**
 * The switches, read once from system properties so the JIT folds them into constants: the seed
 * mechanisms' ablations (runnext, the 61-tick check, steal-half, the runnext back-off, the spin
 * limit, batch overflow, gFree) and three of gmp's own (the block detector, the idle spin, the
 * owner's newest-first pop). Not public API: they exist so gmp-bench can measure what each costs
 * or gains (docs/benchmarks.md), e.g. {@code -Dgmp.runnext=false}, and CI runs each non-default
 * value (gmp-core's pom). Every other choice is a constant next to the code it tunes.
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
   * lock (docs/benchmarks.md, "Ablation"). {@code -Dgmp.gfree=true} turns Go's cache on.
   */
  static final boolean GFREE = flag("gmp.gfree", false);

  /**
   * sysmon's fast detector of unmarked blocking (BlockDetector): a task found off the CPU for a
   * round while work waits loses its P within a round or two. false leaves unmarked blocking to
   * the time-slice rule (a JVM wait state a whole slice long).
   */
  static final boolean BLOCK_DETECT = flag("gmp.blockDetect", true);

  /** runqputslow moves half the ring in one locked batch; false moves one task per overflow. */
  static final boolean BATCH_OVERFLOW = flag("gmp.batchOverflow", true);

  /**
   * With two or more Ps, the owner takes the newest G its own tasks pushed to its ring when no
   * thief can be claiming it (RunQueue#popNewest), except on every 61st tick; false takes the
   * oldest, as Go does (and as one P always does).
   */
  static final boolean LIFO_POP = flag("gmp.lifoPop", true);

  /**
   * Onspinwait rounds an M polls its wake-up note before it parks (a few microseconds, about as
   * long as ForkJoinPool's deactivate spins). A wake-up within the window skips both the unpark
   * and the park (docs/benchmarks.md, "Ablation"). 0 parks at once, as Go does.
   */
  static final int IDLE_SPINS = intProp("gmp.idleSpins", 256);

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
