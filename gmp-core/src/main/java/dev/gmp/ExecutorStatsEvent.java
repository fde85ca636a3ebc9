package dev.gmp;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;

/** {@code dev.gmp.ExecutorStats}: a periodic snapshot of each live executor (GmpStats). */
@Name("dev.gmp.ExecutorStats")
@Label("GMP Executor Statistics")
@Category("gmp")
@Description("Periodic snapshot of a GmpExecutor's scheduler")
@Enabled(false)
@Period("1 s")
@StackTrace(false)
final class ExecutorStatsEvent extends jdk.jfr.Event {
  @Label("Executor") String executor;
  @Label("Parallelism") int parallelism;
  @Label("Threads") int threads;
  @Label("Idle Threads") int idleThreads;
  @Label("Spinning Threads") int spinningThreads;
  @Label("Idle Processors") int idleProcessors;
  @Label("Global Queue Length") int globalQueueLength;
  @Label("Local Queue Length") int localQueueLength;
  @Label("Running Tasks") int runningTasks;
  @Label("Tasks In Blocking Calls") int syscallTasks;
  @Label("Tasks Found Blocked") int waitingTasks;
  @Label("Steals") long steals;
  @Label("Handoffs") long handoffs;
  @Label("Retakes") long retakes;
  @Label("Completed Tasks") long completed;

  @Label("Spare Threads") int spareThreads;

  @Label("Oversubscribed")
  @Description("sysmon holds back hand-offs of short blocking calls: threads wait for a CPU")
  boolean oversubscribed;
}
