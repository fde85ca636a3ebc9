package dev.gmp;

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
 * An M picking up a P in transit vs a shrink that retires it, on the production code. P1 was
 * taken off the idle list for M1 (a wake-up's hand-off); M1's thread runs its acquirep
 * (Scheduler#acquirep: owner, then the status CAS) while setParallelism retires P1
 * (Resize#retireLocked: the dead mark, then the owner's claim). Either acquirep is refused, or
 * M1 holds the dead P with the shrink's claim on it, which stops its next task from starting
 * there (SchedulingLoop#mayStart). Holding it unclaimed, M1 could pass findRunnable's dead check
 * before the mark and start tasks on P1 after setParallelism returned: parallelism + 1.
 * Mutation: gmp.mutate.shrinkOwnerFirst (the owner read before the dead mark).
 */
@JCStressTest
@Description("acquirep of a P in transit vs setParallelism retiring it: refused, or claimed")
@Outcome(id = "refused", expect = ACCEPTABLE, desc = "the shrink came first: M1 gets no P")
@Outcome(id = "acquired, claimed", expect = ACCEPTABLE,
    desc = "M1 came first: it holds the dead P, and its next start is settled under the lock")
@Outcome(expect = FORBIDDEN, desc = "M1 holds the dead P unclaimed, or P1 is left half retired")
@State
public class AcquireInTransitVsShrinkStress {
  final Scheduler s = sched(2);
  final M m1 = new M(s, 1);
  final P p1;
  boolean acquired;

  public AcquireInTransitVsShrinkStress() {
    s.lock.lock();
    try {
      p1 = s.idle.pidlegetSpecific(s.procs.all[1]); // handed to M1: Pidle, on no list
    } finally {
      s.lock.unlock();
    }
  }

  @Actor
  public void m1Acquires() {
    acquired = s.acquirep(m1, p1);
  }

  @Actor
  public void shrinkRetires() {
    s.lock.lock();
    try {
      Resize.retireLocked(s, p1);
    } finally {
      s.lock.unlock();
    }
  }

  @Arbiter
  public void arbiter(L_Result r) {
    boolean dead = p1.status() == P.Pdead;
    boolean zombie = s.retake.zombies.contains(p1);
    if (!acquired && dead && p1.m() == null && !zombie && m1.p == null) {
      r.r1 = "refused";
    } else if (acquired && dead && m1.claimed() && m1.p == p1 && p1.m() == m1 && zombie) {
      r.r1 = "acquired, claimed";
    } else {
      r.r1 = "acquired=" + acquired + " dead=" + dead + " claimed=" + m1.claimed()
          + " owner=" + (p1.m() == m1 ? "M1" : String.valueOf(p1.m())) + " zombie=" + zombie;
    }
  }
}
