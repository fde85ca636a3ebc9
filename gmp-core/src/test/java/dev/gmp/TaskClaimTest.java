package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Dekker pair J's settling (SchedulingLoop#mayStart, Retake#mayStartAfterClaim): an M that finds
 * sysmon's claim as it is about to start a G settles it under the lock; a G taken for a P that
 * died goes to the global queue unstarted, one taken for a live P starts. The race itself:
 * RetakeVsTaskEndStress in gmp-stress, and
 * BlockingTest#aTaskEndingAsItsPIsRetakenStartsNothingOnThatP end to end.
 */
class TaskClaimTest {
  private final Scheduler s = new Scheduler(
      new Config(1, 64, 8, 10_000_000L, 60_000_000_000L, "claim", Thread::new, null, null), false);

  private M mWithP() {
    return TestSupport.mWithP(s, 1);
  }

  private static G g(int id) {
    G g = TestSupport.g(id); // Grunnable
    g.task = () -> {};
    return g;
  }

  @Test
  void noClaimNoLock() {
    M m = mWithP();
    assertTrue(SchedulingLoop.mayStart(m, g(1)));
  }

  @Test
  void aGTakenForAPThatDiedGoesBackUnstarted() {
    M m = mWithP();
    G next = g(2);
    s.lock.lock();
    try {
      m.setClaimLocked(m.p); // sysmon's retake, done: the P is dead
      assertTrue(m.p.casStatus(P.Prunning, P.Pdead));
    } finally {
      s.lock.unlock();
    }
    assertFalse(SchedulingLoop.mayStart(m, next));
    assertFalse(m.claimed(), "settled");
    s.lock.lock();
    try {
      // Not on the stand-ins' list, where a P that no M could take went to it as if its task
      // were an M waiting for one (a ClassCastException in the soak, seed 20061206).
      assertNull(s.idle.handToLockedLocked(new P(5)), "no stand-in waits");
      assertSame(next, s.global.get(), "on the global queue, for another M");
    } finally {
      s.lock.unlock();
    }
  }

  @Test
  void aClaimLeftFromAnEarlierPDoesNotStopTheNextTask() {
    M m = mWithP();
    s.lock.lock();
    try {
      m.setClaimLocked(new P(9)); // a retake of a P this M has since left
    } finally {
      s.lock.unlock();
    }
    assertTrue(SchedulingLoop.mayStart(m, g(3)));
    assertFalse(m.claimed(), "cleared on the way");
  }
}
