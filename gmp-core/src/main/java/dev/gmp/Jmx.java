package dev.gmp;

import java.lang.management.ManagementFactory;
import java.util.Map;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.StandardMBean;

/**
 * The {@link GmpExecutorMXBean} of one executor and its registration on the platform MBean
 * server. The bean holds the scheduler, not the executor: the MBean server keeps its beans
 * reachable, and an executor dropped without shutdown() must still be collected and shut down
 * (GmpExecutor's Cleaner), which unregisters the bean. Registration happens in build(), before
 * the executor is published; unregistration is a termination action (Lifecycle#onTermination),
 * so no JMX call is made under the scheduler lock.
 */
final class Jmx implements GmpExecutorMXBean {
  static final String DOMAIN = "dev.gmp";

  private final Scheduler s;

  private Jmx(Scheduler s) {
    this.s = s;
  }

  /** {@code dev.gmp:type=GmpExecutor,name=<name>}, the name quoted only where it must be. */
  static ObjectName objectName(String name) {
    String value = needsQuoting(name) ? ObjectName.quote(name) : name;
    try {
      return new ObjectName(DOMAIN + ":type=GmpExecutor,name=" + value);
    } catch (MalformedObjectNameException e) {
      throw new IllegalArgumentException("name '" + name + "' cannot be used in a JMX name", e);
    }
  }

  private static boolean needsQuoting(String v) {
    for (int i = 0; i < v.length(); i++) {
      switch (v.charAt(i)) {
        case ',', '=', ':', '"', '*', '?', '\n' -> {
          return true;
        }
        default -> {}
      }
    }
    return false;
  }

  /** Whether an executor's MBean by this name is registered now (an unnamed build skips it). */
  static boolean isRegistered(String name) {
    return ManagementFactory.getPlatformMBeanServer().isRegistered(objectName(name));
  }

  /**
   * Registers the bean of {@code s} and arranges its unregistration at termination. On failure
   * the scheduler is shut down (it has no thread yet, so it terminates at once) and build()
   * throws.
   *
   * @throws IllegalStateException if the name is taken (another executor with the same name and
   *     jmx(true) that has not terminated), or the MBean server refuses the bean
   */
  static void register(Scheduler s) {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    ObjectName on = objectName(s.config.name());
    try {
      server.registerMBean(new Described(new Jmx(s)), on);
    } catch (InstanceAlreadyExistsException e) {
      Lifecycle.shutdown(s); // build() fails: the new scheduler has no task and no thread yet
      throw new IllegalStateException(
          "an MBean named " + on + " is already registered (another executor named '"
              + s.config.name() + "' built with jmx(true) that has not terminated?): choose"
              + " another name(...)", e);
    } catch (JMException | RuntimeException e) {
      Lifecycle.shutdown(s);
      throw new IllegalStateException("could not register the MBean " + on, e);
    }
    Lifecycle.onTermination(s, () -> unregister(server, on));
  }

  /**
   * What each attribute counts, as GmpStats and GmpExecutorMXBean define it. An MXBean's
   * MBeanInfo is built from the interface by reflection, which leaves javadoc behind, so
   * consoles (JConsole, VisualVM, JMC) would show only "Attribute exposed for management";
   * StandardMBean's getDescription hooks are the standard way to supply text, and work for
   * MXBeans too.
   */
  static final Map<String, String> DESCRIPTIONS = Map.ofEntries(
      Map.entry("Parallelism", "Processors (Go's GOMAXPROCS): how many tasks may run at once."
          + " Writable: setting it also stops the executor following the CPU count."),
      Map.entry("PoolSize", "Worker threads alive: running a task, spinning, idle or in a"
          + " blocking call."),
      Map.entry("RunningTaskCount", "Tasks started and not finished: running on a processor,"
          + " inside GmpExecutor.blocking, or found blocked by sysmon (one thread each)."),
      Map.entry("QueuedTaskCount", "Tasks queued and not started: the global queue plus every"
          + " processor's local queue."),
      Map.entry("StealCount", "Successful steals from another processor's local queue (each"
          + " takes one task or a batch); one dev.gmp.Steal JFR event each."),
      Map.entry("HandoffCount", "Processors passed on from a thread that cannot use them (Go's"
          + " handoffp): by a blocking call as it starts because tasks were waiting, or after a"
          + " sysmon retake; to another thread, or to the idle list when no work waits. One"
          + " dev.gmp.Handoff JFR event each."),
      Map.entry("RetakeCount", "Processors taken from a thread not using them: by sysmon from a"
          + " blocking call, a blocked task or a task that held one a whole time slice while work"
          + " waited, or by a thread back from its own blocking call from another's. A call's own"
          + " hand-off is not one. One dev.gmp.Retake JFR event each."),
      Map.entry("SpinningThreadCount", "Worker threads looking for work to steal."),
      Map.entry("IdleProcessorCount", "Processors on the idle list."),
      Map.entry("CompletedTaskCount", "Tasks that finished, normally or by throwing."),
      Map.entry("SchedulingLatencySamples", "Tasks timed from runnable to started so far (one"
          + " in 64 is, from the first read of a latency attribute on)."),
      Map.entry("SchedulingLatencyP50Nanos", "Median scheduling latency so far (runnable to"
          + " started), in nanoseconds; at most 12.5% above the true value."),
      Map.entry("SchedulingLatencyP99Nanos", "99th percentile scheduling latency so far, in"
          + " nanoseconds."),
      Map.entry("SchedulingLatencyP999Nanos", "99.9th percentile scheduling latency so far, in"
          + " nanoseconds."),
      Map.entry("SchedulingLatencyMaxNanos", "Longest scheduling latency so far, in"
          + " nanoseconds."));

  /** The MXBean with {@link #DESCRIPTIONS}. */
  private static final class Described extends StandardMBean {
    Described(Jmx bean) {
      super(bean, GmpExecutorMXBean.class, true);
    }

    @Override
    protected String getDescription(MBeanInfo info) {
      return "A GmpExecutor: Go's GMP scheduler behind an ExecutorService (dev.gmp)";
    }

    @Override
    protected String getDescription(MBeanAttributeInfo info) {
      return DESCRIPTIONS.getOrDefault(info.getName(), info.getDescription());
    }
  }

  private static void unregister(MBeanServer server, ObjectName on) {
    try {
      server.unregisterMBean(on);
    } catch (InstanceNotFoundException e) {
      // Someone unregistered it already: nothing left to do.
    } catch (JMException e) {
      throw new IllegalStateException("could not unregister the MBean " + on, e);
    }
  }

  @Override
  public int getParallelism() {
    return s.gomaxprocs;
  }

  @Override
  public void setParallelism(int size) {
    Resize.setParallelismChecked(s, size);
  }

  @Override
  public int getPoolSize() {
    // As GmpStats.threads and Micrometer's pool size: an M still waiting for its thread (the
    // starter's queue, a ThreadFactory call under way) is not a thread yet.
    return Counters.snapshot(s).threads();
  }

  @Override
  public int getRunningTaskCount() {
    GmpStats st = Counters.snapshot(s);
    // Parked virtual threads are in waitingTasks but occupy no thread (the JDK's bean counts
    // mounted ones only).
    return st.runningTasks() + st.syscallTasks() + st.waitingTasks() - st.parkedVirtualThreads();
  }

  @Override
  public long getQueuedTaskCount() {
    return Counters.snapshot(s).runnableTasks();
  }

  @Override
  public long getStealCount() {
    return Counters.snapshot(s).steals();
  }

  @Override
  public long getHandoffCount() {
    return s.counters.handoffs.sum();
  }

  @Override
  public long getRetakeCount() {
    return s.counters.retakes.sum();
  }

  @Override
  public int getSpinningThreadCount() {
    return s.idle.nmspinning();
  }

  @Override
  public int getIdleProcessorCount() {
    return s.idle.npidle;
  }

  @Override
  public long getCompletedTaskCount() {
    return Counters.snapshot(s).completedTasks();
  }

  /** The latency so far; a read also starts recording it (Scheduler#recordLatency). */
  private SchedulingLatency latency() {
    s.recordLatency();
    return s.counters.latency.snapshot();
  }

  @Override
  public long getSchedulingLatencySamples() {
    return latency().samples();
  }

  @Override
  public long getSchedulingLatencyP50Nanos() {
    return latency().p50Nanos();
  }

  @Override
  public long getSchedulingLatencyP99Nanos() {
    return latency().p99Nanos();
  }

  @Override
  public long getSchedulingLatencyP999Nanos() {
    return latency().p999Nanos();
  }

  @Override
  public long getSchedulingLatencyMaxNanos() {
    return latency().maxNanos();
  }
}
