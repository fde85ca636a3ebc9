package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class BuilderTest {

  private static void assertIae(Executable e, String param, String value) {
    IllegalArgumentException x = assertThrows(IllegalArgumentException.class, e);
    String msg = x.getMessage();
    assertTrue(msg != null && msg.contains(param), "message names " + param + ": " + msg);
    assertTrue(msg.contains(value), "message names the value " + value + ": " + msg);
  }

  @Test
  void invalidValuesNameParameterAndValue() {
    assertIae(() -> GmpExecutor.builder().parallelism(0), "parallelism", "0");
    assertIae(() -> GmpExecutor.builder().parallelism(-3), "parallelism", "-3");
    // Past ForkJoinPool's limit: an IllegalArgumentException, not an OutOfMemoryError at build()
    // (each processor's run queue is allocated there).
    assertIae(() -> GmpExecutor.builder().parallelism(GmpExecutor.MAX_PARALLELISM + 1),
        "parallelism", "32768");
    assertIae(() -> GmpExecutor.builder().parallelism(Integer.MAX_VALUE),
        "parallelism", "" + Integer.MAX_VALUE);
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder()
        .parallelism(1).maxThreads(Integer.MAX_VALUE).build())) {
      assertIae(() -> c.ex().setParallelism(GmpExecutor.MAX_PARALLELISM + 1),
          "parallelism", "32768");
    }
    assertIae(() -> GmpExecutor.builder().maxThreads(0), "maxThreads", "0");
    assertIae(
        () -> GmpExecutor.builder().parallelism(4).maxThreads(2).build(), "maxThreads", "2");
    assertIae(
        () -> GmpExecutor.builder().parallelism(4).maxThreads(2).build(), "parallelism", "4");
    assertIae(() -> GmpExecutor.builder().maxSpareThreads(-1), "maxSpareThreads", "-1");
    assertIae(() -> GmpExecutor.builder().timeSlice(Duration.ZERO), "timeSlice", "PT0S");
    assertIae(
        () -> GmpExecutor.builder().timeSlice(Duration.ofMillis(-5)), "timeSlice", "PT-0.005S");
    assertIae(() -> GmpExecutor.builder().keepAlive(Duration.ZERO), "keepAlive", "PT0S");
    assertIae(
        () -> GmpExecutor.builder().keepAlive(Duration.ofSeconds(-1)), "keepAlive", "PT-1S");
    assertIae(() -> GmpExecutor.builder().name("  "), "name", "'  '");
    assertIae(() -> GmpExecutor.builder().name(""), "name", "''");
    assertIae(() -> GmpExecutor.create(0), "parallelism", "0");
  }

  @Test
  void nullsThrowNpe() {
    assertThrows(NullPointerException.class, () -> GmpExecutor.builder().timeSlice(null));
    assertThrows(NullPointerException.class, () -> GmpExecutor.builder().keepAlive(null));
    assertThrows(NullPointerException.class, () -> GmpExecutor.builder().name(null));
    assertThrows(NullPointerException.class, () -> GmpExecutor.builder().threadFactory(null));
    assertThrows(
        NullPointerException.class, () -> GmpExecutor.builder().uncaughtExceptionHandler(null));
    assertThrows(NullPointerException.class, () -> GmpExecutor.blocking(null));
  }

  @Test
  void validEdgeValuesAreAccepted() throws Exception {
    try (TestSupport.Closer cex = TestSupport.closer(GmpExecutor.builder()
            .parallelism(2)
            .maxThreads(2)
            .maxSpareThreads(0)
            .timeSlice(Duration.ofNanos(1))
            .keepAlive(Duration.ofNanos(1))
            .build())) {
      GmpExecutor ex = cex.ex();
      assertEquals(2, ex.parallelism());
      assertEquals(42, ex.submit(() -> 42).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
    }
  }

  /** FOREVER is a duration Duration#toNanos cannot count: it means never, not an overflow. */
  @Test
  void aDurationTooLongForNanosecondsMeansNever() throws Exception {
    Duration forever = java.time.temporal.ChronoUnit.FOREVER.getDuration();
    assertEquals(Long.MAX_VALUE, Config.nanos(forever, Long.MAX_VALUE));
    assertEquals(Config.MAX_TIME_SLICE_NANOS, Config.nanos(forever, Config.MAX_TIME_SLICE_NANOS));
    assertEquals(Config.MAX_TIME_SLICE_NANOS,
        Config.nanos(Duration.ofNanos(Config.MAX_TIME_SLICE_NANOS + 1),
            Config.MAX_TIME_SLICE_NANOS));
    assertEquals(7, Config.nanos(Duration.ofNanos(7), Config.MAX_TIME_SLICE_NANOS));
    try (TestSupport.Closer cex = TestSupport.closer(GmpExecutor.builder()
            .parallelism(1)
            .timeSlice(forever)
            .keepAlive(forever)
            .build())) {
      assertEquals(42,
          cex.ex().submit(() -> 42).get(TestSupport.LIVENESS_SECONDS, TimeUnit.SECONDS));
    }
  }

  @Test
  void setParallelismRejectsBadValues() {
    try (TestSupport.Closer cex = TestSupport.closer(GmpExecutor.builder().parallelism(1).maxThreads(3).build())) {
      GmpExecutor ex = cex.ex();
      assertIae(() -> ex.setParallelism(0), "parallelism", "0");
      assertIae(() -> ex.setParallelism(-1), "parallelism", "-1");
      assertIae(() -> ex.setParallelism(4), "maxThreads", "4");
      assertEquals(1, ex.parallelism());
      ex.setParallelism(3);
      assertEquals(3, ex.parallelism());
    }
  }

  @Test
  void createDefaultsAndParallelism() {
    try (TestSupport.Closer cex = TestSupport.closer(GmpExecutor.create())) {
      GmpExecutor ex = cex.ex();
      assertEquals(Runtime.getRuntime().availableProcessors(), ex.parallelism());
      assertEquals(ex.parallelism(), ex.stats().parallelism());
    }
    try (TestSupport.Closer cex = TestSupport.closer(GmpExecutor.create(3))) {
      GmpExecutor ex = cex.ex();
      assertEquals(3, ex.parallelism());
    }
  }

  @Test
  void threadNamesUsePrefixAndCurrentIsTheExecutor() throws Exception {
    try (TestSupport.Closer cex = TestSupport.closer(GmpExecutor.builder().parallelism(2).name("my-pool").build());
        TestSupport.Closer cother = TestSupport.closer(GmpExecutor.builder().parallelism(1).build())) {
      GmpExecutor ex = cex.ex();
      GmpExecutor other = cother.ex();
      String name = ex.submit(() -> Thread.currentThread().getName()).get(10, TimeUnit.SECONDS);
      assertTrue(name.startsWith("my-pool"), name);
      assertTrue(ex.submit(() -> Thread.currentThread().isDaemon()).get(10, TimeUnit.SECONDS));
      assertSame(ex, ex.submit(GmpExecutor::current).get(10, TimeUnit.SECONDS));
      assertSame(other, other.submit(GmpExecutor::current).get(10, TimeUnit.SECONDS));
      // A task of ex, running blocking() and nested inside another executor's Future.get.
      assertSame(
          ex,
          ex.submit(() -> GmpExecutor.blocking(GmpExecutor::current)).get(10, TimeUnit.SECONDS));
      assertNull(GmpExecutor.current());
      assertTrue(ex.toString().contains("my-pool"), ex.toString());
    }
  }

  @Test
  void customThreadFactoryIsUsed() throws Exception {
    try (TestSupport.Closer cex = TestSupport.closer(GmpExecutor.builder()
            .parallelism(1)
            .threadFactory(
                r -> {
                  Thread t = new Thread(r, "custom-worker");
                  t.setDaemon(true);
                  return t;
                })
            .build())) {
      GmpExecutor ex = cex.ex();
      assertEquals(
          "custom-worker",
          ex.submit(() -> Thread.currentThread().getName()).get(10, TimeUnit.SECONDS));
    }
  }
}
