package dev.gmp;

import static dev.gmp.StressSupport.sched;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.L_Result;

/**
 * A periodic timer's fired run vs a caller's own run() of its future (ScheduledTask#run), on the
 * production code: exactly one of them re-arms it, whichever holds the task, so it is in its heap
 * once. A caller's run() that re-armed it too left it in the heap twice (twice the rate for good);
 * a fired run that found the caller's run holding the task and skipped the re-arm dropped its
 * schedule.
 */
@JCStressTest
@Description("periodic fired run vs a caller's run(): re-armed exactly once")
@Outcome(id = "in the heap once, ran twice", expect = ACCEPTABLE, desc = "one after the other")
@Outcome(id = "in the heap once, ran once", expect = ACCEPTABLE,
    desc = "they overlapped: one found the other running it")
@Outcome(expect = FORBIDDEN, desc = "not re-armed, or re-armed twice")
@State
public class PeriodicRunVsCallerRunStress {
  final Scheduler s = sched(1);
  final P p0 = s.procs.all[0];
  final AtomicInteger runs = new AtomicInteger();
  final ScheduledTask<Void> t = new ScheduledTask<>(s, () -> {
    runs.incrementAndGet();
    return null;
  }, Timers.now() - 1, TimeUnit.HOURS.toNanos(1));

  public PeriodicRunVsCallerRunStress() {
    p0.timers.lock();
    try {
      p0.timers.addLocked(t);
      ScheduledTask<?> fired = p0.timers.pollDueLocked(Timers.now()); // as Timers#runDue
      fired.fired();
    } finally {
      p0.timers.unlock();
    }
  }

  @Actor
  public void firedRun() {
    t.run();
  }

  @Actor
  public void callersRun() {
    t.run();
  }

  @Arbiter
  public void arbiter(L_Result r) {
    int inHeap = p0.timers.size();
    int n = runs.get();
    r.r1 = inHeap == 1 && n >= 1 && n <= 2
        ? "in the heap once, ran " + (n == 2 ? "twice" : "once")
        : "in the heap " + inHeap + ", ran " + n;
  }
}
