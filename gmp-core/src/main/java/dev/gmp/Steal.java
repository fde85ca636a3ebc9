package dev.gmp;

/** Go's stealWork: an M with an empty P takes half of another P's ring (RunQueue#stealFrom). */
final class Steal {
  /** Go's stealTries. */
  static final int STEAL_TRIES = 4;

  private Steal() {}

  /**
   * stealWork: up to 4 passes over the other Ps in a random order (random start, random step
   * coprime to the count, so each pass visits every P once); idle Ps are skipped; only the last
   * pass may take a victim's runnext.
   */
  static G stealWork(M m, P pp) {
    Scheduler s = m.sched;
    for (int i = 0; i < STEAL_TRIES; i++) {
      boolean last = i == STEAL_TRIES - 1;
      Procs procs = s.procs;
      P[] all = procs.all;
      int n = all.length;
      if (n < 2) {
        return null;
      }
      int[] cp = procs.coprimes;
      int pos = m.nextRandom() % n;
      int inc = cp[m.nextRandom() % cp.length];
      for (int k = 0; k < n; k++, pos = (pos + inc) % n) {
        P p2 = all[pos];
        if (p2 == pp) {
          continue;
        }
        if (p2.onIdleList) { // its ring is empty; a P in transit to an M is fair game
          continue;
        }
        G gp = pp.runq.stealFrom(p2.runq, last, p2.status() == P.Prunning);
        if (gp != null) {
          m.incSteals();
          if (Jfr.on) {
            // Our ring was empty before the steal: what it holds now, plus gp, is what we took
            // (less if another thief took from us meanwhile).
            Jfr.steal(s, pp.id, p2.id, pp.runq.ringSize() + 1);
          }
          return gp;
        }
      }
      if (s.global.size() != 0) {
        return null; // new global work: go back and take it the cheap way
      }
    }
    return null;
  }
}
