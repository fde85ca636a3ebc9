package dev.gmp;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** {@code dev.gmp.Park}: an M slept on the idle list for want of work (Go's stopm), a duration. */
@Name("dev.gmp.Park")
@Label("GMP Park")
@Category("gmp")
@Description("A worker thread slept on the idle list")
@Enabled(false)
@StackTrace(false)
final class ParkEvent extends jdk.jfr.Event {
  @Label("Executor") String executor;
  @Label("M") long m;
}
