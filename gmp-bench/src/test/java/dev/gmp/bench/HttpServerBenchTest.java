package dev.gmp.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gmp.GmpExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * gmp as the executor of each real server HttpServerBench runs: every request the client sends is
 * answered (the client throws if one goes unanswered), and every handler ran on gmp's workers.
 */
class HttpServerBenchTest {
  @ParameterizedTest
  @ValueSource(strings = {"jdk", "jetty", "tomcat"})
  void gmpServesEveryRequest(String server) throws Exception {
    AtomicInteger handled = new AtomicInteger();
    AtomicInteger onGmp = new AtomicInteger();
    HttpServerBench b = new HttpServerBench();
    b.executor = "gmp";
    b.parallelism = 2;
    b.clients = 4;
    b.handler = "tiny";
    b.server = server;
    AtomicBoolean stopping = new AtomicBoolean();
    b.workOverride =
        () -> {
          if (stopping.get()) {
            return; // a server may finish requests on threads of its own while it stops
          }
          if (GmpExecutor.current() != null) {
            onGmp.incrementAndGet();
          }
          handled.incrementAndGet();
        };
    b.setUp();
    try {
      Histogram hist = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
      b.client.run(500, hist);
      assertTrue(hist.getTotalCount() >= 500, "responses: " + hist.getTotalCount());
    } finally {
      stopping.set(true);
      b.tearDown();
    }
    assertTrue(handled.get() >= 500, "handled: " + handled.get());
    assertEquals(handled.get(), onGmp.get(), "handlers that ran on gmp's workers");
  }

  @Test
  void anUnknownServerIsNamed() {
    HttpServerBench b = new HttpServerBench();
    b.executor = "fjp";
    b.parallelism = 1;
    b.handler = "tiny";
    b.server = "undertow";
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, b::setUp);
    assertTrue(e.getMessage().contains("undertow"), e.getMessage());
    if (b.exec != null) {
      Execs.shutdown(b.exec);
    }
  }
}
