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
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * A submitted task's future ({@link HelpingFuture}, also its G): the M its G reaches calls {@code
 * run}, a task waiting on it {@code runInPlace}. One CAS on the future's runner decides which one
 * runs the task: exactly one does. (The same CAS against shutdownNow's claim:
 * FutureRunVsReturnStress.) Mutation: gmp.mutate.futureRunNoCas (the claim is a read and a plain
 * write).
 */
@JCStressTest
@Description("future: the M's run vs a waiter's in-place run; the task runs once")
@Outcome(id = "1", expect = ACCEPTABLE, desc = "ran once")
@Outcome(expect = FORBIDDEN, desc = "ran twice, or not at all")
@State
public class FutureRunOnceStress {
  final AtomicInteger runs = new AtomicInteger();
  final HelpingFuture<Void> f = new HelpingFuture<>(null, runs::incrementAndGet, null, false);

  @Actor
  public void theM() {
    f.run();
  }

  @Actor
  public void aWaiterInPlace() {
    f.runInPlace(StressSupport.WAITER);
  }

  @Arbiter
  public void arbiter(I_Result r) {
    r.r1 = runs.get();
  }
}
