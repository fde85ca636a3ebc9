package dev.gmp;

import static dev.gmp.StressSupport.g;
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
 * The injection ring with two producers racing for its last slots: a ring of 4 slots, two of
 * them already filled, A offers 1 then 3, B offers 2 then 4, so two offers fit and two find it
 * full. The arbiter then takes everything: each accepted G exactly once, each producer's in its
 * order, no rejected one.
 */
@JCStressTest
@Description("InjectionQueue: two producers for the last two slots; once each, FIFO per producer")
@Outcome(id = "ok .*", expect = ACCEPTABLE, desc = "two accepted, each once, FIFO per producer")
@Outcome(expect = FORBIDDEN, desc = "a G lost or taken twice, a rejected one queued, or too many")
@State
public class InjectionRingTwoProducersStress {
  final InjectionQueue q = new InjectionQueue(4);
  final StringBuilder accepted = new StringBuilder();
  boolean a1;
  boolean a3;
  boolean b2;
  boolean b4;

  public InjectionRingTwoProducersStress() {
    q.offer(g(8));
    q.offer(g(9));
  }

  @Actor
  public void producerA() {
    a1 = q.offer(g(1));
    a3 = q.offer(g(3));
  }

  @Actor
  public void producerB() {
    b2 = q.offer(g(2));
    b4 = q.offer(g(4));
  }

  @Arbiter
  public void arbiter(L_Result r) {
    StringBuilder taken = new StringBuilder();
    for (G x = q.relaxedPoll(); x != null; x = q.relaxedPoll()) {
      taken.append(x.goid);
    }
    String t = taken.toString();
    int n = (a1 ? 1 : 0) + (a3 ? 1 : 0) + (b2 ? 1 : 0) + (b4 ? 1 : 0);
    boolean ok = t.startsWith("89") && t.length() == 2 + n && n == 2
        && t.contains("1") == a1 && t.contains("2") == b2 && t.contains("3") == a3
        && t.contains("4") == b4 && (!a3 || a1) && (!b4 || b2)
        && (!a3 || t.indexOf('1') < t.indexOf('3')) && (!b4 || t.indexOf('2') < t.indexOf('4'));
    r.r1 = (ok ? "ok " : "BAD ") + t;
  }
}
