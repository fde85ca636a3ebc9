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
 * exitsyscall's fast path vs another returning M's take (Retake#takeSyscallPLocked), on the
 * production code. Two Ps: M1 is in a blocking call on P0 (Psyscall) with a task queued behind
 * it; M2's call lost its P1 to sysmon's retake (P1 handed to a new M for its queued task), so M2
 * is a spare and no P is idle. Both calls return at once: M1's fast path CAS on its token, M2's
 * slow path takes P0 with the same CAS. Exactly one of them owns P0 afterwards, the other is the
 * one spare (nmspare=1, no P), and P1 stays with the M it was handed to. Mutation:
 * gmp.mutate.exitsyscallNoCas (M1's fast path reads, then writes, the status: both own P0).
 */
@JCStressTest
@Description("exitsyscall fast path vs another M's take of its P: P0 owned by exactly one M")
@Outcome(id = "M1 kept P0, M2 spare", expect = ACCEPTABLE, desc = "the fast path's CAS won")
@Outcome(id = "M2 took P0, M1 spare", expect = ACCEPTABLE, desc = "the take won")
@Outcome(expect = FORBIDDEN, desc = "P0 owned by two Ms or none, or the spare count is off")
@State
public class ExitsyscallVsTakeStress {
  final Scheduler s = sched(2);
  final M m1 = mWithP(s, 1, false);
  final M m2 = mWithP(s, 2, false);
  final P p0 = m1.p;
  final P p1 = m2.p;
  final G g1 = g(1);
  final G g2 = g(2);

  public ExitsyscallVsTakeStress() {
    g1.setStatus(G.Grunning);
    m1.setCurg(g1);
    g2.setStatus(G.Grunning);
    m2.setCurg(g2);
    Syscall.entersyscall(m2, g2); // nothing queued anywhere yet: no eager hand-off
    p1.runq.put(g(3), false, s.global);
    if (!s.retake.retakeSyscall(p1, p1.statusRaw(), false)) { // sysmon's retake: P1 to a new M
      throw new IllegalStateException("retake of P1 failed");
    }
    // Work behind M1's call (what the take is for), queued before the call: the call counts
    // itself (Spares#addSelf), as any call with work waiting does, so that M2, a spare with no P
    // idle, may take P0 without the lock (Spares#takeFree). Queued after it, the call was not
    // counted, M2 never took P0, and the race below never happened.
    p0.runq.put(g(4), false, s.global);
    Syscall.entersyscall(m1, g1);
  }

  @Actor
  public void m1Returns() {
    Syscall.exitsyscall(m1, g1);
  }

  @Actor
  public void m2Returns() {
    Syscall.exitsyscall(m2, g2);
  }

  @Arbiter
  public void arbiter(L_Result r) {
    boolean m1Owns = m1.p == p0 && p0.m() == m1;
    boolean m2Owns = m2.p == p0 && p0.m() == m2;
    boolean sane =
        p0.status() == P.Prunning
            && s.spares.count == 1
            && handedTo(s, p1) == 1
            && m1.spare() != m1Owns
            && m2.spare() != m2Owns;
    if (sane && m1Owns && !m2Owns && m2.p == null) {
      r.r1 = "M1 kept P0, M2 spare";
    } else if (sane && m2Owns && !m1Owns && m1.p == null) {
      r.r1 = "M2 took P0, M1 spare";
    } else {
      r.r1 = "m1.p=" + m1.p + " m2.p=" + m2.p + " p0.m=" + p0.m() + " p0=" + p0.status()
          + " nmspare=" + s.spares.count + " spare=" + m1.spare() + "/" + m2.spare()
          + " p1 handed=" + handedTo(s, p1);
    }
  }
}
