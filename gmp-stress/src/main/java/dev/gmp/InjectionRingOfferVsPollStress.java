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
 * The injection ring's producer against its consumer across the wrap and the full ring: a ring
 * of 4 slots holding 2 and 3 (1 was taken), so the producer's offers of 4, 5 and 6 wrap, and 6
 * fits only if the consumer freed a slot in time; the consumer polls three times (null at a slot
 * claimed and not filled yet). Every accepted G is taken exactly once and in order; a rejected
 * one never.
 */
@JCStressTest
@Description("InjectionQueue: offer vs poll across the wrap and a full ring; once each, in order")
@Outcome(id = "ok .*", expect = ACCEPTABLE, desc = "every accepted G once, in order")
@Outcome(expect = FORBIDDEN, desc = "a G lost, taken twice, out of order, or a rejected one taken")
@State
public class InjectionRingOfferVsPollStress {
  final InjectionQueue q = new InjectionQueue(4);
  final StringBuilder consumer = new StringBuilder();
  boolean sixAccepted;

  public InjectionRingOfferVsPollStress() {
    q.offer(g(1));
    q.offer(g(2));
    q.offer(g(3));
    q.relaxedPoll();
  }

  @Actor
  public void producer() {
    q.offer(g(4));
    q.offer(g(5));
    sixAccepted = q.offer(g(6));
  }

  @Actor
  public void consumer() {
    for (int i = 0; i < 3; i++) {
      G x = q.relaxedPoll();
      consumer.append(x == null ? "-" : Integer.toString(x.goid));
    }
  }

  @Arbiter
  public void arbiter(L_Result r) {
    StringBuilder taken = new StringBuilder();
    for (int i = 0; i < consumer.length(); i++) {
      if (consumer.charAt(i) != '-') {
        taken.append(consumer.charAt(i));
      }
    }
    for (G x = q.relaxedPoll(); x != null; x = q.relaxedPoll()) {
      taken.append(x.goid);
    }
    String want = sixAccepted ? "23456" : "2345";
    boolean ok = taken.toString().equals(want) && q.size() == 0 && q.relaxedPeek() == null;
    r.r1 = (ok ? "ok " : "BAD ") + consumer + " then " + taken + (sixAccepted ? "" : " (6 full)");
  }
}
