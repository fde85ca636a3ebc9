/**
 * gmp: Go's GMP scheduler as a drop-in {@link java.util.concurrent.ExecutorService} ({@link
 * dev.gmp.GmpExecutor}), with its JMX bean and JFR events, and a Micrometer binding ({@link
 * dev.gmp.micrometer.GmpExecutorMetrics}) for applications that have Micrometer: it is required
 * statically, so the module resolves and runs without it.
 */
module dev.gmp {
  requires java.management;
  requires jdk.jfr;
  requires static micrometer.core;

  exports dev.gmp;
  exports dev.gmp.micrometer;
}
