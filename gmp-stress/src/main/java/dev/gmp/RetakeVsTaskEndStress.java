package dev.gmp;

import static dev.gmp.StressSupport.count;
import static dev.gmp.StressSupport.drain;
import static dev.gmp.StressSupport.g;
import static dev.gmp.StressSupport.mWithP;
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
 * sysmon's retake of a running task vs the M ending that task, on the production code. M1 runs
 * G1 on P0 with G2 in P0's runnext; sysmon has judged G1 blocked and retakes P0
 * (Retake#retakeRunning: the task checked under the lock, the claim on M1 written, a fence, M1's
 * count read again, P0 marked dead, its work moved to a new P). Meanwhile G1 ends: M1 runs
 * execute's tail (SchedulingLoop#endTask), findRunnable's first steps (P0 dead: an orphan; else
 * it takes its runnext, by a CAS) and execute's first (SchedulingLoop#mayStart: a claim is
 * settled under the lock, and a G taken for a dead P goes to the global queue). M1 must never
 * start G2 on a P that dies under it: that task would compute beside P0's replacement
 * (parallelism + 1). G2 is in exactly one place at the end. Mutation: gmp.mutate.retakeNoClaim
 * (no claim, no second look at the count: the code before 2026-12-06).
 */
@JCStressTest
@Description("retakeRunning vs the M ending its task: no next task on a dying P")
@Outcome(id = "retake won, M1 starts nothing, ok", expect = ACCEPTABLE,
    desc = "sysmon came first (G2 moved to the new P, or taken and put back)")
@Outcome(id = "M1 moved on, no retake, ok", expect = ACCEPTABLE, desc = "the task end came first")
@Outcome(expect = FORBIDDEN, desc = "M1 starts G2 on a dead P, or G2 lost or doubled")
@State
public class RetakeVsTaskEndStress {
  final Scheduler s = sched(2);
  final M m1 = mWithP(s, 1, false);
  final P p0 = m1.p;
  final G gp = g(1);
  final G next = g(2);
  boolean retook;
  G took;

  public RetakeVsTaskEndStress() {
    gp.setStatus(G.Grunning);
    m1.setCurg(gp);
    p0.runq.put(next, true, s.global); // work waiting behind G1: sysmon's reason to retake
  }

  @Actor
  public void m1EndsItsTask() {
    SchedulingLoop.endTask(m1);
    G g = p0.status() == P.Pdead ? null : p0.runq.takeOwnRunnext(); // findRunnable's order
    took = g != null && SchedulingLoop.mayStart(m1, g) ? g : null;
  }

  @Actor
  public void sysmonRetakes() {
    retook = s.retake.retakeRunning(p0, m1, gp, 0, true);
  }

  @Arbiter
  public void arbiter(L_Result r) {
    boolean dead = p0.status() == P.Pdead;
    int[] started = new int[3];
    int[] queued = new int[3];
    count(started, took);
    drain(s.global, queued);
    for (P pp : s.procs.all) {
      drain(pp.runq, queued); // the new P0 holds what the retake moved
    }
    if (s.procs.all[0] != p0) {
      drain(p0.runq, queued); // what the move left in the dead P, for sysmon's sweep
    }
    int n = started[2] + queued[2];
    String where = n == 1 && queued[0] == 0 && queued[1] == 0 ? "ok" : "G2 " + n + " times";
    if (retook && dead && took == null) {
      r.r1 = "retake won, M1 starts nothing, " + where;
    } else if (!retook && !dead && took == next) {
      r.r1 = "M1 moved on, no retake, " + where;
    } else {
      String what = took == null ? "nothing" : took == next ? "G2" : "another G";
      r.r1 = "retook=" + retook + " dead=" + dead + " M1 starts " + what + ", " + where;
    }
  }
}
