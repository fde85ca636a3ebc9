package dev.gmp;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A submitted task's future under a task decorator ({@link DecoratedFuture}): the M its G reaches
 * runs it while a task waiting on it runs it in place. The claim (HelpingFuture's CAS on the
 * runner) picks one; only that thread runs the decorator's wrapper, whose call back runs the
 * task; the other's run, and a second call back, do nothing. So the wrapper and the task each
 * run once. Mutation: gmp.mutate.futureRunNoCas (the claim is a read and a plain write).
 */
@JCStressTest
@Description("decorated future: the M's run vs a waiter's in-place run; wrapper and task once")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the wrapper ran once, the task inside it once")
@Outcome(expect = FORBIDDEN, desc = "a second wrapper run, a task run twice or not at all")
@State
public class DecoratedFutureRunOnceStress {
  final AtomicInteger wrapped = new AtomicInteger();
  final AtomicInteger runs = new AtomicInteger();
  final HelpingFuture<Void> f = DecoratedFuture.of(null, r -> () -> {
    wrapped.incrementAndGet();
    r.run();
    r.run(); // a second call back: nothing
  }, runs::incrementAndGet, null, false);

  @Actor
  public void theM() {
    f.run();
  }

  @Actor
  public void aWaiterInPlace() {
    f.runInPlace(StressSupport.WAITER);
  }

  @Arbiter
  public void arbiter(II_Result r) {
    r.r1 = wrapped.get();
    r.r2 = runs.get();
  }
}
