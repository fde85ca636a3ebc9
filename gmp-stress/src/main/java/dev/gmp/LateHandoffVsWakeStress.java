package dev.gmp;

import static dev.gmp.StressSupport.g;
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
 * An idle M's late wake-up vs an M that takes its hand-off back, on the production code. startm
 * handed P0 to the parked M1 (nextp) a second ago and a task is queued; M1's thread finally runs
 * and picks its P up (Idle#stopm: M#takeNextp) while M2, needing a P (Spares.reacquire,
 * or Syscall's slow path past the spare budget), takes the late hand-off back
 * (Spares#takeLateHandoffLocked: M#cancelNextp). Exactly one of them gets P0. Mutation: gmp.mutate.lateHandoffNoCas (both sides read, then clear, nextp:
 * both get P0, which two Ms would then run).
 */
@JCStressTest
@Description("late hand-off: the woken M's pickup vs another M taking it back: one winner")
@Outcome(id = "M1 picked P0 up", expect = ACCEPTABLE, desc = "the wake-up came first")
@Outcome(id = "M2 took P0 back", expect = ACCEPTABLE, desc = "the take-back came first")
@Outcome(expect = FORBIDDEN, desc = "P0 got by both Ms or by neither")
@State
public class LateHandoffVsWakeStress {
  final Scheduler s = sched(2);
  final M m1 = new M(s, 1);
  final M m2 = new M(s, 2);
  final P p0;
  P m1Got;
  P m2Got;

  public LateHandoffVsWakeStress() {
    m1.setLife(M.RUNNING); // checked in and parked: an idle M, not a thread start
    s.lock.lock();
    try {
      p0 = s.idle.pidleget();
      s.idle.mput(m1);
      if (s.idle.claimMLocked(p0, false) != m1) {
        throw new IllegalStateException("startm did not take the idle M");
      }
      p0.handedAt -= 1_000_000_000L; // handed a second ago: late by any threshold
      s.global.put(g(1)); // the work M2 needs a P for
    } finally {
      s.lock.unlock();
    }
  }

  @Actor
  public void m1Wakes() {
    m1Got = m1.takeNextp();
  }

  @Actor
  public void m2TakesItBack() {
    s.lock.lock();
    try {
      m2Got = Spares.takeLateHandoffLocked(s, m2);
    } finally {
      s.lock.unlock();
    }
  }

  @Arbiter
  public void arbiter(L_Result r) {
    if (m1Got == p0 && m2Got == null) {
      r.r1 = "M1 picked P0 up";
    } else if (m2Got == p0 && m1Got == null) {
      r.r1 = "M2 took P0 back";
    } else {
      r.r1 = "m1=" + m1Got + " m2=" + m2Got;
    }
  }
}
