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
 * A due timer's cancel vs its heap's remover (TimerHeap#pollDueLocked, as a P's timer check takes
 * it to fire), on the production code. The canceller reads the timer's heap (where to count the
 * cancel) before its compare-and-set; the remover must clear that field only after its own, or a
 * canceller that read null and still won counts itself elsewhere while the remover takes one
 * cancel back from its heap: the heap's cancelled count goes to -1 and pendingTimers stays one
 * too high for good (5 runs of 30 in a user's check, 4 threads x 300k schedule + cancel).
 */
@JCStressTest
@Description("due timer cancel vs its removal to fire: counted once, no live count left over")
@Outcome(id = "cancelled in the heap: counted once, none live", expect = ACCEPTABLE,
    desc = "the cancel first: the remover drops the entry")
@Outcome(id = "cancelled after it left: counted once, none live", expect = ACCEPTABLE,
    desc = "the remover first: the cancel (of a task not run yet) is counted elsewhere")
@Outcome(expect = FORBIDDEN, desc = "the cancel counted twice or not at all, or a live leftover")
@State
public class TimerCancelVsFireStress {
  final Scheduler s = sched(1);
  final P p0 = s.procs.all[0];
  final ScheduledTask<Void> t = new ScheduledTask<>(s, () -> null, Timers.now() - 1, 0);
  boolean cancelled;
  ScheduledTask<?> polled;

  public TimerCancelVsFireStress() {
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
  public void fire() {
    p0.timers.lock();
    try {
      polled = p0.timers.pollDueLocked(Timers.now());
    } finally {
      p0.timers.unlock();
    }
  }

  @Arbiter
  public void arbiter(L_Result r) {
    long counted = s.timers.cancelledElsewhere.sum() + p0.timers.cancelledCount();
    int cancelledHere = p0.timers.cancelledEntries();
    int live = p0.timers.size() - cancelledHere;
    if (cancelledHere < 0 || live != 0) {
      r.r1 = "cancelled=" + cancelled + " counted=" + counted + " live=" + live
          + " cancelled entries=" + cancelledHere;
    } else if (cancelled && counted == 1 && polled == null) {
      r.r1 = "cancelled in the heap: counted once, none live";
    } else if (cancelled && counted == 1 && polled == t) {
      r.r1 = "cancelled after it left: counted once, none live";
    } else {
      r.r1 = "cancelled=" + cancelled + " counted=" + counted + " polled=" + (polled == t);
    }
  }
}
