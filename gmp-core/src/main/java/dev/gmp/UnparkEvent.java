package dev.gmp;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** {@code dev.gmp.Unpark}: a parked M had to be woken (Go's notewakeup of a sleeping M). */
@Name("dev.gmp.Unpark")
@Label("GMP Unpark")
@Category("gmp")
@Description("A parked worker thread was woken")
@Enabled(false)
@StackTrace(false)
final class UnparkEvent extends jdk.jfr.Event {
  @Label("Executor") String executor;
  @Label("M") long m;
}
