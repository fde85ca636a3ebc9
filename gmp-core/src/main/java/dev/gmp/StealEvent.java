package dev.gmp;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** {@code dev.gmp.Steal}: a P's M took tasks from another P's queue (Go's runqsteal). */
@Name("dev.gmp.Steal")
@Label("GMP Steal")
@Category("gmp")
@Description("A processor stole tasks from another processor's local queue")
@Enabled(false)
@StackTrace(false)
final class StealEvent extends jdk.jfr.Event {
  @Label("Executor") String executor;
  @Label("Thief P") int thief;
  @Label("Victim P") int victim;
  @Label("Tasks Taken") int tasks;
}
