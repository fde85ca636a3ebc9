package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The nudge (Sysmon#nudge: an outside submission, every P taken, after a blocked retake): armed
 * only by sysmon, taken by one submitter, and seen by exactly one round. Driven on a scheduler
 * without a sysmon thread, so no round races the test.
 */
class SysmonNudgeTest {
  private static Sysmon sysmon() {
    return new Scheduler(GmpExecutor.builder().parallelism(1).config(), false).sysmon;
  }

  @Test
  void withoutARecentBlockedRetakeNobodyIsNudged() {
    Sysmon m = sysmon();
    m.nudge();
    m.nudge();
    assertFalse(m.takeNudge(), "a CPU-bound backlog must not end sysmon's sleep");
  }

  @Test
  void oneSubmitterTakesAnArmedNudgeAndOneRoundSeesIt() {
    Sysmon m = sysmon();
    m.armNudge();
    m.nudge();
    m.nudge(); // a second submitter finds it taken
    assertTrue(m.takeNudge(), "the round after a nudge skips its lateness sample");
    assertFalse(m.takeNudge(), "a nudge is seen by one round only");
    m.nudge();
    assertFalse(m.takeNudge(), "taken at the round's start: disarmed until the round re-arms it");
  }

  @Test
  void anArmedNudgeNobodyTookIsDisarmedByTheNextRound() {
    Sysmon m = sysmon();
    m.armNudge();
    assertFalse(m.takeNudge(), "the sleep ended on its own");
    m.nudge();
    assertFalse(m.takeNudge());
  }

  @Test
  void aTasksOwnBacklogDoesNotNudge() {
    Sysmon m = sysmon();
    m.armNudge();
    m.wakeForBacklog(); // a local spawn or a spinner's last look: only the deep sleep ends
    assertFalse(m.takeNudge(), "only outside submissions nudge");
  }
}
