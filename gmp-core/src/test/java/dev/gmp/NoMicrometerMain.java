package dev.gmp;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Run by NoMicrometerTest in a JVM whose class path has gmp-core and JCTools but no Micrometer:
 * builds an executor with every observability feature that needs no optional dependency, runs
 * tasks, checks that virtualThreadBuilder() fails cleanly without --add-opens (and prints no
 * warning: the test checks stderr), and prints "ok".
 */
public final class NoMicrometerMain {
  private NoMicrometerMain() {}

  public static void main(String[] args) throws Exception {
    try {
      Class.forName("io.micrometer.core.instrument.MeterRegistry");
      System.out.println("micrometer is on the class path: the test proves nothing");
      return;
    } catch (ClassNotFoundException expected) {
      // as intended
    }
    GmpExecutor ex = GmpExecutor.builder().name("no-micrometer").parallelism(2).jmx(true).build();
    int n = 1000;
    CountDownLatch done = new CountDownLatch(n);
    for (int i = 0; i < n; i++) {
      ex.execute(done::countDown);
    }
    if (!done.await(10, TimeUnit.SECONDS)) {
      System.out.println("tasks did not run: " + ex.stats());
      return;
    }
    try {
      ex.virtualThreadBuilder();
      System.out.println("virtualThreadBuilder() worked without --add-opens");
      return;
    } catch (UnsupportedOperationException expected) {
      if (!expected.getMessage().contains("--add-opens java.base/java.lang=ALL-UNNAMED")) {
        System.out.println("the message does not name the flag: " + expected.getMessage());
        return;
      }
    }
    ex.shutdown();
    if (!ex.awaitTermination(10, TimeUnit.SECONDS)) {
      System.out.println("did not terminate: " + ex.stats());
      return;
    }
    System.out.println("ok");
  }
}
