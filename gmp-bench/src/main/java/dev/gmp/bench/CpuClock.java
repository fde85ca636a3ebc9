package dev.gmp.bench;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time clocks. {@link #process()} is com.sun.management.OperatingSystemMXBean's process CPU
 * time: everything the JVM burns (GC and JIT threads included), but on Linux it advances in 10 ms
 * ticks, so it is only meaningful summed over many operations. {@link ThreadSnapshot} sums the
 * CPU time of every Java thread (nanosecond clocks): precise, but without the JVM's own
 * non-Java threads; a thread that dies between two snapshots is left out.
 */
final class CpuClock {
  private CpuClock() {}

  static long process() {
    return ((com.sun.management.OperatingSystemMXBean)
            ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  static final class ThreadSnapshot {
    private static final com.sun.management.ThreadMXBean MX =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final Map<Long, Long> cpu = new HashMap<>();

    ThreadSnapshot() {
      long[] ids = MX.getAllThreadIds();
      long[] t = MX.getThreadCpuTime(ids);
      for (int i = 0; i < ids.length; i++) {
        if (t[i] >= 0) {
          cpu.put(ids[i], t[i]);
        }
      }
    }

    /** CPU nanoseconds used by Java threads since this snapshot. */
    long elapsed() {
      long[] ids = MX.getAllThreadIds();
      long[] t = MX.getThreadCpuTime(ids);
      long sum = 0;
      for (int i = 0; i < ids.length; i++) {
        if (t[i] >= 0) {
          sum += t[i] - cpu.getOrDefault(ids[i], 0L);
        }
      }
      return sum;
    }
  }
}
