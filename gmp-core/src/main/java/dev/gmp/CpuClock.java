package dev.gmp;

import java.io.FileInputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;

/**
 * sysmon's reading of an M's CPU clock: how many nanoseconds its thread has spent on a CPU, the
 * block detector's first fact (BlockDetector) and the slice rule's evidence (SysmonRetake).
 *
 * <p>On Linux the kernel's own count, the first field of {@code /proc/self/task/TID/schedstat}
 * (the scheduler's {@code sum_exec_runtime}, which the JVM's clock reads too), with one
 * positioned read of a file kept open per M: about as cheap per read as {@code
 * ThreadMXBean.getThreadCpuTime}, and it loads nothing. The JVM's clock, the fallback elsewhere,
 * has management classes that are slow to load, and a program's first operations are where its
 * tasks first wait: loaded on sysmon's thread, it held up the first hand-off of a blocked task
 * by as long (docs/benchmarks.md, "The detector's clock without the JVM's management classes").
 * The kernel adds a running thread's time at ticks and switches, so its count may trail a thread
 * that is on a CPU by up to a tick; a thread asleep, which every verdict looks for at both ends
 * of its evidence, reads exact. A lag can only move a running stretch into the next round's
 * difference, and no verdict rests on the clock alone: each also needs the thread waiting, or
 * asleep to the kernel, at the look, so a P is still handed off only for a task off its CPU.
 *
 * <p>Not read at all until a look needs it ({@link #engaged}): a program whose tasks only
 * compute never opens a file for it. All state is sysmon's own (one thread); the file stays
 * open while its M is looked at ({@link ThreadFiles}, shared with the detector).
 */
final class CpuClock {
  /** Whether this kernel keeps per-thread counts (checked once, as the first executor is built). */
  static final boolean KERNEL = kernelCounts();

  /** sysmon's open /proc files, shared with the detector. */
  private final ThreadFiles files;

  private final ByteBuffer buf = ByteBuffer.allocate(64);

  /** Whether a look has needed the clock yet (BlockDetector#needsClock): until then, -1. */
  private boolean engaged;

  CpuClock(ThreadFiles files) {
    this.files = files;
  }

  boolean engaged() {
    return engaged;
  }

  /** {@code mp}'s CPU time in ns; -1 until engaged, or if unknown. */
  long read(M mp) {
    return engaged ? time(mp) : -1;
  }

  /** {@link #read}, engaging the clock first: a look that needs it. */
  long engage(M mp) {
    engaged = true;
    return time(mp);
  }

  private long time(M mp) {
    Thread t = mp.runner;
    if (t == null) {
      return -1;
    }
    if (!KERNEL || mp.osStat == null) {
      return Management.cpuTime(t);
    }
    int n = files.read(mp, ThreadFiles.SCHEDSTAT, buf); // "123456789 4567 89\n": one read
    return n < 0 ? -1 : BlockDetector.leadingNumber(buf, n);
  }

  /**
   * Whether {@code /proc/thread-self/schedstat} can be read and counts: a kernel built without
   * scheduler statistics writes "0 0 0" for every thread, and the calling thread has run.
   */
  private static boolean kernelCounts() {
    try (FileInputStream in = new FileInputStream("/proc/thread-self/schedstat")) {
      byte[] b = new byte[64];
      int n = in.read(b);
      return n > 0 && BlockDetector.leadingNumber(ByteBuffer.wrap(b), n) > 0;
    } catch (IOException | RuntimeException e) {
      return false; // not Linux, no /proc, or no such file: the JVM's clock
    }
  }

  /** The JVM's ThreadMXBean, loading the management classes if no one has yet; null if none. */
  static ThreadMXBean management() {
    return Management.MX;
  }

  /**
   * Whether the JVM's management classes have been loaded for gmp (by any executor). Plain: set
   * once, in the holder's initialiser; read by tests, in the JVM that loaded them.
   */
  private static boolean managementLoaded;

  static boolean managementLoaded() {
    return managementLoaded;
  }

  /**
   * The JVM's thread clock, in a holder: its classes are slow to load (docs/benchmarks.md,
   * "Where the rest of the warm-up goes"), so they load on sysmon's thread at the first read that
   * needs them, never on a worker starting up. Also what BlockDetector asks who holds a lock.
   */
  private static final class Management {
    private static final ThreadMXBean MX = open();

    static {
      managementLoaded = true;
    }

    private static ThreadMXBean open() {
      try {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        return mx.isThreadCpuTimeSupported() ? mx : null;
      } catch (RuntimeException | LinkageError e) {
        return null; // no CPU clock to be had: the wait-state rules alone
      }
    }

    /** The thread's CPU time in ns, or -1 if unknown (no clock, disabled, or thread gone). */
    static long cpuTime(Thread t) {
      ThreadMXBean mx = MX;
      return mx == null ? -1 : mx.getThreadCpuTime(t.threadId());
    }
  }
}
