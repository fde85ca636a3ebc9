package dev.gmp;

import static dev.gmp.TestSupport.awaitCondition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
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
}
