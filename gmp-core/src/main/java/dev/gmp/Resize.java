package dev.gmp;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * procresize: GOMAXPROCS(n) without stopping the world. New Ps join the idle list; Ps past n die.
 * A dead P with an M goes on the zombie list (Retake); the M sees Pdead at its next scheduling
 * point (or its exitsyscall CAS fails), moves what is left to the global queue and looks for a
 * live P.
 *
 * <p>Who sets n: the API ({@link #setParallelismChecked}, from GmpExecutor and the MXBean), which
 * pins it, and sysmon following {@code Runtime.availableProcessors()} (Go 1.25's cgroup-aware
 * GOMAXPROCS, {@link #follow}) while it is not pinned. Both decide under the lock, so a value set
 * through the API is never overwritten by a sysmon round that read the CPU count before it.
 */
final class Resize {
  private Resize() {}

  /** The JVM's CPU count; a class, not a method reference, which a fresh JVM would link first. */
  static final class RuntimeCpus implements IntSupplier {
    static final RuntimeCpus INSTANCE = new RuntimeCpus();

    @Override
    public int getAsInt() {
      return Runtime.getRuntime().availableProcessors();
    }
  }

  /**
   * setParallelism from the API (GmpExecutor, JMX): validates n, naming the bad value.
   *
   * @throws IllegalArgumentException if n &lt; 1 or n &gt; maxThreads
   */
  static void setParallelismChecked(Scheduler s, int n) {
    if (n < 1 || n > GmpExecutor.MAX_PARALLELISM) {
      throw new IllegalArgumentException(
          "parallelism must be between 1 and " + GmpExecutor.MAX_PARALLELISM + ", was " + n);
    }
    if (n > s.config.maxThreads()) {
      throw new IllegalArgumentException(
          "parallelism must be <= maxThreads (" + s.config.maxThreads() + "), was " + n);
    }
    StackGuard.ensure(); // as in Lifecycle#shutdown: an overflow before the lock, not inside it
    resize(s, n, true);
  }

  /**
   * sysmon's look at the CPU count (Go 1.25's GOMAXPROCS updates, about once a second): unless
   * the parallelism is pinned, read it (Runtime.availableProcessors(), cgroup-aware) and resize
   * to it, capped at maxThreads. Read outside the lock (it may read cgroup files); {@link #follow}
   * rechecks the pin under the lock, so a concurrent setParallelism wins. Counted in cpuChecks
   * either way.
   */
  static void followAvailableProcessors(Scheduler s) {
    IntSupplier cpus = s.config.availableProcessors();
    if (cpus != null && !s.parallelismPinned) { // volatile: a stale false is rechecked by follow
      int n = Math.min(Math.max(1, cpus.getAsInt()), s.config.maxThreads());
      n = Math.min(n, GmpExecutor.MAX_PARALLELISM);
      if (n != s.gomaxprocs) {
        follow(s, n);
      }
    }
    Counters.count(s.counters.cpuChecks);
  }

  /**
   * sysmon: follow the CPU count {@code n} (already clamped to [1, maxThreads]) unless the
   * parallelism was pinned or the executor is shut down.
   */
  static void follow(Scheduler s, int n) {
    resize(s, n, false);
  }

  /**
   * Retires pp, which the caller has just dropped from procs: dead, its queue on the global one,
   * its timers to move once the lock is released. An idle P dies at once. One with an M (or in
   * transit to one) goes on the zombie list, and its owner gets a claim, as a retake's (Dekker J,
   * M#retakeClaim): a G it takes after the claim is settled under the lock before it starts
   * (back to the global queue, Retake#mayStartAfterClaim), so no task starts on pp once the
   * shrink returns; one that missed the claim had started before it. Lock held.
   */
  static void retireLocked(Scheduler s, P pp) {
    if (s.idle.pidlegetSpecific(pp) != null) {
      pp.setStatus(P.Pdead);
    } else {
      M early = Mutations.SHRINK_OWNER_FIRST ? pp.m() : null;
      for (; ; ) { // CAS loop: the owner may be entering or leaving a syscall right now
        int st = pp.status();
        if (st == P.Pdead || pp.casStatus(st, P.Pdead)) {
          break;
        }
      }
      // The owner after the dead mark: an M taking pp in transit writes itself as owner before
      // its own CAS (Scheduler#acquirep), so either that CAS fails or this read sees the M. Read
      // first, it could miss an M that then started tasks on pp after this call returned.
      // Volatile read after the CAS; the claim's volatile write needs no fence: nothing is read
      // back here, and the lock's release publishes it before the shrink returns.
      M owner = Mutations.SHRINK_OWNER_FIRST ? early : pp.m();
      if (owner != null) {
        owner.setClaimLocked(pp);
      }
      s.retake.zombies.add(pp); // capacity ensured by the caller
    }
    s.global.putRing(pp.runq);
    s.timers.willMoveLocked(); // Go's moveTimers, once the lock is released
    if (Jfr.on) {
      Jfr.procState(s, pp.id, P.Pdead, null);
    }
  }

  /** @param api true: a setParallelism call, which pins n; false: sysmon following the CPUs */
  private static void resize(Scheduler s, int n, boolean api) {
    List<P> retired = null;
    // The new Ps' islands, allocated before the lock (64 KB each; none when shrinking): a racy
    // read of the count, so the locked code allocates what a concurrent change made it miss.
    int more = n - s.gomaxprocs;
    G[][] islands = new G[Math.max(0, more)][];
    for (int i = 0; i < islands.length; i++) {
      islands[i] = CardIsland.allocate(RunQueue.LIVE);
    }
    s.lock.lock();
    try {
      if (api) {
        s.parallelismPinned = true;
      } else if (s.parallelismPinned || s.runState >= Scheduler.SHUTDOWN) {
        return;
      }
      int old = s.gomaxprocs;
      if (n == old) {
        return;
      }
      P[] cur = s.procs.all;
      if (n > old) {
        P[] next = Arrays.copyOf(cur, n);
        for (int i = old; i < n; i++) {
          int k = i - old;
          next[i] = new P(i, k < islands.length ? islands[k] : CardIsland.allocate(RunQueue.LIVE));
        }
        s.procs = new Procs(next);
        s.gomaxprocs = n;
        for (int i = n - 1; i >= old; i--) {
          s.idle.pidleput(next[i]);
        }
      } else {
        // Every allocation first: an OutOfMemoryError past here would leave Ps half retired.
        Procs fewer = new Procs(Arrays.copyOf(cur, n));
        s.retake.zombies.ensureCapacity(s.retake.zombies.size() + old - n);
        retired = new ArrayList<>(old - n);
        s.procs = fewer;
        s.gomaxprocs = n;
        for (int i = n; i < old; i++) {
          retireLocked(s, cur[i]);
          retired.add(cur[i]); // fits
        }
        Lifecycle.tryTidyLocked(s);
      }
    } finally {
      s.lock.unlock();
    }
    if (retired != null) {
      for (P pp : retired) {
        s.timers.moveAll(pp); // to live Ps (procs was replaced: an add there goes elsewhere)
        s.timers.moved();
      }
    }
    Lifecycle.finishTermination(s); // shrinking a shut-down executor may have ended it
    s.idle.wakep();
  }
}
