package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The 4-ary heap alone: order, lazy removal of cancelled entries, compaction, draining. */
class TimerHeapTest {
  private static final Scheduler S = new Scheduler(GmpExecutor.builder().parallelism(1).config(), false);

  private static ScheduledTask<Void> timer(long when) {
    return new ScheduledTask<>(S, () -> null, when, 0);
  }

  @Test
  void popsInDeadlineOrderThenInsertionOrderForEqualDeadlines() {
    TimerHeap h = new TimerHeap();
    SplittableRandom rnd = new SplittableRandom(7);
    List<ScheduledTask<Void>> all = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      ScheduledTask<Void> t = timer(rnd.nextLong(1, 500));
      all.add(t);
      h.addLocked(t);
      assertEquals(Math.min(h.nextWhen(), t.when), h.nextWhen());
    }
    ScheduledTask<?> prev = null;
    for (int i = 0; i < all.size(); i++) {
      ScheduledTask<?> t = h.pollDueLocked(Long.MAX_VALUE - 1);
      if (prev != null) {
        assertTrue(prev.when < t.when || (prev.when == t.when && prev.seq < t.seq), "at " + i);
      }
      prev = t;
    }
    assertNull(h.pollDueLocked(Long.MAX_VALUE - 1));
    assertEquals(Timers.NONE, h.nextWhen());
  }

  @Test
  void onlyDueEntriesArePolledAndCancelledOnesAreSkipped() {
    TimerHeap h = new TimerHeap();
    ScheduledTask<Void> a = timer(10);
    ScheduledTask<Void> b = timer(20);
    ScheduledTask<Void> c = timer(30);
    h.addLocked(c);
    h.addLocked(a);
    h.addLocked(b);
    a.cancelQuietly();
    assertEquals(b, h.pollDueLocked(25));
    assertNull(h.pollDueLocked(25));
    assertEquals(30, h.nextWhen());
  }

  @Test
  void compactionDropsCancelledEntriesAndKeepsOrder() {
    TimerHeap h = new TimerHeap();
    List<ScheduledTask<Void>> all = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      ScheduledTask<Void> t = timer(1000 - i);
      all.add(t);
      h.addLocked(t);
    }
    for (int i = 0; i < 1000; i += 2) {
      all.get(i).cancelQuietly();
    }
    h.compactLocked();
    assertEquals(500, h.size());
    long last = 0;
    for (ScheduledTask<?> t = h.pollDueLocked(5000); t != null; t = h.pollDueLocked(5000)) {
      assertTrue(!t.isCancelled() && t.when > last);
      last = t.when;
    }
    assertEquals(0, h.size());
  }

  @Test
  void anAddReportsWhetherItLoweredTheEarliestDeadline() {
    TimerHeap h = new TimerHeap();
    assertTrue(h.addLocked(timer(50)), "first entry");
    assertFalse(h.addLocked(timer(60)), "later");
    assertFalse(h.addLocked(timer(50)), "equal: the older entry stays on top");
    assertEquals(50, h.nextWhen());
    assertTrue(h.addLocked(timer(40)), "earlier");
    assertEquals(40, h.nextWhen());
    ScheduledTask<Void> gone = timer(10);
    gone.cancel(false); // cancelled out of every heap before its add: stays out
    assertFalse(h.addLocked(gone));
    assertEquals(40, h.nextWhen());
  }

  @Test
  void theTimeoutPatternReclaimsCancelledEntriesWithoutRegrowingTheArray() {
    TimerHeap h = new TimerHeap();
    int n = 20 * TimerHeap.MIN_COMPACT;
    int capacity = -1;
    for (int i = 0; i < n; i++) {
      ScheduledTask<Void> t = timer(1_000 + i);
      h.addLocked(t); // as Timers#add, whose lock compaction would tryLock: none held here
      assertTrue(t.cancel(false));
      assertTrue(h.size() <= TimerHeap.MIN_COMPACT, "cancelled entries pile up: " + h.size());
      if (i == 4 * TimerHeap.MIN_COMPACT) {
        capacity = h.capacityLocked();
      } else if (i > 4 * TimerHeap.MIN_COMPACT) {
        assertEquals(capacity, h.capacityLocked(), "the array was reallocated at " + i);
      }
    }
    assertEquals(n, h.cancelledCount(), "each cancel counted once");
    assertEquals(0, h.live());
  }
}
