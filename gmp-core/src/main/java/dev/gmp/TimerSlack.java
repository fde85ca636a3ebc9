package dev.gmp;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;

/**
 * sysmon's timer slack while it retakes Ps from tasks blocked without saying so. Linux may end a
 * timed sleep up to the thread's slack late (50 us by default), and does, to batch wake-ups: on
 * the 2-CPU VM of docs/benchmarks.md a 50 us park slept 121 us (p50), 71 us with a slack of 1 us.
 * In a server whose handlers block unmarked, each request waits for sysmon's round after the last
 * retake (Sysmon#BLOCKED_DELAY_NANOS), so the slack is part of every request's hand-off; with 1
 * us, 1 ms sleeping handlers at parallelism 1 served 1.05-1.17x the requests, reading ones
 * 1.18-1.28x. Outside that window sysmon keeps the default: a slack of 1 us for every round made
 * bursts and timers at parallelism 1 beside a CPU burner slower (docs/benchmarks.md, "sysmon's
 * own timer slack").
 *
 * <p>A thread may set its own slack by writing {@code /proc/TID/timerslack_ns} (Linux 4.6 and
 * later; another thread's needs CAP_SYS_NICE), where prctl would need native code. The task
 * directory {@code /proc/self/task/TID} has no such file; the thread's own {@code /proc/TID}
 * has. Opened on sysmon's thread, written only there and only on a change; elsewhere, or
 * refused, nothing changes. Through java.io, as ThreadFiles#ownTid: NIO's file system would be
 * set up beside a fresh executor's first task. All state is sysmon's own (one thread).
 */
final class TimerSlack {
  /** The slack while blocked tasks are being retaken, in ns. */
  static final long LOW_NANOS = 1_000;

  private static final byte[] LOW =
      Long.toString(LOW_NANOS).getBytes(StandardCharsets.US_ASCII);

  /** Nothing to set: off Linux, or before sysmon's thread has run. */
  static final TimerSlack NONE = new TimerSlack(null, null);

  /** The calling thread's file, or null where it cannot be written. */
  private final RandomAccessFile file;

  /** The slack the thread had, to go back to. */
  private final byte[] normal;

  private boolean low;

  /** A write failed: leave the slack as it is from then on. */
  private boolean refused;

  private TimerSlack(RandomAccessFile file, byte[] normal) {
    this.file = file;
    this.normal = normal;
  }

  /** The calling thread's slack; a no-op one off Linux or where the file cannot be written. */
  static TimerSlack ofCallingThread() {
    try {
      String tid = ThreadFiles.ownTid();
      if (tid == null) {
        return NONE;
      }
      String name = "/proc/".concat(tid).concat("/timerslack_ns");
      RandomAccessFile f = new RandomAccessFile(name, "rw");
      try {
        byte[] b = new byte[32];
        int n = f.read(b);
        String normal = new String(b, 0, Math.max(n, 0), StandardCharsets.US_ASCII).trim();
        Long.parseLong(normal); // a number, or this is not the file we know
        return new TimerSlack(f, normal.getBytes(StandardCharsets.US_ASCII));
      } catch (IOException | RuntimeException e) {
        f.close();
        throw e;
      }
    } catch (IOException | RuntimeException e) {
      return NONE;
    }
  }

  /**
   * Low slack or the thread's own, written only when it changes; false if it could not be (no
   * file, or a write was refused: then it stays as it was, and no later call tries again, so a
   * refusing kernel costs one failed write, not one a round).
   */
  boolean set(boolean wantLow) {
    if (wantLow == low || refused || file == null) {
      return wantLow == low;
    }
    try {
      file.seek(0); // a /proc file takes each write whole, from its start
      file.write(wantLow ? LOW : normal);
      low = wantLow;
      return true;
    } catch (IOException | RuntimeException e) {
      refused = true;
      return false;
    }
  }

  /** sysmon's thread ends: its file closes (the slack dies with the thread). */
  void close() {
    if (file != null) {
      try {
        file.close();
      } catch (IOException e) {
        // nothing to do: the descriptor is released either way
      }
    }
  }
}
