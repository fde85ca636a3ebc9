package dev.gmp;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * {@code dev.gmp.Handoff}: a {@link GmpExecutor#blocking} call gave its P away, at once because
 * tasks were waiting (eager, Go's entersyscallblock) or when sysmon found the call still running
 * after one of its ticks.
 */
@Name("dev.gmp.Handoff")
@Label("GMP Handoff")
@Category("gmp")
@Description("A blocking() call gave its processor to another thread")
@Enabled(false)
@StackTrace(false)
final class HandoffEvent extends jdk.jfr.Event {
  @Label("Executor") String executor;
  @Label("P") int p;
  @Label("Eager") @Description("At the call's start, because tasks were waiting") boolean eager;
  @Label("Call Duration") @Description("How long the call had run when its P was handed off")
  @Timespan long callDuration;
}
