package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The block detector reads the CPU clock only once a task waits: tasks that compute, or wait
 * briefly for a monitor, never pay for it, a task that blocks is still retaken; on Linux the
 * clock is the kernel's, and the JVM's management classes (slow to load in a fresh JVM) never load
 * for it. In a child JVM, since any other test in this one may have loaded them.
 */
class DetectorClockTest {

  @Test
  void theClockLoadsAtTheFirstWaitNotForTasksThatCompute() throws Exception {
    ChildJvm.Result r = ChildJvm.run(DetectorClockMain.class, 180);
    assertEquals(List.of(
            "computing: looks>=200 true clock false retakes 0",
            "monitor: looks>=100 true clock false",
            "waiting: ran true clock true",
            "management classes loaded " + !CpuClock.KERNEL),
        r.stdout(), "stdout; stderr: " + r.stderr());
    assertEquals(0, r.exitValue(), r.stderr());
  }
}
