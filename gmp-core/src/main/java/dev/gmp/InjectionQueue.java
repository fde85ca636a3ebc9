package dev.gmp;

import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;

/*
 * Padding: the producers' index (CASed by every outside submission), the consumer's index
 * (advanced under the scheduler lock, read by producers only when their cached limit runs out)
 * and the slot array's reference each sit on their own pair of cache lines, as in
 * RunQueueFields.
 */
abstract class InjectionPad0 {
  long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

abstract class InjectionProducers extends InjectionPad0 {
  /** Slots ever claimed: a producer owns slot {@code producerIndex} once its CAS moved it on. */
  volatile long producerIndex;

  /**
   * Producers' cached bound: below it a slot is free without reading the consumer's index.
   * Plain, written after a release fence and read before an acquire fence: a stale value only
   * sends a producer to read the consumer's index.
   */
  long producerLimit;
}

abstract class InjectionPad1 extends InjectionProducers {
  long p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p30, p31, p32, p33, p34, p35;
}

abstract class InjectionConsumer extends InjectionPad1 {
  /**
   * Slots ever taken. One writer (the scheduler lock's holder); plain, published with a release
   * fence and read by others before an acquire fence.
   */
  long consumerIndex;
}

abstract class InjectionPad2 extends InjectionConsumer {
  long p40, p41, p42, p43, p44, p45, p46, p47, p48, p49, p50, p51, p52, p53, p54, p55;
}

/**
 * The global queue's injection side: a bounded multi-producer, single-consumer ring of Gs, the
 * algorithm of JCTools' {@code MpscArrayQueue}: a producer claims slot {@code i} with a CAS on
 * {@code producerIndex} and then stores its G there (a release store); the consumer (the
 * scheduler lock's holder) takes slot {@code consumerIndex} once it holds a G, clears it and
 * moves its index on (a release store), which frees the slot for a producer a lap later.
 *
 * <p>Why not JCTools itself (what gmp-core used until 2026-12-03): the one JCTools variant gmp-core
 * can use without {@code sun.misc.Unsafe} warnings reaches its slots through {@code
 * AtomicReferenceArray}, whose VarHandle accesses cost tens of nanoseconds each until C2
 * compiles the caller; before C2 they were a third of a submitter's CPU and 43% of the Ms' on
 * outside submissions (docs/benchmarks.md, "The injection ring, spelled with fences"). Here the
 * slot accesses are plain array accesses with explicit fences (setRelease and getAcquire as
 * fences), cheap in every tier; C2 emits the same instructions as JCTools' Unsafe variant.
 *
 * <p>What GlobalQueue relies on: {@link #size} counts a slot from its claim (the CAS, a full
 * barrier) on, before its G is stored; {@link #relaxedPoll} and {@link #relaxedPeek} return null
 * at a slot claimed and not yet filled and never wait for its producer; the producer's caller
 * fences after {@link #offer} (Scheduler#injectOrPut: Dekker A and C).
 */
final class InjectionQueue extends InjectionPad2 {
  private static final AtomicLongFieldUpdater<InjectionProducers> PRODUCER_INDEX =
      AtomicLongFieldUpdater.newUpdater(InjectionProducers.class, "producerIndex");

  private final G[] slots;
  private final int mask;

  /** @param capacity a power of two */
  InjectionQueue(int capacity) {
    if (Integer.bitCount(capacity) != 1) {
      throw new IllegalArgumentException("capacity must be a power of two, was " + capacity);
    }
    slots = new G[capacity];
    mask = capacity - 1;
    producerLimit = capacity; // published with the queue (GlobalQueue's final field)
  }

  /** Any thread: claims a slot and stores {@code g} there; false if the ring is full. */
  boolean offer(G g) {
    long limit = producerLimit;
    VarHandle.acquireFence(); // acquire: pairs with the fence before another producer's update
    // Release, before the claim rather than after it: whoever reads the slot (with acquire) sees g
    // as made, and no call stands between the claim and the store, where a StackOverflowError
    // (a submitter deep in a recursion) would leave a claimed slot never filled, and every take
    // stopped at it for good.
    VarHandle.releaseFence();
    long i;
    do {
      i = producerIndex; // volatile
      if (i >= limit) {
        limit = consumerIndexAcquire() + slots.length; // slots below it have been taken
        if (i >= limit) {
          return false;
        }
        VarHandle.releaseFence(); // a racy cache: any producer's recent value is a valid bound
        producerLimit = limit;
      }
    } while (!PRODUCER_INDEX.compareAndSet(this, i, i + 1)); // the claim: countable from here
    slots[(int) i & mask] = g; // plain, released by the fence above (and the CAS)
    return true;
  }

  /**
   * The G in the oldest slot, taken; null when the ring is empty or that slot is claimed and not
   * filled yet. The scheduler lock's holder only.
   */
  G relaxedPoll() {
    long c = consumerIndex; // plain: our own write, or one the lock published
    int at = (int) c & mask;
    G g = slots[at];
    VarHandle.acquireFence(); // acquire: pairs with the producer's fence before its store
    if (g == null) {
      return null;
    }
    slots[at] = null; // plain: ordered before the index store below by its release fence
    VarHandle.releaseFence(); // release: a producer that sees the new index finds the slot clear
    consumerIndex = c + 1;
    return g;
  }

  /** The G in the oldest slot, or null (as {@link #relaxedPoll}, without taking it). Any thread. */
  G relaxedPeek() {
    long c = consumerIndexAcquire();
    G g = slots[(int) c & mask];
    VarHandle.acquireFence(); // acquire: the G's fields as its producer made them
    return g;
  }

  /** Slots claimed and not taken, filled or not. Any thread: exact only when nobody moves. */
  int size() {
    long after = consumerIndexAcquire();
    for (; ; ) {
      long before = after;
      long p = producerIndex;
      after = consumerIndexAcquire();
      if (before == after) {
        return (int) Math.max(0, Math.min(slots.length, p - after));
      }
    }
  }

  /** Test seam: a producer that has claimed its slot and not stored its G yet. */
  void claimSlotForTest() {
    PRODUCER_INDEX.getAndIncrement(this);
  }

  private long consumerIndexAcquire() {
    long c = consumerIndex;
    VarHandle.acquireFence();
    return c;
  }
}
