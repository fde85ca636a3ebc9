package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The nudge (Sysmon#wakeForBacklog after a blocked retake): armed only by sysmon, taken by one
 * submitter, and seen by exactly one round. Driven on a scheduler without a sysmon thread, so no
 * round races the test.
 */
class SysmonNudgeTest {
  private static Sysmon sysmon() {
    return new Scheduler(GmpExecutor.builder().parallelism(1).config(), false).sysmon;
  }

  @Test
  void backlogWithoutARecentBlockedRetakeNudgesNobody() {
    Sysmon m = sysmon();
    m.wakeForBacklog();
    m.wakeForBacklog();
    assertFalse(m.takeNudge(), "a CPU-bound backlog must not end sysmon's sleep");
  }

  @Test
  void oneBacklogTakesAnArmedNudgeAndOneRoundSeesIt() {
    Sysmon m = sysmon();
    m.armNudge();
    m.wakeForBacklog();
    m.wakeForBacklog(); // a second submitter finds it taken
    assertTrue(m.takeNudge(), "the round after a nudge skips its lateness sample");
    assertFalse(m.takeNudge(), "a nudge is seen by one round only");
    m.wakeForBacklog();
    assertFalse(m.takeNudge(), "taken at the round's start: disarmed until the round re-arms it");
  }

  @Test
  void anArmedNudgeNobodyTookIsDisarmedByTheNextRound() {
    Sysmon m = sysmon();
    m.armNudge();
    assertFalse(m.takeNudge(), "the sleep ended on its own");
    m.wakeForBacklog();
    assertFalse(m.takeNudge());
  }
}
