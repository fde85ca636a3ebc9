package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Threads gmp makes itself do not depend on which thread happened to trigger them: no inherited
 * inheritable thread-locals, the context class loader captured at build(), daemon.
 */
class ThreadCreationContextTest {
  private static final InheritableThreadLocal<String> REQUEST = new InheritableThreadLocal<>();

  @Test
  void workersInheritNothingFromTheSubmitter() throws Exception {
    ClassLoader builtWith = Thread.currentThread().getContextClassLoader();
    GmpExecutor ex = GmpExecutor.builder().parallelism(2).build();
    ClassLoader requestLoader = new URLClassLoader(new URL[0], builtWith);
    CompletableFuture<Object[]> seen = new CompletableFuture<>();
    // The first task's submitter (which makes the first worker start) is a "request thread"
    // with its own inheritable thread-local and context class loader.
    Thread request = new Thread(() -> {
      REQUEST.set("request-42");
      Thread.currentThread().setContextClassLoader(requestLoader);
      ex.execute(() -> seen.complete(new Object[] {
          REQUEST.get(),
          Thread.currentThread().getContextClassLoader(),
          Thread.currentThread().isDaemon()}));
    });
    request.start();
    Object[] r = seen.get(LIVENESS_SECONDS, TimeUnit.SECONDS);
    assertNull(r[0], "no inheritable thread-local leaks from the triggering thread");
    assertSame(builtWith, r[1], "the context class loader captured at build(), not the caller's");
    assertTrue((Boolean) r[2], "daemon");
    TestSupport.terminate(ex);
  }

  @Test
  void sysmonIsMadeTheSameWay() throws Exception {
    ClassLoader builtWith = Thread.currentThread().getContextClassLoader();
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).name("ctx").build();
    REQUEST.set("caller");
    try {
      ex.submit(() -> {}).get(LIVENESS_SECONDS, TimeUnit.SECONDS);
    } finally {
      REQUEST.remove();
    }
    Thread sysmon = ex.sched.sysmon.thread();
    assertTrue(sysmon != null && sysmon.isDaemon(), "sysmon runs as a daemon: " + sysmon);
    assertSame(builtWith, sysmon.getContextClassLoader());
    TestSupport.terminate(ex);
  }
}
