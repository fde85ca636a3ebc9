package dev.gmp;

/*
 * Padding: head (CASed by every consumer), tail (written by the owner) and runnext (CASed by the
 * owner and thieves) each sit on their own pair of cache lines. The JVM lays out superclass fields
 * first, so a chain of classes is the only flag-free way to order fields (@Contended needs
 * -XX:-RestrictContended, which a drop-in library cannot ask for).
 */
abstract class RunQueuePad0 {
  long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

abstract class RunQueueHead extends RunQueuePad0 {
  volatile int head;

  // Owner-only, for RunQueue#pollRing: slots below this index hold no G (nulled); those between
  // it and head were taken by other consumers and still hold theirs until the owner nulls them.
  // On head's line, which the owner's take has just CASed: on tail's, each take would invalidate
  // the line thieves read tail from.
  int cleared;
}

abstract class RunQueuePad1 extends RunQueueHead {
  long p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p30, p31, p32, p33, p34, p35;
}

abstract class RunQueueTail extends RunQueuePad1 {
  volatile int tail;

  // Owner-only, for RunQueue#popNewest, on tail's line, which popNewest writes anyway: the head
  // the owner saw at its last look, and the highest tail in effect while head has had that value.
  // Free-running ints, compared by difference.
  int lookHead;
  int lookHigh;

  // Owner-only, for RunQueue#popNewest: the tail after the last batch (the global queue's, a
  // steal's, a retaken P's). Gs from here up were pushed one at a time by this P's own tasks.
  int spawnedFrom;

  // Owner-only, for RunQueue#headFromGlobal: the tail after the last batch from the global queue.
  int globalEnd;

  // Written by the owner only, read by shutdownNow (RunQueue#moves): odd while Gs it claimed
  // (a steal into this ring, an overflow to the global queue) are in no queue. On tail's line,
  // which a move writes anyway.
  volatile int moves;
}

abstract class RunQueuePad2 extends RunQueueTail {
  long p40, p41, p42, p43, p44, p45, p46, p47, p48, p49, p50, p51, p52, p53, p54, p55;
}

abstract class RunQueueNext extends RunQueuePad2 {
  /**
   * runnext, as a number rather than the G: 0 when empty, else the sequence number of the owner's
   * put whose G sits in runnext's slot (RunQueue). A long written through an updater is no
   * reference store, so no card mark (CardIsland); and it never comes back, so a thief's CAS on a
   * value it read cannot succeed after the slot was reused.
   */
  volatile long runnext;
}

abstract class RunQueuePad3 extends RunQueueNext {
  long p60, p61, p62, p63, p64, p65, p66, p67, p68, p69, p70, p71, p72, p73, p74, p75;
}
