package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Runs in the default surefire execution, without --add-opens: the virtual-thread methods fail
 * with an UnsupportedOperationException that names the flag, every time, and nothing else in
 * gmp is affected (NoMicrometerMain repeats this in a child JVM and checks stderr is empty).
 */
class NoAddOpensTest {

  @Test
  void theVirtualThreadMethodsNameTheFlag() throws Exception {
    assertTrue(!Object.class.getModule().isOpen("java.lang", NoAddOpensTest.class.getModule()),
        "this test must run without --add-opens java.base/java.lang");
    GmpExecutor ex = GmpExecutor.create(2);
    try (var c = TestSupport.closer(ex)) {
      for (int i = 0; i < 2; i++) { // the failure is remembered, and reported again
        UnsupportedOperationException e =
            assertThrows(UnsupportedOperationException.class, ex::virtualThreadBuilder);
        assertTrue(e.getMessage().contains("--add-opens java.base/java.lang=ALL-UNNAMED"),
            e.getMessage());
        assertTrue(e.getMessage().contains("--add-opens java.base/java.lang=dev.gmp"),
            e.getMessage());
        UnsupportedOperationException e2 =
            assertThrows(UnsupportedOperationException.class, ex::newVirtualThreadPerTaskExecutor);
        assertEquals(e.getMessage(), e2.getMessage());
      }
      // Everything else works as before.
      assertEquals(42, ex.submit(() -> 42).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
      assertEquals(0, ex.stats().virtualThreads());
      AtomicReference<GmpExecutor> seen = new AtomicReference<>(ex);
      Thread t = Thread.ofVirtual().start(() -> seen.set(GmpExecutor.current()));
      assertTrue(t.join(Duration.ofSeconds(TestSupport.LIVENESS_SECONDS)));
      assertNull(seen.get(), "current() in a default virtual thread, without the flag");
    }
  }
}
