package dev.gmp;

/**
 * The two-level cache of dead Gs (Go's gfput/gfget): a P keeps up to 64 locally without any
 * lock; past that it moves Gs to the scheduler's global list until fewer than 32 remain; an empty
 * local list refills 32 at once, so the lock is taken once per 32 reuses. Off with
 * {@code -Dgmp.gfree=false} (then every task gets a fresh G and dead ones go to the GC).
 */
final class GFree {
  static final int LOCAL_MAX = 64;
  static final int LOCAL_KEEP = 32;
  static final int REFILL = 32;

  /**
   * Cap on the global list. Go's never shrinks (it keeps every G in allgs); a JVM executor that
   * once queued a million tasks should not pin a million dead Gs forever, so beyond this the GC
   * takes them.
   */
  static final int GLOBAL_MAX = 16 * 1024;

  private GFree() {}

  /** gfget: a dead G for reuse, or null. Owner of {@code pp} only. */
  static G get(P pp, Scheduler s) {
    G g = pp.gFree;
    if (g == null) {
      if (s.gFreeCount == 0) { // racy hint: only an optimisation, refill rechecks under the lock
        return null;
      }
      if (!StackGuard.hasRoom()) {
        return null; // a spawn near its stack's end: a new G, not the lock (StackGuard)
      }
      s.lock.lock();
      try {
        while (pp.gFreeCount < REFILL && s.gFreeList != null) {
          G x = s.gFreeList;
          s.gFreeList = x.schedlink;
          s.gFreeCount--;
          x.schedlink = pp.gFree;
          pp.gFree = x;
          pp.gFreeCount++;
        }
      } finally {
        s.lock.unlock();
      }
      g = pp.gFree;
      if (g == null) {
        return null;
      }
    }
    pp.gFree = g.schedlink;
    pp.gFreeCount--;
    g.schedlink = null;
    return g;
  }

  /** gfput: recycles a dead G. Owner of {@code pp} only. */
  static void put(P pp, G g, Scheduler s) {
    g.schedlink = pp.gFree;
    pp.gFree = g;
    if (++pp.gFreeCount >= LOCAL_MAX) {
      s.lock.lock();
      try {
        while (pp.gFreeCount >= LOCAL_KEEP) {
          G x = pp.gFree;
          pp.gFree = x.schedlink;
          pp.gFreeCount--;
          if (s.gFreeCount < GLOBAL_MAX) {
            x.schedlink = s.gFreeList;
            s.gFreeList = x;
            s.gFreeCount++;
          } else {
            x.schedlink = null;
          }
        }
      } finally {
        s.lock.unlock();
      }
    }
  }
}
