package dev.gmp;

import static dev.gmp.TestSupport.g;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

class GlobalQueueTest {

  @Test
  void batchSizeArithmetic() {
    assertEquals(3, GlobalQueue.batchSize(10, 4)); // 10/4 + 1
    assertEquals(128, GlobalQueue.batchSize(1000, 2)); // capped at half the ring
    assertEquals(1, GlobalQueue.batchSize(1, 8)); // never more than len
    assertEquals(1, GlobalQueue.batchSize(1, 1));
    assertEquals(2, GlobalQueue.batchSize(2, 1)); // min(len, len/1 + 1) = len
    assertEquals(101, GlobalQueue.batchSize(100, 1) + 1); // min(100, 101) = 100
    assertEquals(100, GlobalQueue.batchSize(100, 1));
    assertEquals(128, GlobalQueue.batchSize(256, 1));
    assertEquals(51, GlobalQueue.batchSize(100, 2));
    assertEquals(1, GlobalQueue.batchSize(7, 16));
    assertEquals(128, GlobalQueue.batchSize(Integer.MAX_VALUE, 3));
  }

  @Test
  void getBatchMovesNMinusOneIntoTheRing() {
    GlobalQueue gq = new GlobalQueue();
    P pp = new P(0);
    gq.lock.lock();
    try {
      for (int i = 0; i < 10; i++) {
        gq.put(g(i));
      }
      assertEquals(10, gq.size());
      G first = gq.getBatch(pp, 4); // n = 3
      assertEquals(0, first.goid);
      assertEquals(7, gq.size());
      assertEquals(2, pp.runq.size());
      assertEquals(1, pp.runq.pollRing().goid);
      assertEquals(2, pp.runq.pollRing().goid);
      assertNull(pp.runq.pollRing());
      assertEquals(3, gq.get().goid, "the rest stays in FIFO order");
      assertEquals(6, gq.size());
    } finally {
      gq.lock.unlock();
    }
  }

  @Test
  void getBatchLargeAndEmpty() {
    GlobalQueue gq = new GlobalQueue();
    P pp = new P(0);
    gq.lock.lock();
    try {
      assertNull(gq.getBatch(pp, 1));
      for (int i = 0; i < 1000; i++) {
        gq.put(g(i));
      }
      G first = gq.getBatch(pp, 2); // n = 128
      assertEquals(0, first.goid);
      assertEquals(127, pp.runq.size());
      assertEquals(1000 - 128, gq.size());
      List<Long> ids = new ArrayList<>();
      for (G x = pp.runq.pollRing(); x != null; x = pp.runq.pollRing()) {
        ids.add(x.id());
      }
      for (int i = 0; i < 127; i++) {
        assertEquals(i + 1L, ids.get(i));
      }
      GQueue out = new GQueue();
      gq.drainTo(out);
      assertEquals(1000 - 128, RunQueueTest.countOf(out));
      assertEquals(0, gq.size());
      assertEquals(128, out.pop().goid);
      assertNull(gq.get());
      assertTrue(pp.runq.isEmpty());
    } finally {
      gq.lock.unlock();
    }
  }

  /**
   * A take moves at most what it takes from the injection side: lock hold times are bounded by a
   * batch, not by the backlog (the whole backlog used to be copied under the lock).
   */
  @Test
  void aTakeMovesOnlyItsBatchFromTheInjectionSide() {
    GlobalQueue gq = new GlobalQueue();
    int backlog = GlobalQueue.INJECT_CAPACITY;
    for (int i = 1; i <= backlog; i++) {
      assertTrue(gq.inject(g(i)));
    }
    assertTrue(!gq.inject(g(backlog + 1)), "full: the caller must take the locked path");
    P pp = new P(0);
    gq.lock.lock();
    try {
      G first = gq.getBatch(pp, 1); // n = 128
      assertEquals(1, first.goid);
      assertEquals(127, pp.runq.size());
      assertEquals(backlog - 128, gq.liveSizeLocked());
      assertEquals(0, gq.arrayLengthLocked(), "nothing beyond the batch was moved");
      assertEquals(129, gq.get().goid, "FIFO across takes");
      assertEquals(0, gq.arrayLengthLocked());
    } finally {
      gq.lock.unlock();
    }
  }

  /** An injected G waits behind what is on the array when a take moves it, never for ever. */
  @Test
  void injectedWorkIsNotStarvedByLockedPuts() {
    GlobalQueue gq = new GlobalQueue();
    gq.inject(g(1000));
    gq.lock.lock();
    try {
      long next = 1;
      boolean seen = false;
      for (int round = 0; round < 10 && !seen; round++) {
        for (int i = 0; i < 5; i++) {
          gq.put(g(next++)); // a steady stream of overflow puts
        }
        for (G x = gq.get(); x != null && !seen; x = gq.get()) {
          seen = x.goid == 1000;
          if (gq.arrayLengthLocked() > 3) {
            break; // take a little, put more: the array never empties
          }
        }
      }
      assertTrue(seen, "the injected G was taken while puts kept coming");
    } finally {
      gq.lock.unlock();
    }
  }

  /**
   * An array that cannot grow (its largest size here; the heap out of room in production) spills
   * onto a linked list: every put of every kind is kept, counted, and taken in FIFO order, and
   * appends go back to the array once the spill has drained.
   */
  @Test
  void aFullArrayThatCannotGrowSpillsInOrder() {
    GlobalQueue gq = new GlobalQueue(new ReentrantLock(), n -> 0L, 256);
    P pp = new P(0);
    gq.lock.lock();
    try {
      long next = 0;
      for (int i = 0; i < 250; i++) {
        gq.put(g(next++));
      }
      // runqputslow's batch, the front half of a ring that wraps, then the displaced G: 6 fit,
      // 123 spill
      G[] ring = new G[2 + 256];
      for (int i = 0; i < 128; i++) {
        ring[2 + ((200 + i) & 255)] = g(next++);
      }
      gq.putAll(ring, 2, 200, 255, 128, g(next++));
      assertEquals(123, gq.spilledLocked());
      List<G> taken = new ArrayList<>();
      taken.add(gq.get()); // room on the array again
      gq.put(g(next++)); // behind the spill all the same
      assertEquals(124, gq.spilledLocked());
      G o1 = outside(0);
      G o2 = outside(0);
      gq.inject(o1);
      gq.inject(o2);
      gq.drainInjectedLocked(); // injected Gs spill too, numbered in order
      assertEquals(next + 1, gq.size());
      assertEquals(next + 1, gq.pendingSizeLocked());
      assertTrue(!gq.withdraw(o2), "a spilled G is accepted: it will be taken");
      for (G x = gq.getBatch(pp, 1); x != null; x = gq.getBatch(pp, 1)) {
        taken.add(x);
        for (G y = pp.runq.pollRing(); y != null; y = pp.runq.pollRing()) {
          taken.add(y);
        }
      }
      assertEquals(next + 2, taken.size());
      for (int i = 0; i < next; i++) {
        assertEquals(i, taken.get(i).goid, "FIFO across the array and the spill");
      }
      assertTrue(taken.get((int) next) == o1 && taken.get((int) next + 1) == o2);
      assertEquals(G.Grunnable, o2.status());
      assertEquals(0, gq.size());
      assertEquals(0, gq.spilledLocked());
      gq.put(g(1));
      assertEquals(0, gq.spilledLocked(), "back on the array once the spill drained");
      assertEquals(1, gq.get().goid);
    } finally {
      gq.lock.unlock();
    }
  }

  /** shutdownNow's drain takes spilled Gs too, after the array's. */
  @Test
  void drainingTakesTheSpill() {
    GlobalQueue gq = new GlobalQueue(new ReentrantLock(), n -> 0L, 256);
    gq.lock.lock();
    try {
      for (int i = 0; i < 300; i++) {
        gq.put(g(i));
      }
      assertEquals(44, gq.spilledLocked());
      GQueue out = new GQueue();
      assertEquals(300, gq.drainSomeLocked(out, 1000));
      for (int i = 0; i < 300; i++) {
        assertEquals(i, out.pop().goid);
      }
      assertEquals(0, gq.pendingSizeLocked());
    } finally {
      gq.lock.unlock();
    }
  }

  /** An outside submitter's G as submitExternal makes it: Gidle until a take moves it. */
  private static G outside(int id) {
    G g = new G();
    g.goid = id;
    g.task = () -> {};
    return g;
  }

  @Test
  void aWithdrawnGIsSkippedAndNotCounted() {
    GlobalQueue gq = new GlobalQueue();
    G a = outside(1);
    G b = outside(2);
    gq.inject(a);
    gq.inject(b);
    gq.lock.lock();
    try {
      assertTrue(gq.withdraw(a));
      assertEquals(1, gq.liveSizeLocked());
      assertEquals(2, gq.get().goid);
      assertEquals(G.Grunnable, b.status(), "a take makes what it moves runnable");
      assertEquals(0, gq.liveSizeLocked());
      assertNull(gq.get());
      assertTrue(!gq.withdraw(b), "a G already taken cannot be withdrawn");
    } finally {
      gq.lock.unlock();
    }
  }

  /**
   * A G moved onto the array and not yet taken is found by its position, one already taken is
   * not, and a later G in its old slot does not fool it; also across the 2^32 wrap of the
   * positions' low bits, which is all a G keeps of its position.
   */
  @Test
  void withdrawTellsAnUntakenGOnTheArrayByItsSlot() {
    for (long start : new long[] {0, (1L << 32) - 3, (1L << 33) - 1}) {
      GlobalQueue gq = new GlobalQueue();
      gq.lock.lock();
      try {
        gq.startPositionsForTest(start);
        G a = outside(1);
        G b = outside(2);
        G c = outside(3);
        gq.inject(a);
        gq.inject(b);
        gq.inject(c);
        gq.drainInjectedLocked(); // all three onto the array, none taken
        assertEquals(1, gq.get().goid, "from " + start);
        assertTrue(!gq.withdraw(a), "taken, from " + start);
        assertTrue(gq.withdraw(c), "on the array, from " + start);
        assertEquals(G.Gdead, c.status());
        assertEquals(1, gq.liveSizeLocked(), "from " + start);
        assertEquals(2, gq.get().goid, "from " + start);
        assertNull(gq.get(), "the withdrawn G is dropped, from " + start);
        assertEquals(0, gq.pendingSizeLocked(), "from " + start);
        // 2^32 positions later, d is on the array at a position with b's low bits.
        gq.startPositionsForTest(start + 1 + (1L << 32));
        G d = outside(4);
        gq.inject(d);
        gq.drainInjectedLocked();
        assertTrue(!gq.withdraw(b), "taken, a later G at its position's bits, from " + start);
        assertEquals(4, gq.get().goid, "from " + start);
      } finally {
        gq.lock.unlock();
      }
    }
  }

  /** Injected Gs are numbered from reservations of their own: no id twice, however many come. */
  @Test
  void injectedGsNeverShareAGoid() {
    java.util.concurrent.atomic.AtomicLong next = new java.util.concurrent.atomic.AtomicLong(1);
    GlobalQueue[] box = new GlobalQueue[1];
    java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
    // Each reservation lets more producers in (as concurrent submitters would arrive mid-move).
    box[0] = new GlobalQueue(lock, n -> {
      for (int i = 0; i < 5; i++) {
        box[0].inject(TestSupport.g(0));
      }
      return next.getAndAdd(n);
    });
    GlobalQueue q = box[0];
    java.util.Set<Long> ids = new java.util.HashSet<>();
    lock.lock();
    try {
      for (int round = 0; round < 5; round++) {
        for (int i = 0; i < 3; i++) {
          q.inject(TestSupport.g(0));
        }
        G g = q.get();
        assertTrue(ids.add(g.id()), "goid " + g.goid + " twice");
        GQueue rest = new GQueue();
        q.drainTo(rest);
        for (G x = rest.pop(); x != null; x = rest.pop()) {
          assertTrue(ids.add(x.id()), "goid " + x.goid + " twice");
        }
      }
    } finally {
      lock.unlock();
    }
    assertTrue(ids.size() > 3);
  }
}
