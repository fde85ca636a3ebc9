package dev.gmp;

import static dev.gmp.StressSupport.sched;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.L_Result;

/**
 * A pending timer's cancel vs its heap's compaction (TimerHeap#compactLocked, which a later cancel
 * or tidy-up runs), on the production code. The compaction drops the entries it sees cancelled
 * and takes their cancels back from the heap's in-heap count; a cancel that has won its state
 * change but not yet counted itself must be counted exactly once, and the other timer stays live.
 */
@JCStressTest
@Description("pending timer cancel vs its heap's compaction: counted once, the other timer live")
@Outcome(id = "compacted out: counted once, one live", expect = ACCEPTABLE,
    desc = "the cancel first: the compaction drops the entry")
@Outcome(id = "cancelled in the heap: counted once, one live", expect = ACCEPTABLE,
    desc = "the compaction first: the entry stays, counted as cancelled in the heap")
@Outcome(expect = FORBIDDEN, desc = "the cancel counted twice or not at all, or live count wrong")
@State
public class TimerCancelVsCompactStress {
  final Scheduler s = sched(1);
  final P p0 = s.procs.all[0];
  final long later = Timers.now() + 3_600_000_000_000L; // an hour: neither fires
  final ScheduledTask<Void> t = new ScheduledTask<>(s, () -> null, later, 0);
  final ScheduledTask<Void> other = new ScheduledTask<>(s, () -> null, later + 1, 0);
  boolean cancelled;

  public TimerCancelVsCompactStress() {
    p0.timers.lock();
    try {
      p0.timers.addLocked(t);
      p0.timers.addLocked(other);
    } finally {
      p0.timers.unlock();
    }
  }

  @Actor
  public void cancel() {
    cancelled = t.cancel(false);
  }

  @Actor
  public void compact() {
    p0.timers.lock();
    try {
      p0.timers.compactLocked();
    } finally {
      p0.timers.unlock();
    }
  }

  @Arbiter
  public void arbiter(L_Result r) {
    long counted = s.timers.cancelledElsewhere.sum() + p0.timers.cancelledCount();
    int cancelledHere = p0.timers.cancelledEntries();
    int size = p0.timers.size();
    int live = size - cancelledHere;
    if (!cancelled || counted != 1 || cancelledHere < 0 || live != 1) {
      r.r1 = "cancelled=" + cancelled + " counted=" + counted + " size=" + size
          + " cancelled entries=" + cancelledHere;
    } else if (size == 1) {
      r.r1 = "compacted out: counted once, one live";
    } else {
      r.r1 = "cancelled in the heap: counted once, one live";
    }
  }
}
