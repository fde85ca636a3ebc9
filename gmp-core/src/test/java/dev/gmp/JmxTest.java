package dev.gmp;

import static dev.gmp.TestSupport.LIVENESS_SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.management.Attribute;
import javax.management.JMX;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.RuntimeMBeanException;
import org.junit.jupiter.api.Test;

/** Builder.jmx(true): the GmpExecutorMXBean's name, attributes, life cycle and name clashes. */
class JmxTest {
  private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

  private static ObjectName name(String n) throws Exception {
    return new ObjectName("dev.gmp:type=GmpExecutor,name=" + n);
  }

  @Test
  void registeredAtBuildAndUnregisteredWhenTheLastThreadExits() throws Exception {
    ObjectName on = name("jmx-life");
    GmpExecutor ex = GmpExecutor.builder().name("jmx-life").parallelism(2).jmx(true).build();
    try {
      assertTrue(SERVER.isRegistered(on));
      assertEquals(2, SERVER.getAttribute(on, "Parallelism"));
      int n = 200;
      CountDownLatch done = new CountDownLatch(n);
      for (int i = 0; i < n; i++) {
        ex.execute(done::countDown);
      }
      TestSupport.await(done, "tasks ran");
      TestSupport.awaitCondition(
          "CompletedTaskCount reaches " + n,
          () -> {
            try {
              return (long) SERVER.getAttribute(on, "CompletedTaskCount") == n;
            } catch (Exception e) {
              throw new AssertionError(e);
            }
          });
      assertTrue((int) SERVER.getAttribute(on, "PoolSize") >= 1, "threads were started");
    } finally {
      ex.shutdown();
    }
    // Termination comes with the last M's exit (mexit): unregistered before awaitTermination
    // returns, and before isTerminated() says so.
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertTrue(ex.isTerminated());
    assertFalse(SERVER.isRegistered(on), "unregistered at termination");
  }

  @Test
  void aFreshExecutorIsUnregisteredByShutdownItself() throws Exception {
    ObjectName on = name("jmx-fresh");
    GmpExecutor ex = GmpExecutor.builder().name("jmx-fresh").jmx(true).build();
    assertTrue(SERVER.isRegistered(on));
    ex.shutdown(); // no thread ever started: shutdown() terminates it
    assertTrue(ex.isTerminated());
    assertFalse(SERVER.isRegistered(on));
  }

  @Test
  void shutdownNowUnregistersToo() throws Exception {
    ObjectName on = name("jmx-now");
    GmpExecutor ex = GmpExecutor.builder().name("jmx-now").parallelism(1).jmx(true).build();
    assertEquals(1, ex.submit(() -> 1).get(LIVENESS_SECONDS, TimeUnit.SECONDS));
    ex.shutdownNow();
    assertTrue(ex.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
    assertFalse(SERVER.isRegistered(on));
  }

  @Test
  void notRegisteredByDefault() throws Exception {
    try (TestSupport.Closer c =
        TestSupport.closer(GmpExecutor.builder().name("jmx-off").build())) {
      assertFalse(SERVER.isRegistered(name("jmx-off")));
    }
  }

  @Test
  void aNameAlreadyRegisteredIsAnIllegalStateExceptionAtBuild() throws Exception {
    GmpExecutor first = GmpExecutor.builder().name("jmx-dup").jmx(true).build();
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> GmpExecutor.builder().name("jmx-dup").jmx(true).build());
    assertTrue(e.getMessage().contains("dev.gmp:type=GmpExecutor,name=jmx-dup"), e.getMessage());
    assertTrue(SERVER.isRegistered(name("jmx-dup")), "the first executor keeps its bean");
    first.shutdown();
    assertTrue(first.awaitTermination(LIVENESS_SECONDS, TimeUnit.SECONDS));
    // Once the first has terminated the name is free again.
    GmpExecutor second = GmpExecutor.builder().name("jmx-dup").jmx(true).build();
    assertTrue(SERVER.isRegistered(name("jmx-dup")));
    second.shutdown();
    assertFalse(SERVER.isRegistered(name("jmx-dup")));
  }

  /**
   * An unnamed executor never takes the JMX name of one a user named gmp-N, and an executor with
   * its own thread factory can still be named. Before, the unnamed one's build failed ("choose
   * another name") and name(...) with threadFactory(...) was refused, so it had no way out.
   */
  @Test
  void unnamedAndFactoryMadeExecutorsGetAFreeName() throws Exception {
    GmpExecutor probe = GmpExecutor.builder().build(); // the next number is one more than its
    probe.shutdown();
    int n = Integer.parseInt(probe.dump().lines()
        .filter(l -> l.startsWith("SCHED gmp-")).findFirst().orElseThrow()
        .split("[- :]")[2]);
    String taken = "gmp-" + (n + 1);
    GmpExecutor named = GmpExecutor.builder().name(taken).jmx(true).build();
    GmpExecutor unnamed =
        GmpExecutor.builder().threadFactory(Executors.defaultThreadFactory()).jmx(true).build();
    GmpExecutor both = GmpExecutor.builder()
        .name("jmx-factory").threadFactory(Executors.defaultThreadFactory()).jmx(true).build();
    try {
      assertTrue(SERVER.isRegistered(name(taken)));
      assertFalse(unnamed.dump().startsWith("SCHED " + taken + ":"), unnamed.dump());
      assertTrue(SERVER.isRegistered(name("jmx-factory")));
      assertEquals(1, both.submit(() -> 1).get(LIVENESS_SECONDS, TimeUnit.SECONDS));
      assertTrue(both.dump().startsWith("SCHED jmx-factory:"), both.dump());
    } finally {
      named.shutdown();
      unnamed.shutdown();
      both.shutdown();
    }
  }

  @Test
  void everyAttributeSaysWhatItCounts() throws Exception {
    ObjectName on = name("jmx-desc");
    try (TestSupport.Closer c = TestSupport.closer(
        GmpExecutor.builder().name("jmx-desc").jmx(true).build())) {
      MBeanInfo info = SERVER.getMBeanInfo(on);
      assertTrue(info.getDescription().contains("GmpExecutor"), info.getDescription());
      java.util.Set<String> names = new java.util.TreeSet<>();
      for (MBeanAttributeInfo a : info.getAttributes()) {
        names.add(a.getName());
        assertEquals(Jmx.DESCRIPTIONS.get(a.getName()), a.getDescription(), a.getName());
      }
      // Every attribute of the interface has its own text (none left at StandardMBean's
      // "Attribute exposed for management"), and no text describes a missing attribute.
      assertEquals(new java.util.TreeSet<>(Jmx.DESCRIPTIONS.keySet()), names);
      assertTrue(SERVER.getMBeanInfo(on).getAttributes().length >= 15);
      String retake = null;
      for (MBeanAttributeInfo a : info.getAttributes()) {
        if (a.getName().equals("RetakeCount")) {
          retake = a.getDescription();
        }
      }
      assertTrue(retake.contains("dev.gmp.Retake"), "names the event it agrees with: " + retake);
      assertEquals(0L, SERVER.getAttribute(on, "SchedulingLatencySamples"), "nothing ran yet");
    }
  }

  @Test
  void parallelismIsWritableAndValidated() throws Exception {
    ObjectName on = name("jmx-par");
    try (TestSupport.Closer c =
        TestSupport.closer(
            GmpExecutor.builder().name("jmx-par").parallelism(2).maxThreads(8).jmx(true).build())) {
      GmpExecutor ex = c.ex();
      SERVER.setAttribute(on, new Attribute("Parallelism", 3));
      assertEquals(3, ex.parallelism());
      assertEquals(3, SERVER.getAttribute(on, "Parallelism"));
      // setParallelism wakes a spinner, which takes a P for a moment and then gives it back.
      TestSupport.awaitCondition(
          "three idle processors",
          () -> {
            try {
              return (int) SERVER.getAttribute(on, "IdleProcessorCount") == 3;
            } catch (Exception e) {
              throw new AssertionError(e);
            }
          });
      RuntimeMBeanException bad =
          assertThrows(
              RuntimeMBeanException.class,
              () -> SERVER.setAttribute(on, new Attribute("Parallelism", 9)));
      assertInstanceOf(IllegalArgumentException.class, bad.getCause());
      assertTrue(bad.getCause().getMessage().contains("maxThreads"), bad.getCause().getMessage());
      assertEquals(3, ex.parallelism());
    }
  }

  @Test
  void runningAndQueuedCountsWhileTheOnlyProcessorIsBusy() throws Exception {
    ObjectName on = name("jmx-busy");
    // maxSpareThreads 0: sysmon cannot move the queued work to another thread.
    try (TestSupport.Closer c =
        TestSupport.closer(
            GmpExecutor.builder()
                .name("jmx-busy")
                .parallelism(1)
                .maxSpareThreads(0)
                .jmx(true)
                .build())) {
      GmpExecutor ex = c.ex();
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      ex.execute(
          () -> {
            started.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
      TestSupport.await(started, "the long task started");
      for (int i = 0; i < 5; i++) {
        ex.execute(() -> {});
      }
      GmpExecutorMXBean proxy = JMX.newMXBeanProxy(SERVER, on, GmpExecutorMXBean.class);
      assertEquals(1, proxy.getRunningTaskCount());
      assertEquals(5, proxy.getQueuedTaskCount());
      assertEquals(0, proxy.getIdleProcessorCount());
      assertEquals(1, proxy.getParallelism());
      release.countDown();
      TestSupport.awaitCondition(
          "drained", () -> proxy.getCompletedTaskCount() == 6 && proxy.getQueuedTaskCount() == 0);
      assertEquals(0, proxy.getRunningTaskCount());
    }
  }

  @Test
  void countersAgreeWithStatsOnceQuiet() throws Exception {
    ObjectName on = name("jmx-counters");
    try (TestSupport.Closer c =
        TestSupport.closer(
            GmpExecutor.builder().name("jmx-counters").parallelism(1).jmx(true).build())) {
      GmpExecutor ex = c.ex();
      // A marked blocking call with a task waiting behind it: its P is handed off at once.
      CountDownLatch kid = new CountDownLatch(1);
      ex.submit(
              () -> {
                ex.execute(kid::countDown);
                return GmpExecutor.blocking(() -> kid.await(LIVENESS_SECONDS, TimeUnit.SECONDS));
              })
          .get(LIVENESS_SECONDS, TimeUnit.SECONDS);
      TestSupport.awaitCondition(
          () -> "quiet: " + ex.stats(),
          LIVENESS_SECONDS,
          () -> ex.stats().completedTasks() == 2 && ex.stats().idleProcessors() == 1);
      GmpStats s = ex.stats();
      GmpExecutorMXBean proxy = JMX.newMXBeanProxy(SERVER, on, GmpExecutorMXBean.class);
      assertTrue(s.handoffs() >= 1, s.toString());
      assertEquals(s.handoffs(), proxy.getHandoffCount());
      assertEquals(s.retakes(), proxy.getRetakeCount());
      assertEquals(s.steals(), proxy.getStealCount());
      assertEquals(s.threads(), proxy.getPoolSize());
      assertEquals(0, proxy.getSpinningThreadCount());
    }
  }

  /**
   * PoolSize counts threads, as stats().threads() and Micrometer's pool size do: not an M whose
   * ThreadFactory call is still under way. Parallelism 1: a task's marked call, with a task queued
   * behind it, has its P handed to a new M, whose factory call waits on a latch.
   */
  @Test
  void poolSizeLeavesOutAThreadTheFactoryIsStillMaking() throws Exception {
    ObjectName on = name("jmx-pool-size");
    CountDownLatch inFactory = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    java.util.concurrent.atomic.AtomicBoolean slowNow =
        new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.ThreadFactory slow = r -> {
      if (slowNow.get()) {
        inFactory.countDown();
        TestSupport.awaitQuietly(release);
      }
      Thread t = new Thread(r);
      t.setDaemon(true);
      return t;
    };
    try (TestSupport.Closer c = TestSupport.closer(GmpExecutor.builder().name("jmx-pool-size")
        .parallelism(1).threadFactory(slow).jmx(true).build())) {
      GmpExecutor ex = c.ex();
      ex.submit(() -> {}).get(LIVENESS_SECONDS, TimeUnit.SECONDS); // the first M, made at once
      slowNow.set(true);
      ex.execute(() -> {
        try {
          GmpExecutor.blocking(() -> {
            ex.execute(() -> {}); // queued behind the call: its P goes to a new M
            return release.await(LIVENESS_SECONDS, TimeUnit.SECONDS);
          });
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      });
      try {
        TestSupport.await(inFactory, "a new thread's factory call");
        GmpExecutorMXBean proxy = JMX.newMXBeanProxy(SERVER, on, GmpExecutorMXBean.class);
        assertEquals(1, ex.stats().threads(), ex.stats().toString());
        assertEquals(1, proxy.getPoolSize(), "a factory call under way is no thread yet");
      } finally {
        release.countDown(); // before the close, which waits for the call
      }
    }
  }

  @Test
  void aNameWithCharactersJmxReservesIsQuoted() throws Exception {
    GmpExecutor ex = GmpExecutor.builder().name("a,b=c").jmx(true).build();
    ObjectName on = name(ObjectName.quote("a,b=c"));
    assertTrue(SERVER.isRegistered(on));
    ex.shutdown();
    assertFalse(SERVER.isRegistered(on));
  }
}
