package dev.gmp;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * {@code dev.gmp.Retake}: sysmon took a P back (Go's retake): from a marked blocking call
 * ({@code syscall}), from a task blocked without saying so ({@code blocked}), or from a task
 * that held it a whole time slice while work waited ({@code hog}).
 */
@Name("dev.gmp.Retake")
@Label("GMP Retake")
@Category("gmp")
@Description("sysmon took a processor from a blocking call, a blocked task or a hog")
@Enabled(false)
@StackTrace(false)
final class RetakeEvent extends jdk.jfr.Event {
  @Label("Executor") String executor;
  @Label("P") int p;
  @Label("Kind") @Description("syscall, blocked or hog") String kind;
  @Label("M") @Description("The worker the processor was taken from") long m;
  @Label("Held") @Description("How long the call or the task had been running") @Timespan
  long held;
}
