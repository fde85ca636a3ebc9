package dev.gmp;

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
 * A blocking call that counted itself (work waited behind it: Syscall#entersyscall's precount)
 * returns while a spare takes its P without the lock (Spares#takeFree), on the production code.
 * Two Ps: M1 is in the call on P0 with a task queued behind it; P1 is held by M3 (no P idle); M2
 * is a spare, counted, with no P. M1's fast path CAS and M2's take CAS race on the call's token:
 * exactly one of them owns P0 afterwards, the other is the one spare (no P), and the count stays
 * 1 throughout: it passes from M2 to M1 when the take wins, and M1's own count ends when its
 * fast path wins. Neither side takes the scheduler lock.
 */
@JCStressTest
@Description("precounted call's return vs a lock-free take of its P: one owner, one spare")
@Outcome(id = "M1 kept P0, M2 spare", expect = ACCEPTABLE, desc = "the fast path's CAS won")
@Outcome(id = "M2 took P0, M1 spare", expect = ACCEPTABLE, desc = "the lock-free take won")
@Outcome(expect = FORBIDDEN, desc = "P0 owned by two Ms or none, or the spare count is off")
@State
public class PrecountedCallVsFreeTakeStress {
  final Scheduler s = sched(2);
  final M m1 = mWithP(s, 1, false);
  final M m3 = mWithP(s, 3, false);
  final M m2 = new M(s, 2);
  final P p0 = m1.p;
  final G g1 = g(1);
  boolean took;

  public PrecountedCallVsFreeTakeStress() {
    g1.setStatus(G.Grunning);
    m1.setCurg(g1);
    p0.runq.put(g(4), false, s.global); // work waits: the call counts itself
    Syscall.entersyscall(m1, g1); // no idle M: no eager hand-off
    if (!m1.spare() || m1.precountTok != p0.statusRaw()) {
      throw new IllegalStateException("the call did not count itself");
    }
    if (!s.spares.addSelf(m2)) {
      throw new IllegalStateException("no budget for M2");
    }
  }

  @Actor
  public void m1Returns() {
    Syscall.exitsyscall(m1, g1);
  }

  @Actor
  public void m2Takes() {
    took = Spares.takeFree(m2);
  }

  @Arbiter
  public void arbiter(L_Result r) {
    boolean m1Owns = m1.p == p0 && p0.m() == m1;
    boolean m2Owns = m2.p == p0 && p0.m() == m2;
    boolean sane =
        p0.status() == P.Prunning
            && s.spares.count == 1
            && m1.spare() != m1Owns
            && m2.spare() != m2Owns
            && took == m2Owns
            && m3.p != p0
            && !s.lock.isLocked();
    if (sane && m1Owns && !m2Owns && m2.p == null && m1.precountTok == 0) {
      r.r1 = "M1 kept P0, M2 spare";
    } else if (sane && m2Owns && !m1Owns && m1.p == null && m1.precountTok == 0) {
      r.r1 = "M2 took P0, M1 spare";
    } else {
      r.r1 = "m1.p=" + m1.p + " m2.p=" + m2.p + " p0.m=" + p0.m() + " p0=" + p0.status()
          + " nmspare=" + s.spares.count + " spare=" + m1.spare() + "/" + m2.spare()
          + " took=" + took;
    }
  }
}
