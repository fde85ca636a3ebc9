package dev.gmp;

import static dev.gmp.TestSupport.awaitCondition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An M's exit allocates nothing (an exit that ran out of memory left its M counted, and the
 * executor never terminated): its slot in allm is emptied in place, and the next M's allocation
 * drops the empty slots. Readers (stats, the dump) skip them.
 */
class ExitBookkeepingTest {

  @Test
  void anExitedMsSlotIsEmptiedInPlaceAndDroppedByTheNextM() throws Exception {
    // maxThreads(2): exactly two Ms, whatever the timing (a late spinner can make a wake-up
    // start one more, Idle#wakeAnotherIfStale).
    GmpExecutor ex = GmpExecutor.builder().name("exit-bookkeeping").parallelism(2)
        .maxThreads(2).keepAlive(Duration.ofMillis(10)).build();
    try (var c = TestSupport.closer(ex)) {
      TestSupport.runTwoAtOnce(ex); // two Ms
      assertEquals(2, ex.sched.threads.mcount, ex::dump);
      ex.setParallelism(1); // more threads than processors: one exits at its keepAlive
      awaitCondition(() -> "an idle M exits at its keepAlive: " + ex.dump(),
          TestSupport.LIVENESS_SECONDS, () -> ex.sched.threads.mcount == 1);
      M[] slots = ex.sched.threads.allm;
      assertEquals(2, slots.length, "the exited M's slot stays, emptied");
      assertTrue(slots[0] == null ^ slots[1] == null, "one slot emptied");
      assertEquals(1, ex.sched.threads.ms().length);
      assertEquals(1, ex.stats().threads());
      assertTrue(ex.dump().contains("threads=1"), ex.dump());

      ex.setParallelism(2);
      TestSupport.runTwoAtOnce(ex); // a new M
      M[] after = ex.sched.threads.allm;
      assertEquals(2, after.length, "the new M's allocation dropped the empty slot");
      assertNotNull(after[0]);
      assertNotNull(after[1]);
      assertEquals(2, ex.sched.threads.ms().length);
    }
  }

  /**
   * An exited M's thread is kept for awaitTermination only while it unwinds, and the M's 64 KB
   * island goes at its exit: a dead thread keeps its Runnable, the M, and until 2026-12-06 up to
   * 64 dead threads stayed listed for the executor's life, each with its M's island (a server
   * whose spares come and go kept ~3 MB per executor). Here one M exits per round, and its
   * thread is joined before the next.
   */
  @Test
  void exitedThreadsAreKeptOnlyWhileTheyUnwindAndTheirIslandsGo() throws Exception {
    GmpExecutor ex = GmpExecutor.builder().name("exit-retention").parallelism(2)
        .maxThreads(2).keepAlive(Duration.ofMillis(10)).build();
    try (var c = TestSupport.closer(ex)) {
      for (int round = 0; round < 4; round++) {
        ex.setParallelism(2);
        TestSupport.runTwoAtOnce(ex); // two Ms
        M[] both = ex.sched.threads.ms();
        assertEquals(2, both.length, ex::dump);
        ex.setParallelism(1); // one exits at its keepAlive
        awaitCondition(() -> "an idle M exits at its keepAlive: " + ex.dump(),
            TestSupport.LIVENESS_SECONDS, () -> ex.sched.threads.mcount == 1);
        M gone = ex.sched.threads.ms()[0] == both[0] ? both[1] : both[0];
        assertTrue(gone.curgIslandForTest() == CardIsland.UNSTARTED_M, "island dropped");
        for (Thread t : ex.sched.threads.exitedThreads()) {
          t.join(TimeUnit.SECONDS.toMillis(TestSupport.LIVENESS_SECONDS));
        }
      }
      assertTrue(ex.sched.threads.exitedThreads().size() <= 1,
          "only the last exit's thread may be listed: " + ex.sched.threads.exitedThreads());
    }
  }

  /**
   * Two idle Ms past their keepAlive where one P is left: the first to decide leaves and stops
   * counting in the same lock hold, so the second stays. Counted out only at its exit, the first
   * was still counted when the second decided, and both left.
   */
  @Test
  void ofTwoIdleMsPastKeepAliveOnlyTheSurplusOneLeaves() {
    Scheduler s = new Scheduler(
        new Config(1, 64, 8, 10_000_000L, 60_000_000_000L, "leave", Thread::new, null, null),
        false);
    M a = checkedInAndIdle(s, 1);
    M b = checkedInAndIdle(s, 2);
    s.lock.lock();
    try {
      assertEquals(2, s.threads.checkedInLocked());
      assertTrue(s.idle.leaveIfSurplusLocked(a), "two checked in for one P: one leaves");
      assertEquals(1, s.threads.checkedInLocked(), "counted out as it decides");
      assertFalse(s.idle.leaveIfSurplusLocked(b), "the other stays for the P");
      assertTrue(b.onIdleList);
    } finally {
      s.lock.unlock();
    }
  }

  /** A thread-less M of s whose thread has checked in, parked on the idle list. */
  private static M checkedInAndIdle(Scheduler s, long id) {
    M m = new M(s, id);
    m.setLife(M.STARTING);
    assertTrue(s.threads.checkIn(m));
    s.lock.lock();
    try {
      s.idle.mput(m);
    } finally {
      s.lock.unlock();
    }
    return m;
  }
}
