package dev.gmp;

// Idle's state, laid out so that the words every submit reads and every spinner writes
// (IdleHot) share no cache line with the lists written under the lock on every park (IdleLists),
// and the list operations themselves; Idle builds the protocol on them.

/** Padding before the words every submit reads and every spinner writes. */
abstract class IdlePad0 {
  long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/** The spinning words (Go's sched.nmspinning, npidle, needspinning), on their own lines. */
abstract class IdleHot extends IdlePad0 {
  /** Spinning Ms. Read directly (volatile); written through Idle.U_NMSPINNING (CAS / getAndAdd). */
  volatile int nmspinning;

  /** Idle Ps (Go's npidle); volatile: it takes part in the needspinning protocol. */
  volatile int npidle;

  /** Go 1.20's needspinning: work found no idle P; an M about to drop its P must spin. */
  volatile int needspinning;
}

abstract class IdlePad1 extends IdleHot {
  long p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p30, p31, p32, p33, p34, p35;
}

/** The idle lists, written under the scheduler lock on every park and unpark. */
abstract class IdleLists extends IdlePad1 {
  P pidle;
  M midle;
  /** Idle Ms; guarded by the lock, volatile for stats. */
  volatile int nmidle;

  /** startm found no idle M and the thread cap reached: the next M to park takes an idle P. */
  boolean mWanted;

  /**
   * When a spinner was claimed and started (System.nanoTime) and has not yet arrived (acquired its
   * P); 0 when none is on its way. Written through Idle.U_SPIN_CLAIMED_AT.
   */
  volatile long spinClaimedAt;

  // The lists themselves (Go's mput / mget / pidleget); every caller holds the scheduler lock.

  void mput(M m) {
    m.schedlink = midle;
    midle = m;
    m.onIdleList = true;
    nmidle++;
  }

  M mget() {
    M m = midle;
    if (m != null) {
      midle = m.schedlink;
      m.schedlink = null;
      m.onIdleList = false;
      nmidle--;
    }
    return m;
  }

  void mremove(M m) {
    M prev = null;
    for (M x = midle; x != null; prev = x, x = x.schedlink) {
      if (x == m) {
        if (prev == null) {
          midle = x.schedlink;
        } else {
          prev.schedlink = x.schedlink;
        }
        x.schedlink = null;
        x.onIdleList = false;
        nmidle--;
        return;
      }
    }
  }

  /** pidleget. Lock held. No sysmon wake-up here (Go wakes it only from exitsyscall). */
  P pidleget() {
    P pp = pidle;
    if (pp != null) {
      pidle = pp.link;
      pp.link = null;
      pp.onIdleList = false;
      pp.heldBy = Thread.currentThread(); // until placed or acquired (P#heldBy)
      npidle = npidle - 1;
    }
    return pp;
  }

  /** Takes a specific P off the idle list if it is there (exitsyscall prefers its old P). */
  P pidlegetSpecific(P want) {
    P prev = null;
    for (P x = pidle; x != null; prev = x, x = x.link) {
      if (x == want) {
        if (prev == null) {
          return pidleget();
        }
        prev.link = x.link;
        x.link = null;
        x.onIdleList = false;
        x.heldBy = Thread.currentThread(); // as in pidleget
        npidle = npidle - 1;
        return x;
      }
    }
    return null;
  }
}

abstract class IdlePad2 extends IdleLists {
  long p40, p41, p42, p43, p44, p45, p46, p47, p48, p49, p50, p51, p52, p53, p54, p55;
}
