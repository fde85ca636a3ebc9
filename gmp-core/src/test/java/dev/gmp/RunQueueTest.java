package dev.gmp;

import static dev.gmp.TestSupport.g;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class RunQueueTest {

  private static List<Long> drainGlobal(GlobalQueue gq) {
    List<Long> ids = new ArrayList<>();
    gq.lock.lock();
    try {
      for (G x = gq.get(); x != null; x = gq.get()) {
        ids.add(x.id());
      }
    } finally {
      gq.lock.unlock();
    }
    return ids;
  }

  private static List<Long> pollAll(RunQueue q) {
    List<Long> ids = new ArrayList<>();
    for (G x = q.pollRing(); x != null; x = q.pollRing()) {
      ids.add(x.id());
    }
    return ids;
  }

  /** The owner's takes in the scheduler's order (popNewest) until the ring is empty. */
  private static List<Long> popAll(RunQueue q) {
    List<Long> ids = new ArrayList<>();
    for (G x = q.popNewest(); x != null; x = q.popNewest()) {
      ids.add(x.id());
    }
    return ids;
  }

  @Test
  void ownerOrderIsRunnextFirstThenFifo() {
    RunQueue q = new RunQueue();
    GlobalQueue gq = new GlobalQueue();
    assertTrue(q.isEmpty());
    q.put(g(1), false, gq);
    q.put(g(2), false, gq);
    q.put(g(3), true, gq);
    q.put(g(4), false, gq);
    assertFalse(q.isEmpty());
    assertEquals(4, q.size());
    assertEquals(3, q.takeRunnext().goid);
    assertNull(q.takeRunnext());
    assertEquals(List.of(1L, 2L, 4L), pollAll(q));
    assertTrue(q.isEmpty());
    assertEquals(0, q.size());
    assertEquals(0, gq.size());
  }

  @Test
  void runnextDisplacementGoesToTail() {
    RunQueue q = new RunQueue();
    GlobalQueue gq = new GlobalQueue();
    q.put(g(1), false, gq);
    q.put(g(10), true, gq);
    q.put(g(11), true, gq); // displaces 10 to the tail
    q.put(g(12), true, gq); // displaces 11 to the tail
    assertEquals(12, q.runnextForTest().goid);
    assertEquals(4, q.size());
    assertEquals(12, q.takeRunnext().goid);
    assertEquals(List.of(1L, 10L, 11L), pollAll(q));
  }

  @Test
  void overflowMovesFrontHalfPlusDisplacedToGlobalInOneBatch() {
    RunQueue q = new RunQueue();
    GlobalQueue gq = new GlobalQueue();
    for (int i = 0; i < RunQueue.SIZE; i++) {
      q.put(g(i), false, gq);
    }
    q.put(g(1000), true, gq); // runnext; ring stays full
    assertEquals(0, gq.size());
    assertEquals(RunQueue.SIZE + 1, q.size());

    q.put(g(1001), true, gq); // displaces 1000 into a full ring -> runqputslow
    assertEquals(RunQueue.SIZE / 2 + 1, gq.size(), "exactly 128 + the displaced one moved");
    assertEquals(1001, q.runnextForTest().goid);
    List<Long> expectGlobal = new ArrayList<>();
    for (long i = 0; i < RunQueue.SIZE / 2; i++) {
      expectGlobal.add(i);
    }
    expectGlobal.add(1000L);
    assertEquals(expectGlobal, drainGlobal(gq), "front half in order, then the displaced G");

    List<Long> expectRing = new ArrayList<>();
    for (long i = RunQueue.SIZE / 2; i < RunQueue.SIZE; i++) {
      expectRing.add(i);
    }
    assertEquals(1001, q.takeRunnext().goid);
    assertEquals(expectRing, pollAll(q));
  }

  @Test
  void overflowWithoutRunnext() {
    RunQueue q = new RunQueue();
    GlobalQueue gq = new GlobalQueue();
    for (int i = 0; i < RunQueue.SIZE + 1; i++) {
      q.put(g(i), false, gq);
    }
    assertEquals(RunQueue.SIZE / 2 + 1, gq.size());
    List<Long> global = drainGlobal(gq);
    assertEquals(129, global.size());
    assertEquals(0L, global.get(0));
    assertEquals(127L, global.get(127));
    assertEquals((long) RunQueue.SIZE, global.get(128));
    assertEquals(RunQueue.SIZE / 2, pollAll(q).size());
  }

  private static RunQueue filled(int n) {
    RunQueue q = new RunQueue();
    GlobalQueue gq = new GlobalQueue();
    for (int i = 0; i < n; i++) {
      q.put(g(i), false, gq);
    }
    return q;
  }

  /**
   * A taken G leaves no reference in the queue once its owner has looked again: a submitted future
   * is its own G and holds its result, so every stale slot kept a finished, dropped future's
   * result reachable (up to 258 per P). The owner's takes null their slots at once; what a thief
   * or another consumer took, at the owner's next take from the ring or empty look.
   */
  @Test
  void takenGsLeaveNoReferenceOnceTheOwnerLooks() {
    RunQueue q = new RunQueue(Integer.MAX_VALUE - 100); // the indices wrap during the rounds
    GlobalQueue gq = new GlobalQueue();
    long id = 0;
    for (int round = 0; round < 12; round++) {
      for (int i = 0; i < 40 + 25 * round; i++) { // past 256 from round 9: overflow to gq
        q.put(g(id++), i % 3 == 0, gq);
      }
      RunQueue thief = new RunQueue();
      G stolen = thief.stealFrom(q, round % 2 == 0, false);
      assertNotNull(stolen, "round " + round);
      pollAll(thief);
      assertEquals(0, thief.heldForTest(), "round " + round + ": the thief's own takes");
      if (q.poll() == null) { // another consumer (a retake's move, shutdownNow): nulls nothing
        assertTrue(q.isEmpty());
      }
      if (round % 3 == 0) {
        q.takeOwnRunnext();
      }
      q.popNewest(); // the owner's next take from the ring
      assertEquals(q.size(), q.heldForTest(), "round " + round + ": after the owner's take");
      for (int k = 0; k < round; k++) {
        q.popNewest();
      }
    }
    drainGlobal(gq);
    while (q.takeOwnRunnext() != null || q.pollRing() != null) {
      // the owner drains its queue
    }
    RunQueue thief = new RunQueue();
    q.put(g(id++), false, gq);
    q.put(g(id++), true, gq);
    assertNotNull(thief.stealFrom(q, true, false)); // the ring's one G
    assertNotNull(thief.stealFrom(q, true, false)); // then runnext's
    assertNull(q.pollRing(), "empty");
    assertEquals(0, q.heldForTest(), "the owner's empty look nulls what others took");
  }

  @Test
  void stealTakesHalfRoundedUp() {
    int[][] cases = {{1, 1}, {2, 1}, {3, 2}, {5, 3}, {8, 4}, {255, 128}, {256, 128}};
    for (int[] c : cases) {
      RunQueue victim = filled(c[0]);
      RunQueue thief = new RunQueue();
      G got = thief.stealFrom(victim, false, false);
      assertNotNull(got, "steal from " + c[0]);
      List<Long> stolen = new ArrayList<>();
      stolen.add(got.id()); // the returned G is the oldest one stolen (Go returns the newest)
      stolen.addAll(pollAll(thief));
      assertEquals(c[1], stolen.size(), "steal from a ring of " + c[0]);
      for (int i = 0; i < c[1]; i++) {
        assertEquals((long) i, stolen.get(i), "thief takes the victim's oldest Gs in order");
      }
      assertEquals(c[0] - c[1], victim.size());
      List<Long> left = pollAll(victim);
      assertEquals(c[0] - c[1], left.size());
      if (!left.isEmpty()) {
        assertEquals((long) c[1], left.get(0));
      }
    }
  }

  @Test
  void stealFromEmptyReturnsNull() {
    RunQueue thief = new RunQueue();
    assertNull(thief.stealFrom(new RunQueue(), true, false));
    assertNull(thief.stealFrom(new RunQueue(), false, true));
  }

  @Test
  void runnextStolenOnlyWhenAskedAndRingEmpty() {
    GlobalQueue gq = new GlobalQueue();
    RunQueue victim = new RunQueue();
    RunQueue thief = new RunQueue();
    victim.put(g(7), true, gq);
    assertNull(thief.stealFrom(victim, false, false), "runnext is not stolen unless asked");
    assertEquals(7, victim.runnextForTest().goid);

    victim.put(g(1), false, gq); // ring non-empty: ring first, runnext stays
    G got = thief.stealFrom(victim, true, false);
    assertEquals(1, got.goid);
    assertEquals(7, victim.runnextForTest().goid, "runnext kept while the ring had work");

    got = thief.stealFrom(victim, true, false);
    assertEquals(7, got.goid);
    assertNull(victim.runnextForTest());
    assertTrue(victim.isEmpty());
    // victimRunning only adds a short back-off; the G is still taken.
    victim.put(g(8), true, gq);
    assertEquals(8, thief.stealFrom(victim, true, true).goid);
    assertTrue(thief.isEmpty());
  }

  @Test
  void wrapAroundIntegerMaxValue() {
    int start = Integer.MAX_VALUE - 10;
    RunQueue q = new RunQueue(start);
    GlobalQueue gq = new GlobalQueue();
    long id = 0;
    long expect = 0;
    // Several laps across the overflow point, FIFO all the way.
    for (int round = 0; round < 5; round++) {
      for (int i = 0; i < 100; i++) {
        q.put(g(id++), false, gq);
      }
      assertEquals(100, q.size());
      for (int i = 0; i < 100; i++) {
        assertEquals(expect++, q.pollRing().goid);
      }
      assertTrue(q.isEmpty());
    }
    assertTrue(q.headForTest() < 0, "indices really crossed Integer.MAX_VALUE");
    assertEquals(q.headForTest(), q.tailForTest());
    assertEquals(start + 500, q.tailForTest()); // int arithmetic wraps
  }

  @Test
  void wrapAroundOverflowAndStealAcrossMaxValue() {
    RunQueue q = new RunQueue(Integer.MAX_VALUE - 10);
    GlobalQueue gq = new GlobalQueue();
    for (int i = 0; i < RunQueue.SIZE; i++) {
      q.put(g(i), false, gq);
    }
    assertEquals(RunQueue.SIZE, q.size());
    assertEquals(0, gq.size());
    q.put(g(RunQueue.SIZE), false, gq);
    assertEquals(129, gq.size());
    assertEquals(128, q.size());
    // The half was read from ring slots 245.. onwards, across the ring's end: in order.
    List<Long> expectGlobal = new ArrayList<>();
    for (long i = 0; i < RunQueue.SIZE / 2; i++) {
      expectGlobal.add(i);
    }
    expectGlobal.add((long) RunQueue.SIZE);
    assertEquals(expectGlobal, drainGlobal(gq), "front half across the ring's end, then the new G");
    RunQueue thief = new RunQueue(Integer.MAX_VALUE - 3);
    G got = thief.stealFrom(q, false, false);
    assertEquals(128, got.goid); // 64 stolen: 128..191, the oldest returned
    List<Long> stolen = pollAll(thief);
    assertEquals(63, stolen.size());
    assertEquals(129L, stolen.get(0));
    assertEquals(191L, stolen.get(62));
    List<Long> left = pollAll(q);
    assertEquals(64, left.size());
    assertEquals(192L, left.get(0));
    assertEquals(255L, left.get(63));
  }

  @Test
  void drainToTakesEverythingOnceRunnextLast() {
    RunQueue q = new RunQueue(Integer.MAX_VALUE - 2);
    GlobalQueue gq = new GlobalQueue();
    for (int i = 0; i < 20; i++) {
      q.put(g(i), false, gq);
    }
    q.put(g(99), true, gq);
    q.pollRing(); // 0 gone
    GQueue out = new GQueue();
    assertEquals(20, drainRing(q, out));
    assertEquals(20, countOf(out));
    List<Long> ids = new ArrayList<>();
    for (G x = out.pop(); x != null; x = out.pop()) {
      ids.add(x.id());
    }
    List<Long> expect = new ArrayList<>();
    for (long i = 1; i < 20; i++) {
      expect.add(i);
    }
    expect.add(99L);
    assertEquals(expect, ids);
    assertTrue(q.isEmpty());
    assertEquals(0, drainRing(q, new GQueue()));
  }

  enum Mode {
    /** Random bursts of puts (some runnext, some overflowing) and pops. */
    MIXED,
    /** The owner only pushes (rarely pops): thieves race each other for the ring. */
    THIEVES_ONLY,
    /** Every put takes runnext and the ring is kept near empty: thieves race for runnext. */
    RUNNEXT_HEAVY,
    /** Bursts of puts, then the owner pops newest first (popNewest) down to near empty. */
    NEWEST_FIRST
  }

  /** Owner pushes and pops while two thieves steal: every G is taken exactly once. */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.EnumSource(Mode.class)
  void ownerAndTwoThievesSeeEveryGExactlyOnce(Mode mode) throws Exception {
    race(mode, false);
  }

  /** The same with every queue in a card island, as a scheduler's Ps have them. */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.EnumSource(Mode.class)
  void ownerAndTwoThievesSeeEveryGExactlyOnceInIslands(Mode mode) throws Exception {
    race(mode, true);
  }

  private static RunQueue queue(boolean island) {
    return island ? new RunQueue(CardIsland.allocate(RunQueue.LIVE)) : new RunQueue();
  }

  private void race(Mode mode, boolean island) throws Exception {
    final int n = 300_000;
    RunQueue victim = island ? queue(true) : new RunQueue(Integer.MAX_VALUE - 1000);
    GlobalQueue gq = new GlobalQueue();
    AtomicIntegerArray seen = new AtomicIntegerArray(n);
    AtomicBoolean ownerDone = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CyclicBarrier start = new CyclicBarrier(3);
    Runnable thief =
        () -> {
          try {
            RunQueue mine = queue(island);
            start.await(10, TimeUnit.SECONDS);
            while (true) {
              boolean done = ownerDone.get();
              G got = mine.stealFrom(victim, true, mode == Mode.MIXED);
              if (got == null) {
                if (done) {
                  return;
                }
                Thread.onSpinWait();
                continue;
              }
              seen.incrementAndGet((int) got.goid);
              for (G x = mine.pollRing(); x != null; x = mine.pollRing()) {
                seen.incrementAndGet((int) x.goid);
              }
            }
          } catch (Throwable e) {
            failure.compareAndSet(null, e);
          }
        };
    Thread t1 = new Thread(thief, "thief-1");
    Thread t2 = new Thread(thief, "thief-2");
    t1.start();
    t2.start();
    start.await(10, TimeUnit.SECONDS);
    int next = 0;
    java.util.Random rnd = new java.util.Random(42);
    while (next < n) {
      switch (mode) {
        case MIXED -> {
          int burst = 1 + rnd.nextInt(300); // sometimes overflows into the global queue
          for (int i = 0; i < burst && next < n; i++) {
            victim.put(g(next++), rnd.nextInt(4) == 0, gq);
          }
          int pops = rnd.nextInt(200);
          for (int i = 0; i < pops; i++) {
            G x = rnd.nextBoolean() ? victim.takeRunnext() : null;
            if (x == null) {
              x = victim.pollRing();
            }
            if (x == null) {
              break;
            }
            seen.incrementAndGet((int) x.goid);
          }
        }
        case THIEVES_ONLY -> {
          if (victim.size() < RunQueue.SIZE - 8) {
            victim.put(g(next++), false, gq);
          } else {
            Thread.onSpinWait();
          }
        }
        case RUNNEXT_HEAVY -> {
          victim.put(g(next++), true, gq);
          if (rnd.nextInt(3) != 0) {
            G x = victim.pollRing();
            if (x != null) {
              seen.incrementAndGet((int) x.goid);
            }
          }
        }
        case NEWEST_FIRST -> {
          int burst = 1 + rnd.nextInt(40);
          for (int i = 0; i < burst && next < n; i++) {
            victim.put(g(next++), false, gq);
          }
          int pops = rnd.nextInt(48);
          for (int i = 0; i < pops; i++) {
            G x = victim.popNewest();
            if (x == null) {
              break;
            }
            seen.incrementAndGet((int) x.goid);
          }
        }
      }
    }
    ownerDone.set(true);
    t1.join(TimeUnit.SECONDS.toMillis(30));
    t2.join(TimeUnit.SECONDS.toMillis(30));
    assertFalse(t1.isAlive() || t2.isAlive(), "thieves did not finish");
    if (failure.get() != null) {
      throw new AssertionError("thief failed", failure.get());
    }
    GQueue rest = new GQueue();
    drainRing(victim, rest);
    for (G x = rest.pop(); x != null; x = rest.pop()) {
      seen.incrementAndGet((int) x.goid);
    }
    for (long id : drainGlobal(gq)) {
      seen.incrementAndGet((int) id);
    }
    int wrong = 0;
    StringBuilder first = new StringBuilder();
    for (int i = 0; i < n; i++) {
      if (seen.get(i) != 1) {
        if (wrong++ < 5) {
          first.append(" G").append(i).append(" x").append(seen.get(i));
        }
      }
    }
    assertEquals(0, wrong, wrong + " Gs not taken exactly once, e.g." + first);
  }

  /**
   * popNewest takes the newest G while it lies above the half a thief could claim (counted from
   * the highest tail since head last moved), else the oldest; after the owner moves head itself
   * the bound counts from the tail of that moment.
   */
  @Test
  void popNewestTakesTheNewestAboveTheStealableHalfThenTheOldest() {
    RunQueue q = new RunQueue(Integer.MAX_VALUE - 3); // across the wrap, as the free indices do
    GlobalQueue gq = new GlobalQueue();
    for (int i = 1; i <= 8; i++) {
      q.put(g(i), false, gq);
    }
    List<Long> order = popAll(q);
    // 8 Gs: a thief with tail 8 claims the front 4, so 8..5 from the tail; then the head (1);
    // counted afresh from tail 4 (2, 3, 4 left): a thief claims 2 and 3, so 4; then 2 and 3.
    assertEquals(List.of(8L, 7L, 6L, 5L, 1L, 4L, 2L, 3L), order);
    assertTrue(q.isEmpty());
    assertEquals(0, q.lengthForTest());
  }

  /** A thief's steal after newest-first pops takes the oldest half of what is left. */
  @Test
  void popNewestLeavesTheOldestToThieves() {
    RunQueue q = new RunQueue();
    RunQueue thief = new RunQueue();
    GlobalQueue gq = new GlobalQueue();
    for (int i = 1; i <= 6; i++) {
      q.put(g(i), false, gq);
    }
    assertEquals(6L, q.popNewest().id());
    assertEquals(5L, q.popNewest().id());
    // 1..4 left: the thief takes half rounded up (1, 2) and runs the oldest, 1.
    assertEquals(1L, thief.stealFrom(q, false, false).id());
    assertEquals(List.of(2L), pollAll(thief));
    // Head moved under the owner: counted afresh from tail 4 with 3, 4 left, a thief claims 3
    // at most, so 4 is the owner's; the last one always goes by the head's CAS.
    assertEquals(4L, q.popNewest().id());
    assertEquals(3L, q.popNewest().id());
    assertEquals(q.headForTest(), q.tailForTest());
    assertNull(q.popNewest());
  }

  /**
   * Gs that came in a batch (the global queue's, a steal's, a retaken P's) keep Go's order, oldest
   * first; the ones this P's tasks pushed after them go newest first.
   */
  @Test
  void popNewestTakesABatchOldestFirstAndLaterPushesNewestFirst() {
    RunQueue q = new RunQueue();
    GlobalQueue gq = new GlobalQueue();
    for (int i = 1; i <= 4; i++) {
      q.putOwned(g(i));
    }
    q.publishOwned();
    for (int i = 5; i <= 8; i++) {
      q.put(g(i), false, gq);
    }
    List<Long> order = popAll(q);
    // 8..5 lie at or above the half a thief with tail 8 could claim (slots 0..3), then the head
    // (1), and the rest of the batch in its order.
    assertEquals(List.of(8L, 7L, 6L, 5L, 1L, 2L, 3L, 4L), order);
    assertTrue(q.isEmpty());

    // Stolen Gs are a batch too: the thief runs the oldest, then takes the rest oldest first.
    RunQueue victim = new RunQueue();
    for (int i = 11; i <= 16; i++) {
      victim.put(g(i), false, gq);
    }
    assertEquals(11L, q.stealFrom(victim, false, false).id());
    assertEquals(12L, q.popNewest().id());
    assertEquals(13L, q.popNewest().id());
    assertNull(q.popNewest());

    // keepOrder (timers that fired together) makes the Gs pushed so far a batch.
    for (int i = 21; i <= 24; i++) {
      q.put(g(i), false, gq);
    }
    q.keepOrder();
    assertEquals(List.of(21L, 22L, 23L, 24L), popAll(q));
  }

  /**
   * runnext's G moves between two slots: each put writes the slot the published one does not
   * use, so the displaced G is still there, whatever the number of puts.
   */
  @Test
  void runnextKeepsEveryDisplacedGAcrossItsTwoSlots() {
    RunQueue q = queue(true);
    GlobalQueue gq = new GlobalQueue();
    for (int i = 0; i < 7; i++) {
      assertEquals(i > 0, q.put(g(i), true, gq), "put " + i + " displaced a G");
      assertEquals((long) i, q.runnextForTest().goid);
    }
    assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L), pollAll(q));
    assertEquals(6L, q.takeRunnext().goid);
    assertNull(q.runnextForTest());
    assertTrue(q.isEmpty());
    assertFalse(q.put(g(7), true, gq), "an empty runnext again: nothing displaced");
    assertEquals(7L, q.takeRunnext().goid);
  }

  /**
   * Retake hands a drained zombie's island to a new queue. The zombie's queue object may still be
   * read by a thief holding an old list of Ps: it must see nothing, although its island's slots
   * now hold the new queue's Gs, and the new queue must keep every one of them.
   */
  @Test
  void aDrainedQueuesIslandServesANewQueueWhileTheOldOneStaysEmpty() {
    RunQueue old = queue(true);
    GlobalQueue gq = new GlobalQueue();
    for (int i = 0; i < 40; i++) {
      old.put(g(i), i % 3 == 0, gq);
    }
    List<Long> drained = new ArrayList<>();
    for (G x = old.poll(); x != null; x = old.poll()) {
      drained.add(x.id());
    }
    assertEquals(40, drained.size());
    RunQueue reused = new RunQueue(old.island());
    for (int i = 100; i < 140; i++) {
      reused.put(g(i), i % 3 == 0, gq);
    }
    assertTrue(old.isEmpty());
    assertEquals(0, old.size());
    assertNull(old.peekRunnext());
    assertNull(old.poll());
    assertNull(old.takeRunnext());
    assertNull(queue(true).stealFrom(old, true, false));
    List<Long> ids = new ArrayList<>();
    for (G x = reused.poll(); x != null; x = reused.poll()) {
      ids.add(x.id());
    }
    ids.sort(null);
    List<Long> expected = new ArrayList<>();
    for (long i = 100; i < 140; i++) {
      expected.add(i);
    }
    assertEquals(expected, ids);
    assertEquals(0, gq.size());
  }

  @Test
  void aQueueRefusesAnArrayThatIsNotARunQueueIsland() {
    IllegalArgumentException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> new RunQueue(new G[RunQueue.LIVE]));
    assertTrue(e.getMessage().contains("island"), e.getMessage());
  }

  @Test
  void moveToKeepsOrderAndRunnext() {
    RunQueue from = new RunQueue();
    GlobalQueue gq = new GlobalQueue();
    for (int i = 0; i < 10; i++) {
      from.put(g(i), false, gq);
    }
    from.put(g(99), true, gq);
    RunQueue to = new RunQueue();
    from.moveTo(to);
    assertTrue(from.isEmpty());
    assertEquals(11, to.size());
    assertEquals(99L, to.runnextForTest().goid);
    for (int i = 0; i < 10; i++) {
      assertEquals((long) i, to.pollRing().goid);
    }
    assertSame(null, to.pollRing());
  }

  /**
   * A retake moves a P's ring to its replacement while the retaken task may still push onto the
   * old one (a spawn that checked the P before it died), into the room the move itself frees. The
   * move must stop at the target's capacity: a 257th G would overwrite the first one's slot, and
   * that G would run twice while another was lost (seen in a fresh JVM whose spawner was retaken).
   */
  @Test
  void moveToNeverOverfillsItsTargetWhileTheOwnerKeepsPushing() throws Exception {
    int n = 4 * RunQueue.SIZE;
    for (int round = 0; round < 300; round++) {
      RunQueue from = new RunQueue();
      GlobalQueue gq = new GlobalQueue();
      for (int i = 0; i < RunQueue.SIZE; i++) {
        from.put(g(i), false, gq); // a full ring, as a spawning task leaves it
      }
      CyclicBarrier start = new CyclicBarrier(2);
      Thread owner =
          new Thread(
              () -> {
                try {
                  start.await(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                  throw new AssertionError(e);
                }
                for (int i = RunQueue.SIZE; i < n; i++) {
                  from.put(g(i), false, gq); // the late pushes, racing the move
                }
              });
      owner.start();
      RunQueue to = new RunQueue();
      start.await(10, TimeUnit.SECONDS);
      from.moveTo(to);
      owner.join();
      int published = to.lengthForTest();
      assertTrue(published <= RunQueue.SIZE, "round " + round + ": moved " + published
          + " Gs into a ring of " + RunQueue.SIZE + " (slots overwritten)");
      int[] seen = new int[n];
      int inTo = 0;
      for (G x = to.poll(); x != null; x = to.poll()) {
        seen[(int) x.goid]++;
        inTo++;
      }
      for (G x = from.poll(); x != null; x = from.poll()) {
        seen[(int) x.goid]++;
      }
      for (long id : drainGlobal(gq)) {
        seen[(int) id]++;
      }
      assertTrue(inTo <= RunQueue.SIZE, "round " + round + ": moved " + inTo + " Gs into a ring of "
          + RunQueue.SIZE);
      for (int i = 0; i < n; i++) {
        assertEquals(1, seen[i], "round " + round + ": G" + i + " found " + seen[i] + " times");
      }
    }
  }

  @Test
  void pollTakesTheRingThenRunnext() {
    RunQueue q = new RunQueue();
    GlobalQueue gq = new GlobalQueue();
    q.put(g(1), false, gq);
    q.put(g(2), true, gq);
    assertEquals(1L, q.poll().goid);
    assertEquals(2L, q.poll().goid);
    assertSame(null, q.poll());
  }

  /** The length of a GQueue (walks it: tests only). */
  static int countOf(GQueue q) {
    int n = 0;
    for (G g = q.head; g != null; g = g.schedlink) {
      n++;
    }
    return n;
  }

  /** Takes every G of a ring, as shutdownNow does (RunQueue#poll until empty); how many. */
  static int drainRing(RunQueue q, GQueue out) {
    int n = 0;
    for (G g = q.poll(); g != null; g = q.poll()) {
      out.push(g);
      n++;
    }
    return n;
  }
}
