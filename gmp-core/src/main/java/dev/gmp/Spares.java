package dev.gmp;

/**
 * An M that has no P after a task (a spare: its blocking call lost the P; or its P was retaken or
 * retired) finds one, or runs on without one, or parks: Go's exitsyscall0 and stopm for the JVM,
 * where the M that comes back is awake already and a P reaches a parked M only by a wake-up.
 */
final class Spares {
  private Spares() {}

  /**
   * Finds a P for an M that has none (after a retake): {@link SchedulingLoop#RETRY} once it holds
   * one, a G to run P-less (runOnLocked), or null if the M must exit.
   */
  static G reacquire(M m) {
    Scheduler s = m.sched;
    for (; ; ) {
      P pp;
      G runOn = null;
      s.lock.lock();
      try {
        boolean credit = m.runOnCredit;
        m.runOnCredit = false;
        if (m.ranOn) { // the task this M ran on is done: did it block, as the gamble assumed?
          m.ranOn = false;
          m.runOnOutcome(credit);
        }
        if (m.spare) { // a task finished P-less after its blocking call (Syscall): spare no more
          m.spare = false;
          s.threads.nmspare--;
          Lifecycle.tryTidyLocked(s);
        }
        pp = s.idle.pidleget();
        if (pp == null) {
          pp = s.retake.takeSyscallPLocked(m); // another call's P, when work waits for it
        }
        if (pp == null) {
          // Or one an idle M is late to pick up. Here, not in stopm: an M that merely found
          // nothing to do would take back the spinner wakep just started for it, a wasted
          // wake-up per park (forkJoinTree at parallelism 2: ~1.3 -> ~1.6 ms).
          pp = s.idle.takeLateHandoffLocked(m);
        }
        if (pp == null && credit) {
          runOn = runOnLocked(s, m);
        }
      } finally {
        s.lock.unlock();
      }
      if (runOn != null) {
        return runOn;
      }
      if (pp == null) {
        return s.idle.stopm(m) ? SchedulingLoop.RETRY : null;
      }
      if (s.acquirep(m, pp)) {
        return SchedulingLoop.RETRY;
      }
    }
  }

  /**
   * A spare whose task blocked (its call lost the P, or ran P-less) finds no P: rather than park
   * and leave the next queued task to a P-holding M, it runs that task P-less, still counted as
   * a spare, as ForkJoinPool's compensated worker runs on past the parallelism when its block
   * ends. A deviation from Go (a G without a P never runs there): on the JVM the thread is awake
   * already, while a P reaches a parked M only through a wake-up, so with many short calls the
   * calls in flight stop growing where returning Ms park as often as sysmon wakes one
   * (docs/benchmarks.md, "Spares run on"). The chain ends at a task that does not block (and the
   * M then passes up its next chances, M#runOnOutcome: CPU work run beside the Ps' own only
   * oversubscribes the CPUs), past the spare budget, at shutdownNow, and while a returning call
   * waits for a P (GlobalQueue#getForSpare). Switch gmp.spareRunOn. Lock held.
   */
  private static G runOnLocked(Scheduler s, M m) {
    if (!Switches.SPARE_RUN_ON
        || s.runState >= Scheduler.STOP
        || s.threads.nmspare >= s.config.maxSpareThreads()
        || s.global.liveSizeLocked() == 0 // nothing to run: no chance, so none passed up either
        || !m.mayRunOn()) {
      return null;
    }
    G gp = s.global.getForSpare();
    if (gp != null) {
      s.retake.markSpareLocked(m);
      s.counters.runOns.increment();
      m.ranOn = true;
    }
    return gp;
  }
}
