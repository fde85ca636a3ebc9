package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** sysmon's sleep between rounds (Sysmon#nextSleep): the fast cadence and its exceptions. */
class SysmonCadenceTest {
  private static final long MIN = Sysmon.MIN_DELAY_NANOS;

  @Test
  void aBusyRoundKeepsTheFastCadence() {
    assertEquals(MIN, Sysmon.nextSleep(MIN, 0, 0, false));
    assertEquals(MIN, Sysmon.nextSleep(4 * MIN, 50, 0, false)); // 50 idle rounds: not yet
  }

  @Test
  void idleRoundsDoubleTheSleepUpToTheMaximum() {
    assertEquals(2 * MIN, Sysmon.nextSleep(MIN, 51, 0, false));
    assertEquals(Sysmon.MAX_DELAY_NANOS, Sysmon.nextSleep(Sysmon.MAX_DELAY_NANOS, 99, 0, false));
  }

  @Test
  void aRoundThatRetookABlockedTaskLooksAgainSooner() {
    assertEquals(Sysmon.BLOCKED_DELAY_NANOS, Sysmon.nextSleep(MIN, 0, 1, false));
    // Whatever the back-off, a retake of a blocked task brings the short sleep back at once.
    assertEquals(Sysmon.BLOCKED_DELAY_NANOS, Sysmon.nextSleep(Sysmon.MAX_DELAY_NANOS, 99, 2, false));
    assertEquals(true, Sysmon.BLOCKED_DELAY_NANOS < MIN);
  }

  @Test
  void aPendingVerdictSleepsShortest() {
    assertEquals(Sysmon.SUSPECT_DELAY_NANOS, Sysmon.nextSleep(MIN, 0, 0, true));
    assertEquals(Sysmon.SUSPECT_DELAY_NANOS, Sysmon.nextSleep(MIN, 0, 1, true));
  }

  /** A time slice shorter than the longest sleep shortens it; the default one does not. */
  @Test
  void theSleepIsNeverLongerThanTheTimeSlice() {
    long ms = 1_000_000;
    assertEquals(ms, Sysmon.withinSlice(Sysmon.MAX_DELAY_NANOS, ms));
    assertEquals(Sysmon.MAX_DELAY_NANOS, Sysmon.withinSlice(Sysmon.MAX_DELAY_NANOS, 10 * ms));
    assertEquals(MIN, Sysmon.withinSlice(MIN, 1)); // never below the fast cadence
    assertEquals(MIN, Sysmon.withinSlice(MIN, 10 * ms));
  }
}
