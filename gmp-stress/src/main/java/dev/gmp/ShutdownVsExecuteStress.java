package dev.gmp;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.L_Result;

/**
 * shutdownNow vs execute on a real GmpExecutor (1 P): each of two tasks is either rejected, or
 * run exactly once, or returned by shutdownNow exactly once; the executor terminates and leaves
 * no worker thread alive. Mutation: gmp.mutate.submitCheckUnlocked (execute checks the run state
 * only before its lock-free inject, not again after it, so a task can land after the drain and
 * be stranded).
 */
@JCStressTest
@Description("shutdownNow vs execute: every task rejected, run or returned; no thread left")
@Outcome(id = "ok .*", expect = ACCEPTABLE, desc = "accounted for; terminated; no thread alive")
@Outcome(expect = FORBIDDEN, desc = "a task lost or run twice, or no termination, or a thread left")
@State
public class ShutdownVsExecuteStress {
  final GmpExecutor ex = GmpExecutor.builder().parallelism(1).name("jcs").build();
  final AtomicIntegerArray ran = new AtomicIntegerArray(3);
  final boolean[] accepted = new boolean[3];
  List<Runnable> returned;

  final class Task implements Runnable {
    final int id;

    Task(int id) {
      this.id = id;
    }

    @Override
    public void run() {
      ran.incrementAndGet(id);
    }
  }

  @Actor
  public void submitter() {
    for (int id = 1; id <= 2; id++) {
      try {
        ex.execute(new Task(id));
        accepted[id] = true;
      } catch (RejectedExecutionException e) {
        accepted[id] = false;
      }
    }
  }

  @Actor
  public void stopper() {
    returned = ex.shutdownNow();
  }

  @Arbiter
  public void arbiter(L_Result r) {
    boolean terminated;
    try {
      terminated = ex.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      terminated = false;
    }
    int[] ret = new int[3];
    for (Runnable t : returned) {
      ret[((Task) t).id]++;
    }
    int acc = 0;
    int run = 0;
    int rt = 0;
    String bad = null;
    for (int id = 1; id <= 2; id++) {
      int seen = ran.get(id) + ret[id];
      acc += accepted[id] ? 1 : 0;
      run += ran.get(id);
      rt += ret[id];
      if (accepted[id] && seen == 0) {
        bad = "LOST";
      } else if (seen > 1 || (!accepted[id] && seen != 0)) {
        bad = "DUP";
      }
    }
    // awaitTermination is true only once every thread of the executor has died.
    if (!terminated) {
      ex.shutdownNow(); // don't leak its threads into the next samples
      bad = bad == null ? "NOT TERMINATED" : bad + " NOT TERMINATED";
    }
    r.r1 = (bad == null ? "ok" : bad) + " accepted=" + acc + " ran=" + run + " returned=" + rt;
  }
}
