package dev.gmp;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * {@code dev.gmp.RunnextDemotion}: a chain of runnext tasks shared one time slice for too long,
 * so sysmon's preemption request sent the next one to the global queue.
 */
@Name("dev.gmp.RunnextDemotion")
@Label("GMP Runnext Demotion")
@Category("gmp")
@Description("A preempted processor's runnext task went to the global queue")
@Enabled(false)
@StackTrace(false)
final class RunnextDemotionEvent extends jdk.jfr.Event {
  @Label("Executor") String executor;
  @Label("P") int p;
  @Label("Goroutine Id") long goid;
}
