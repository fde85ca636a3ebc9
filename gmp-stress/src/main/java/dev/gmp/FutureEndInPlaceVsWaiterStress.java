package dev.gmp;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.CountDownLatch;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.L_Result;

/**
 * FutureEndVsWaiterStress for a waiter's run in place ({@code HelpingFuture#runInPlace}), whose
 * end takes the Dekker pair with a waiter getting ready to block through its own path (the state
 * CAS, then the latch read, counted down only after a stack probe). A waiter that would block
 * must find its latch counted down once the run has ended. Mutation:
 * gmp.mutate.futureWakeEarly (the end reads the latch before its state CAS).
 */
@JCStressTest
@Description("future: a run in place vs a waiter getting ready to block; no missed wake-up")
@Outcome(id = "ended first", expect = ACCEPTABLE, desc = "the waiter saw the end: no wait")
@Outcome(id = "woken", expect = ACCEPTABLE, desc = "the waiter would block; the end woke it")
@Outcome(expect = FORBIDDEN, desc = "the waiter would block and nobody wakes it")
@State
public class FutureEndInPlaceVsWaiterStress {
  final HelpingFuture<Integer> f = new HelpingFuture<>(null, () -> 42, false);
  CountDownLatch blockOn;

  @Actor
  public void runInPlace() {
    f.runInPlace(StressSupport.WAITER);
  }

  @Actor
  public void waiter() {
    blockOn = f.latchToWaitOn();
  }

  @Arbiter
  public void arbiter(L_Result r) {
    if (blockOn == null) {
      r.r1 = "ended first";
    } else {
      r.r1 = blockOn.getCount() == 0 ? "woken" : "MISSED WAKE-UP";
    }
  }
}
