package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
    return new ScheduledTask<>(S, () -> {}, null, when, 0);
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
}
