package dev.gmp;

/**
 * Whether the CPUs are oversubscribed, from how late sysmon's own timed sleeps end: a thread that
 * becomes runnable while every CPU is taken waits for one, and sysmon is such a thread at every
 * round. The sample is free (sysmon reads the clock around its sleep anyway) and measures what
 * matters here: how long a blocking call's thread, its call over, waits for a CPU before it can
 * return. While that wait is long, another thread in flight only waits as well: many short
 * calls in flight cost kernel time (a timed park and a wake-up each)
 * until the CPUs do little else (docs/benchmarks.md, "Calls in flight past the CPUs").
 *
 * <p>Then hand-offs that would grow the calls in flight wait (Syscall#entersyscall's eager
 * hand-off; sysmon retakes a marked call's P only once it is {@link Sysmon#SYSCALL_RETAKE_NANOS}
 * old): the Ms already in flight run the queued work as their calls return (Spares). Only past
 * {@link #MIN_SPARES_PER_P} spares per P, so a handful of calls blocked on each other are never
 * held back, and never longer than the 10 ms bound: liveness is kept, at a bounded delay.
 *
 * <p>The same lateness lengthens how long a wait inside the JVM must last before the block
 * detector takes it for the task's own ({@link #vmWaitNanos}).
 *
 * <p>On while the average is over {@link #LATE_NANOS} and the
 * calls are short next to it; off below half of it. sysmon alone writes; Ms read {@link #on} as a
 * hint (volatile: it changes rarely, and a stale read only grants or skips one hand-off).
 */
final class Oversubscription {
  /** sysmon's averaged sleep lateness above which the CPUs count as oversubscribed. */
  static final long LATE_NANOS = 250_000;

  /**
   * Slices a wait inside the JVM (a futex) must last to count as the task's own while the CPUs
   * are oversubscribed ({@link #vmWaitNanos}).
   */
  static final int VM_WAIT_SLICES = 4;

  /** Spares per P below which nothing is held back. */
  static final int MIN_SPARES_PER_P = 4;

  /**
   * Calls longer than this many times the CPU wait are never held back. sysmon's lateness
   * understates an M's wait (sysmon sleeps more, so the kernel favours it), hence a wide factor
   * (docs/benchmarks.md, "Calls in flight past the CPUs").
   */
  static final int CALL_TO_LATE = 8;

  /** sysmon's sleep lateness, exponentially averaged over ~8 rounds, in ns (sysmon only). */
  private long lateAvg;

  private volatile boolean on;

  /** Whether sysmon's sleeps end late, calls or not: {@link #on}'s first half (sysmon only). */
  private boolean late;

  /**
   * A round's lateness: how much longer than asked sysmon's sleep took; callNanos, the calls'
   * average length as their returns saw it (Retake#noteLongCall), CPU wait included (sysmon only).
   */
  void sample(long lateNanos, long callNanos) {
    long limit = LATE_NANOS;
    lateAvg += (Math.max(0, lateNanos) - lateAvg) >> 3;
    // Not while the calls are long next to that wait (over CALL_TO_LATE times it): a 5 ms call
    // whose thread waits 200 us for a CPU loses more waiting for a P than its thread costs; nor
    // before any call has returned to a lost P (0: no evidence that they are short). Off below
    // half the limit (hysteresis), so a mean near it does not flap.
    boolean shortCalls = callNanos > 0 && callNanos < CALL_TO_LATE * lateAvg;
    late = lateAvg > limit || late && lateAvg >= limit / 2; // the same hysteresis
    boolean next = lateAvg > limit && shortCalls || on && lateAvg >= limit / 2 && shortCalls;
    if (next != on) {
      on = next; // written on a change only: every M with work waiting reads it per call
    }
  }

  /** sysmon goes into its deep sleep: nothing is in flight, start afresh when it wakes. */
  void reset() {
    lateAvg = 0;
    late = false;
    on = false;
  }

  /** Whether a hand-off that grows the calls in flight should wait (a hint, racy reads). */
  boolean holdsBack(Scheduler s) {
    return on && s.spares.count >= MIN_SPARES_PER_P * s.gomaxprocs;
  }

  /**
   * How long a task asleep inside the JVM (a futex: a VM lock, a safepoint, a class initialiser)
   * must stay there, at under an eighth of a CPU, before the detector takes the wait for the
   * task's own (BlockDetector#callVerdict): the slice, or {@link #VM_WAIT_SLICES} slices while
   * sysmon's own sleeps end late (over {@link #LATE_NANOS}, until under half of it: a bound that
   * flapped with the average let a 14 ms wait count). VM locks and safepoints are held for
   * microseconds of CPU, but their waiters wait as long as the holder waits for a CPU: beside a
   * CPU burner tasks allocating sat in a futex for just over a 10 ms slice, with sysmon 0.8-1.2
   * ms late, and lost their Ps, so a third thread ran tasks at parallelism 2 (docs/design.md,
   * section 3.1). Such a wait is contention that a hand-off cannot shorten, like a wait for a
   * lock another running task holds. A task that does wait there for long (a class initialiser
   * that blocks) still loses its P, later. Plain read of late: sysmon's own, as the detector is.
   */
  long vmWaitNanos(long slice) {
    return late || testLate > LATE_NANOS ? VM_WAIT_SLICES * slice : slice;
  }

  /**
   * Test seam: a lateness {@link #vmWaitNanos} takes as sysmon's (0 but in tests, which cannot
   * make a machine busy on demand). Volatile: a test thread writes it while sysmon runs.
   */
  volatile long testLate;

  /** Whether sysmon's last samples said oversubscribed (before the spare floor). */
  boolean on() {
    return on;
  }
}
