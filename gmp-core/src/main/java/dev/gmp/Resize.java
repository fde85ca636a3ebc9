package dev.gmp;

import java.util.Arrays;

/**
 * procresize: GOMAXPROCS(n) without stopping the world. New Ps join the idle list; Ps past n die.
 * A dead P with an M goes on the zombie list (Retake); the M sees Pdead at its next scheduling
 * point (or its exitsyscall CAS fails), moves what is left to the global queue and looks for a
 * live P.
 */
final class Resize {
  private Resize() {}

  /**
   * setParallelism from the API (GmpExecutor, JMX): validates n, naming the bad value.
   *
   * @throws IllegalArgumentException if n &lt; 1 or n &gt; maxThreads
   */
  static void setParallelismChecked(Scheduler s, int n) {
    if (n < 1) {
      throw new IllegalArgumentException("parallelism must be >= 1, was " + n);
    }
    if (n > s.config.maxThreads()) {
      throw new IllegalArgumentException(
          "parallelism must be <= maxThreads (" + s.config.maxThreads() + "), was " + n);
    }
    setParallelism(s, n);
  }

  static void setParallelism(Scheduler s, int n) {
    s.lock.lock();
    try {
      int old = s.gomaxprocs;
      if (n == old) {
        return;
      }
      P[] cur = s.procs.all;
      if (n > old) {
        P[] next = Arrays.copyOf(cur, n);
        for (int i = old; i < n; i++) {
          next[i] = new P(i);
        }
        s.procs = new Procs(next);
        s.gomaxprocs = n;
        for (int i = n - 1; i >= old; i--) {
          s.idle.pidleput(next[i]);
        }
      } else {
        s.procs = new Procs(Arrays.copyOf(cur, n));
        s.gomaxprocs = n;
        for (int i = n; i < old; i++) {
          P pp = cur[i];
          if (s.idle.pidlegetSpecific(pp) != null) {
            pp.setStatus(P.Pdead);
          } else {
            for (; ; ) { // CAS loop: the owner may be entering or leaving a syscall right now
              int st = pp.status();
              if (st == P.Pdead || pp.casStatus(st, P.Pdead)) {
                break;
              }
            }
            s.retake.zombies.add(pp);
          }
          s.global.putRing(pp.runq);
        }
        Lifecycle.tryTidyLocked(s);
      }
    } finally {
      s.lock.unlock();
    }
    Lifecycle.finishTermination(s); // shrinking a shut-down executor may have ended it
    s.idle.wakep();
  }
}
