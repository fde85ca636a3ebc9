package dev.gmp;

import static dev.gmp.StressSupport.sched;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.ArrayList;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.L_Result;

/**
 * A timer's cancel vs a move of its heap to another P (Timers#moveLocked, after a retire or a
 * retake of the P: the heap is drained and its live entries added to a live P's heap), on the
 * production code. Whichever comes first, the cancel is counted exactly once (in a heap, or
 * elsewhere) and no heap holds the cancelled entry as live: pendingTimers is 0 afterwards. The
 * race it pins: a cancel between the drain and the re-add used to count the entry elsewhere while
 * the re-add put it back as live (ScheduledTask#enterHeap).
 */
@JCStressTest
@Description("timer cancel vs a move of its heap: counted once, nothing left live")
@Outcome(id = "counted once, none live", expect = ACCEPTABLE, desc = "either order")
@Outcome(expect = FORBIDDEN, desc = "the cancel counted twice or not at all, or a live leftover")
@State
public class TimerCancelVsMoveStress {
  final Scheduler s = sched(2);
  final P p0 = s.procs.all[0];
  final P p1 = s.procs.all[1];
  final ScheduledTask<Void> t =
      new ScheduledTask<>(s, () -> null, Timers.now() + 3_600_000_000_000L, 0);
  boolean cancelled;

  public TimerCancelVsMoveStress() {
    p0.timers.lock();
    try {
      p0.timers.addLocked(t);
    } finally {
      p0.timers.unlock();
    }
  }

  @Actor
  public void cancel() {
    cancelled = t.cancel(false);
  }

  @Actor
  public void move() { // what moveLocked does, for a given pair of heaps
    ArrayList<ScheduledTask<?>> moved = new ArrayList<>();
    p0.timers.lock();
    try {
      p0.timers.drainLocked(moved);
      s.timers.cancelledElsewhere.add(p0.timers.takeCancelledCountLocked());
    } finally {
      p0.timers.unlock();
    }
    p1.timers.lock();
    try {
      for (ScheduledTask<?> m : moved) {
        p1.timers.addLocked(m);
      }
    } finally {
      p1.timers.unlock();
    }
  }

  @Arbiter
  public void arbiter(L_Result r) {
    long counted =
        s.timers.cancelledElsewhere.sum() + p0.timers.cancelledCount() + p1.timers.cancelledCount();
    int liveExact = p0.timers.size() - p0.timers.cancelledEntries() + p1.timers.size() - p1.timers.cancelledEntries();
    if (cancelled && counted == 1 && liveExact == 0 && p0.timers.cancelledEntries() >= 0
        && p1.timers.cancelledEntries() >= 0) {
      r.r1 = "counted once, none live";
    } else {
      r.r1 = "cancelled=" + cancelled + " counted=" + counted + " live=" + liveExact + " p1 size="
          + p1.timers.size() + " cancelled entries=" + p0.timers.cancelledEntries() + "/" + p1.timers.cancelledEntries();
    }
  }
}
