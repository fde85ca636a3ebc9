package dev.gmp;

import static dev.gmp.StressSupport.sched;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.RejectedExecutionException;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.L_Result;

/**
 * Dekker (C) of Scheduler's overview for an outside submission at the injection ring's wrap:
 * capacity - 1 injections were made and consumed first, so this inject claims the ring's last
 * slot and its producer index wraps. (The unbounded JCTools queue gmp used before published the
 * index of a new chunk with a lazySet here, after its last full barrier, so the argument failed
 * exactly at this boundary; the bounded queue publishes every index with its CAS.) The submitter
 * (submitExternal) injects and then reads the run state; shutdown writes it and then reads the
 * queue under the lock (Lifecycle.tryTidyLocked). Forbidden: the task accepted and the executor
 * tidied with it never taken (lost), or rejected while it stays queued.
 */
@JCStressTest
@Description("outside submit at the injection ring's wrap vs shutdown: accepted means not tidied")
@Outcome(id = "accepted, queued, not tidied", expect = ACCEPTABLE, desc = "shutdown saw the task")
@Outcome(id = "rejected, not queued, tidied", expect = ACCEPTABLE, desc = "the submitter saw SHUTDOWN")
@Outcome(id = "LOST .*", expect = FORBIDDEN, desc = "accepted, yet shutdown tidied past it")
@Outcome(expect = FORBIDDEN, desc = "unexpected state")
@State
public class InjectWrapSubmitVsShutdownStress {
  final Scheduler s = sched(1);
  boolean accepted;

  {
    StressSupport.fillAndConsume(s.global, GlobalQueue.INJECT_CAPACITY - 1);
  }

  @Actor
  public void submitter() {
    try {
      s.submitExternal(() -> {}, null);
      accepted = true;
    } catch (RejectedExecutionException e) {
      accepted = false;
    }
  }

  @Actor
  public void shutdown() {
    Lifecycle.shutdown(s);
  }

  @Arbiter
  public void arbiter(L_Result r) {
    int live;
    s.lock.lock();
    try {
      live = s.global.liveSizeLocked();
    } finally {
      s.lock.unlock();
    }
    boolean tidied = s.runState >= Scheduler.TIDYING;
    String q = live == 1 ? "queued" : live == 0 ? "not queued" : "queued x" + live;
    String t = tidied ? "tidied" : "not tidied";
    if (accepted && tidied) {
      r.r1 = "LOST accepted, " + q + ", " + t;
    } else {
      r.r1 = (accepted ? "accepted, " : "rejected, ") + q + ", " + t;
    }
  }
}
