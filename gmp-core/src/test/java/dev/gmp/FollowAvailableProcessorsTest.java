package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/**
 * Container-aware parallelism (Go 1.25): an executor whose parallelism was not set follows the
 * CPU count sysmon reads about once a second; an explicit value pins it. Driven through the
 * builder's package-private CPU-count supplier; "did not change" is asserted after sysmon has
 * provably looked again (Counters.cpuChecks), never after a sleep.
 */
class FollowAvailableProcessorsTest {

  /** A CPU count the test sets, counting how often it is read. */
  static final class Cpus implements IntSupplier {
    final AtomicInteger value;
    final AtomicInteger reads = new AtomicInteger();

    Cpus(int n) {
      value = new AtomicInteger(n);
    }

    @Override
    public int getAsInt() {
      reads.incrementAndGet();
      return value.get();
    }
  }

  private static void startSysmon(GmpExecutor ex) throws Exception {
    // sysmon starts with the executor's first thread.
    assertEquals(1, ex.submit(() -> 1).get(LIVENESS_SECONDS, TimeUnit.SECONDS));
  }

  /** Waits until sysmon has looked at the CPU count {@code n} more times. */
  private static void awaitChecks(GmpExecutor ex, int n) {
    long target = ex.sched.counters.cpuChecks.sum() + n;
    TestSupport.awaitCondition(() -> n + " more CPU checks: " + ex.stats(), LIVENESS_SECONDS,
        () -> ex.sched.counters.cpuChecks.sum() >= target);
  }

  private static void awaitParallelism(GmpExecutor ex, int n) {
    TestSupport.awaitCondition(() -> "parallelism " + n + ": " + ex, LIVENESS_SECONDS,
        () -> ex.parallelism() == n);
  }

  @Test
  void followsTheCpuCountUpAndDown() throws Exception {
    Cpus cpus = new Cpus(2);
    try (TestSupport.Closer c = TestSupport.closer(
        GmpExecutor.builder().availableProcessors(cpus).maxThreads(16).build())) {
      GmpExecutor ex = c.ex();
      assertEquals(2, ex.parallelism(), "starts at the count read by build()");
      startSysmon(ex);
      cpus.value.set(3);
      awaitParallelism(ex, 3);
      cpus.value.set(1);
      awaitParallelism(ex, 1);
      assertEquals(7, ex.submit(() -> 7).get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    }
  }

  @Test
  void setParallelismPinsIt() throws Exception {
    Cpus cpus = new Cpus(2);
    try (TestSupport.Closer c = TestSupport.closer(
        GmpExecutor.builder().availableProcessors(cpus).maxThreads(16).build())) {
      GmpExecutor ex = c.ex();
      startSysmon(ex);
      ex.setParallelism(3);
      cpus.value.set(4);
      awaitChecks(ex, 2);
      assertEquals(3, ex.parallelism());
    }
  }

  @Test
  void theMXBeanPinsItToo() throws Exception {
    Cpus cpus = new Cpus(2);
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().name("follow-jmx")
        .availableProcessors(cpus).maxThreads(16).jmx(true).build())) {
      GmpExecutor ex = c.ex();
      startSysmon(ex);
      java.lang.management.ManagementFactory.getPlatformMBeanServer().setAttribute(
          Jmx.objectName("follow-jmx"), new javax.management.Attribute("Parallelism", 3));
      cpus.value.set(5);
      awaitChecks(ex, 2);
      assertEquals(3, ex.parallelism());
    }
  }

  @Test
  void anExplicitParallelismIsNeverFollowed() throws Exception {
    Cpus cpus = new Cpus(2);
    try (TestSupport.Closer c = TestSupport.closer(
        GmpExecutor.builder().availableProcessors(cpus).parallelism(3).build())) {
      GmpExecutor ex = c.ex();
      startSysmon(ex);
      awaitChecks(ex, 2);
      assertEquals(0, cpus.reads.get(), "the CPU count is not even read");
      assertEquals(3, ex.parallelism());
    }
  }

  @Test
  void followingSwitchedOffKeepsTheCountReadAtBuild() throws Exception {
    Cpus cpus = new Cpus(2);
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder()
        .availableProcessors(cpus).followAvailableProcessors(false).build())) {
      GmpExecutor ex = c.ex();
      assertEquals(2, ex.parallelism());
      startSysmon(ex);
      cpus.value.set(4);
      awaitChecks(ex, 2);
      assertEquals(1, cpus.reads.get(), "read once, by build()");
      assertEquals(2, ex.parallelism());
    }
  }

  @Test
  void cappedAtMaxThreads() throws Exception {
    Cpus cpus = new Cpus(2);
    try (TestSupport.Closer c = TestSupport.closer(
        GmpExecutor.builder().availableProcessors(cpus).maxThreads(3).build())) {
      GmpExecutor ex = c.ex();
      startSysmon(ex);
      cpus.value.set(8);
      awaitParallelism(ex, 3);
      awaitChecks(ex, 2);
      assertEquals(3, ex.parallelism());
    }
  }

  /**
   * The count read by build() is capped at maxThreads as well: maxThreads(1), documented as one
   * task at a time, threw at build() on any machine with two CPUs or more ("maxThreads (1) must
   * be >= parallelism (2)"), and maxThreads(4) on one with more than four.
   */
  @Test
  void theCountReadAtBuildIsCappedAtMaxThreadsToo() throws Exception {
    for (Boolean follow : new Boolean[] {null, false}) {
      Cpus cpus = new Cpus(8);
      GmpExecutor.Builder b = GmpExecutor.builder().availableProcessors(cpus).maxThreads(1);
      if (follow != null) {
        b.followAvailableProcessors(follow);
      }
      try (TestSupport.Closer c = TestSupport.closer(b.build())) {
        GmpExecutor ex = c.ex();
        assertEquals(1, ex.parallelism(), "follow " + follow);
        assertEquals(7, ex.submit(() -> 7).get(LIVENESS_SECONDS, TimeUnit.SECONDS)); // sysmon
        awaitChecks(ex, 1);
        assertEquals(1, ex.parallelism(), "follow " + follow);
      }
    }
  }

  @Test
  void explicitParallelismAndFollowingAreExclusive() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> GmpExecutor.builder().parallelism(2).followAvailableProcessors(true).build());
    assertTrue(e.getMessage().contains("followAvailableProcessors"), e.getMessage());
  }

  @Test
  void byDefaultTheExecutorFollowsTheRuntimesCount() {
    GmpExecutor ex = GmpExecutor.create();
    GmpExecutor one = GmpExecutor.create(1);
    try {
      assertEquals(Runtime.getRuntime().availableProcessors(), ex.parallelism());
      assertTrue(!ex.sched.parallelismPinned, "not pinned");
      assertTrue(one.sched.parallelismPinned, "create(n) pins");
    } finally {
      ex.shutdown();
      one.shutdown();
    }
  }
}
