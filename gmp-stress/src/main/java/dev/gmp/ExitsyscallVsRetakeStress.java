package dev.gmp;

import static dev.gmp.StressSupport.g;
import static dev.gmp.StressSupport.handedTo;
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
 * exitsyscall vs sysmon's retake, on the production code. M1 is in a blocking call (entersyscall:
 * P0 is Psyscall) and P0 has a queued task; P1 is idle. M1 returns (Syscall.exitsyscall: fast
 * path CAS Psyscall -> Prunning, else the slow path takes an idle P) while sysmon runs one
 * retake round (CAS Psyscall -> Pidle, then handoffp to a new M because work waits). Exactly one
 * wins P0: it is never owned by two Ms, never by none while its task waits, and M1 always leaves
 * with a P. Mutation: gmp.mutate.exitsyscallNoCas (the fast path reads, then writes, the status).
 */
@JCStressTest
@Description("exitsyscall fast path vs sysmon retake: P0 owned by exactly one M")
@Outcome(id = "M1 kept P0 nmspare=0", expect = ACCEPTABLE, desc = "exitsyscall's CAS won")
@Outcome(id = "P0 handed off, M1 took P1 nmspare=0", expect = ACCEPTABLE, desc = "retake won")
@Outcome(id = ".*nmspare=1", expect = FORBIDDEN, desc = "M1 holds a P but is counted as spare")
@Outcome(expect = FORBIDDEN, desc = "P0 owned by two Ms, or by none, or M1 without a P")
@State
public class ExitsyscallVsRetakeStress {
  final Scheduler s = sched(2);
  final M m1 = mWithP(s, 1, false);
  final P p0 = m1.p;
  final G gp = g(1);

  public ExitsyscallVsRetakeStress() {
    gp.setStatus(G.Grunning);
    m1.setCurg(gp);
    Syscall.entersyscall(m1, gp); // nothing queued yet, so the P stays attached (no eager handoff)
    p0.runq.put(g(2), false, s.global); // work that arrived behind the blocked call
    p0.sysmonSyscalltick = p0.syscalltick(); // sysmon saw this call on its previous round
  }

  @Actor
  public void exitsyscall() {
    Syscall.exitsyscall(m1, gp);
  }

  @Actor
  public void sysmonRetake() {
    s.sysmon.retake(System.nanoTime());
  }

  @Arbiter
  public void arbiter(L_Result r) {
    int owners = (m1.p == p0 && p0.status() == P.Prunning ? 1 : 0) + handedTo(s, p0);
    String spare = " nmspare=" + s.spares.count;
    if (owners == 1 && m1.p == p0) {
      r.r1 = "M1 kept P0" + spare;
    } else if (owners == 1 && m1.p != null) {
      r.r1 = "P0 handed off, M1 took P" + m1.p.id + spare;
    } else {
      r.r1 = "owners=" + owners + " m1.p=" + m1.p + spare;
    }
  }
}
