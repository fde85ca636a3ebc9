package dev.gmp;

import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;

/**
 * The scheduler's counters of rare events and the {@link GmpStats} snapshot built from them and
 * from the live structures (Tokio's stats.rs). Per-task counts (completed, steals) live on each M,
 * single-writer, and are summed here.
 */
final class Counters {
  /**
   * Counts one, unless the heap has no room for the adder's cell (a contended LongAdder
   * allocates one): stats may miss a count, but the state change around it is never left half
   * done by an OutOfMemoryError.
   */
  static void count(LongAdder a) {
    try {
      a.increment();
    } catch (OutOfMemoryError e) {
      // see above
    }
  }

  /** As {@link #count(LongAdder)}, {@code n} at once. */
  static void count(LongAdder a, long n) {
    try {
      a.add(n);
    } catch (OutOfMemoryError e) {
      // see count(LongAdder)
    }
  }

  final LongAdder parks = new LongAdder();
  final LongAdder unparks = new LongAdder();
  final LongAdder threadStartFailures = new LongAdder();

  /** Threads that had not checked in a while after their start: their P was taken back. */
  final LongAdder lateThreadStarts = new LongAdder();
  final LongAdder handoffs = new LongAdder();
  final LongAdder retakes = new LongAdder();
  final LongAdder preemptionRequests = new LongAdder();

  /**
   * Runnext chains sent to the global queue at an expired slice (SchedulingLoop#findRunnable):
   * what a request led to, where the request count also holds requests that found no chain.
   */
  final LongAdder runnextDemotions = new LongAdder();

  /**
   * sysmon's rounds. Volatile and written by sysmon alone, so a plain increment loses nothing
   * (the stats read it racily); a LongAdder's VarHandle CAS is the dearer path for one writer.
   */
  volatile long sysmonWakeups;

  /** Retakes on BlockDetector's verdict (within retakes; tests and the dump tell them apart). */
  final LongAdder blockRetakes = new LongAdder();

  /** Extra spinners started for outside work because wakep's was late (Idle#wakeAnotherIfStale). */
  final LongAdder staleSpinnerWakes = new LongAdder();

  /** Ps taken back from an idle M that was late to pick them up (Spares#takeLateHandoffLocked). */
  final LongAdder lateHandoffTakes = new LongAdder();

  /** sysmon's once-a-second looks at the CPU count, pinned or not (tests wait on it). */
  final LongAdder cpuChecks = new LongAdder();

  /** Scheduling latency, sampled (striped by CPU count: contention grows with cores, not Ps). */
  final SchedLatency latency = new SchedLatency(Runtime.getRuntime().availableProcessors());

  /**
   * A snapshot; fields are read without stopping anything, so may be from different instants.
   * The completed and steal counts never go down from one snapshot to the next (the exit
   * seqlock, Threads#exitSeq).
   */
  static GmpStats snapshot(Scheduler s) {
    P[] all = s.procs.all;
    int local = 0;
    for (P pp : all) {
      local += pp.runq.size();
    }
    int running = 0;
    int syscall = 0;
    int waiting = 0;
    int seq = s.threads.exitSeq; // volatile: the fold's seqlock, read before what it guards
    long completed = s.threads.retiredCompleted;
    long steals = s.threads.retiredSteals;
    int threads = 0;
    for (M m : s.threads.allm) {
      if (m == null) {
        continue; // freed (Threads#freemLocked)
      }
      if (m.life() != M.NEW) {
        threads++; // an M that startm is still getting a thread for is not a thread yet
      }
      completed += m.tasksEnded();
      steals += m.steals();
      G g = m.curg();
      if (g != null) {
        switch (g.statusOpaque()) {
          case G.Grunning -> running++;
          case G.Gsyscall -> syscall++;
          case G.Gwaiting -> waiting++;
          default -> {}
        }
      }
    }
    VarHandle.acquireFence(); // the counts above are read before the seqlock's second read
    if ((seq & 1) != 0 || s.threads.exitSeq != seq) {
      // A thread exited meanwhile: its counts may have been in neither place when read, and the
      // completed count went down between two snapshots (Prometheus reads a counter reset).
      // Again under the lock, which an exit holds from its slot to the totals (rare, as exits).
      StackGuard.ensure(); // stats() from any stack: an overflow here, not inside the lock
      s.lock.lock();
      try {
        completed = s.threads.retiredCompleted;
        steals = s.threads.retiredSteals;
        for (M m : s.threads.allm) {
          if (m != null) {
            completed += m.tasksEnded();
            steals += m.steals();
          }
        }
      } finally {
        s.lock.unlock();
      }
    }
    Carriers vc = s.carriers;
    int vthreads = vc == null ? 0 : (int) Math.min(Integer.MAX_VALUE, vc.liveCount());
    int parked = vc == null ? 0 : vc.parked();
    Counters c = s.counters;
    int global = Math.max(0, s.global.size());
    return new GmpStats(
        s.gomaxprocs,
        threads,
        s.idle.nmidle,
        s.idle.nmspinning(),
        s.idle.npidle,
        global,
        local,
        global + local,
        running,
        syscall,
        waiting + parked,
        completed,
        steals,
        c.parks.sum(),
        c.unparks.sum(),
        c.threadStartFailures.sum(),
        c.handoffs.sum(),
        c.retakes.sum(),
        c.preemptionRequests.sum(),
        s.spares.count,
        c.sysmonWakeups,
        s.threads.created,
        s.threads.peak,
        s.timers.pending(),
        s.timers.fired.sum(),
        s.timers.cancelledCount(),

        vthreads,
        parked);
  }
}
