package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gmp.soak.Fault;
import dev.gmp.soak.Soak;
import java.time.Duration;
import java.util.EnumSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The randomised fault soak (dev.gmp.soak.Soak): a short smoke run always, a long one tagged
 * slow. Both take their faults from -Dgmp.soak.faults (default all; e.g. all,-timers to bisect)
 * and print a line per round with -Dgmp.soak.verbose=true.
 */
class SoakTest {
  @Test
  void smoke() throws Exception {
    check(Soak.run(Duration.ofSeconds(6), 20261129L));
  }

  /** -Dtests.exclude= runs it; -Dgmp.soak.seconds=N sets its length (default 60). */
  @Test
  @Tag("slow")
  void soak() throws Exception {
    long seconds = Long.getLong("gmp.soak.seconds", 60);
    check(Soak.run(Duration.ofSeconds(seconds), System.nanoTime()));
  }

  @Test
  void faultLists() {
    assertEquals(EnumSet.allOf(Fault.class), Fault.parse(null));
    assertEquals(EnumSet.allOf(Fault.class), Fault.parse("all"));
    assertEquals(EnumSet.noneOf(Fault.class), Fault.parse("none"));
    assertEquals(EnumSet.of(Fault.INTERRUPTS, Fault.SLOW_FACTORY),
        Fault.parse("interrupts, SLOWFACTORY"));
    EnumSet<Fault> allButTimers = EnumSet.allOf(Fault.class);
    allButTimers.remove(Fault.TIMERS);
    assertEquals(allButTimers, Fault.parse("all,-timers"));
    try {
      Fault.parse("interupts");
      throw new AssertionError("a misspelt fault must not be ignored");
    } catch (IllegalArgumentException expected) {
      assertTrue(expected.getMessage().contains("interupts"), expected.getMessage());
    }
  }

  private static void check(Soak.Result r) {
    System.out.println(r);
    assertEquals(0, r.lost, "accepted tasks neither run nor returned");
    assertEquals(0, r.duplicated, "tasks run or returned twice");
    assertEquals(0, r.phantom, "rejected tasks that ran");
    assertEquals(0, r.periodicLive, "periodic timers live after termination");
    assertEquals(0, r.notTerminated, "rounds that did not terminate");
    assertEquals(0, r.threadsAlive, "worker threads alive after awaitTermination");
    assertEquals(0, r.sysmonAlive, "sysmon alive after awaitTermination");
    assertEquals(0, r.ranAfterTermination, "tasks running after awaitTermination");
    assertEquals(0, r.vtAlive, "virtual threads alive after awaitTermination");
    assertEquals(r.accepted, r.ran + r.returned + r.timersCancelledUnrun,
        "accepted = ran + returned + cancelled before they ran");
    assertTrue(r.ok(), r.failures.toString());
    assertTrue(r.ran > 0, "nothing ran");
    if (r.faults.contains(Fault.INTERRUPTS.key)) {
      assertTrue(r.interruptsSysmon > 0, "sysmon never interrupted (not found by name?)");
    }
    assertTrue(r.invokeAlls > 0 && r.invokeAnys > 0, "no invokeAll or invokeAny from a task");
    assertTrue(r.timedWaits > 0, "no timed wait from a task");
    if (r.faults.contains(Fault.DECORATOR.key)) {
      assertTrue(r.decoratedRounds > 0 && r.decoratorThrew > 0, "the decorator never ran or threw");
    }
    if (r.faults.contains(Fault.VIRTUAL_THREADS.key)) {
      assertFalse(r.virtualThreadsUnsupported,
          "virtual threads unsupported: the surefire argLine lost --add-opens java.base/java.lang");
      assertTrue(r.vtStarted > 0, "no virtual thread started");
    }
  }
}
