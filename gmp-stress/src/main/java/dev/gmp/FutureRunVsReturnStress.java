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
 * A submitted task's future ({@link HelpingFuture}, also its G): a task waiting on it runs it in
 * place while {@code shutdownNow}, which found its G queued, claims it to return it as never
 * started ({@code claimForReturn}, Lifecycle#settle). The run's claim and shutdownNow's are one
 * CAS on the future's runner: the task runs and is not returned, or is returned and never runs.
 * (An M's run of the G never meets shutdownNow's claim: whichever takes the G out of its queue
 * first has it. A caller's own {@code run()} may run a returned task, as ThreadPoolExecutor's.)
 * Mutation: gmp.mutate.futureRunNoCas (the run's claim is a read and a plain write).
 */
@JCStressTest
@Description("future: a run vs shutdownNow's claim; run xor returned")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "ran, not returned")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "returned, never ran")
@Outcome(expect = FORBIDDEN, desc = "ran and returned, or neither")
@State
public class FutureRunVsReturnStress {
  final AtomicInteger runs = new AtomicInteger();
  final HelpingFuture<Void> f = new HelpingFuture<>(null, runs::incrementAndGet, null, false);
  boolean returned;

  @Actor
  public void run() {
    f.runInPlace(StressSupport.WAITER); // the waiter's run in place
  }

  @Actor
  public void shutdownNow() {
    returned = f.claimForReturn();
  }

  @Arbiter
  public void arbiter(II_Result r) {
    r.r1 = runs.get();
    r.r2 = returned ? 1 : 0;
  }
}
