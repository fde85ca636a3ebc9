package dev.gmp;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * {@code dev.gmp.ProcState}: a P changed state: {@code running} (an M acquired it or came back
 * from a blocking call), {@code syscall} (its M entered a blocking call), {@code idle} (on the
 * idle list), {@code dead} (retired by setParallelism). The lanes of gmp-bench's trace view.
 */
@Name("dev.gmp.ProcState")
@Label("GMP Processor State")
@Category("gmp")
@Description("A processor changed state (the per-P lanes of the trace view)")
@Enabled(false)
@StackTrace(false)
final class ProcStateEvent extends jdk.jfr.Event {
  @Label("Executor") String executor;
  @Label("P") int p;
  @Label("State") @Description("running, syscall, idle or dead") String state;
  @Label("M") @Description("The worker holding it, -1 if none") long m;
}
