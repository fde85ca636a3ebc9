package dev.gmp;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * sysmon's open {@code /proc} files of the Ms' threads (Linux): {@code schedstat} for the CPU
 * clock ({@link CpuClock}), {@code syscall} for the kernel's view of a RUNNABLE thread, running
 * or asleep in a call ({@link BlockDetector}), and {@code stat} in its stead on a kernel without
 * syscall files. Each is opened at its first read and then read in place: a positioned read at
 * offset 0 makes the kernel write the line afresh, at a fraction of the cost of opening, reading
 * and closing the file each time (docs/design.md, section 3.1). A task blocked in a socket read
 * costs two {@code syscall} reads and two clock reads before its P is handed off, so a server
 * whose handlers read sockets unmarked pays them once per request.
 *
 * <p>Cached by M id, {@link #SLOTS} slots of up to three files each (at most 192 descriptors): an
 * M looked at again reads its open files; a slot's next M closes the last one's. An exited
 * thread's files stay open until then, or until a read of one fails and closes it. All state is
 * sysmon's own (one thread); the files close when sysmon's thread ends ({@link #close}). An
 * interrupt that reaches sysmon during a read closes that file (FileChannel's contract): it is
 * reopened at the next read.
 */
final class ThreadFiles {
  /**
   * The calling thread's kernel id, as {@code /proc} names it, or null off Linux (or without
   * /proc): one realpath of {@code /proc/thread-self}, through java.io (an M's start and sysmon's
   * must not set up NIO's file system beside a fresh executor's first task).
   */
  static String ownTid() {
    try {
      String self = new File("/proc/thread-self").getCanonicalPath(); // "/proc/PID/task/TID"
      int slash = self.lastIndexOf('/');
      return self.startsWith("/proc/") && slash >= 0 ? self.substring(slash + 1) : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** The files, by the index {@link #read} takes. */
  static final int SCHEDSTAT = 0;

  static final int STAT = 1;
  static final int SYSCALL = 2;

  private static final String[] NAMES = {"schedstat", "stat", "syscall"};

  private static final int KINDS = NAMES.length;

  /** Slots, one per M id modulo this (a power of two). */
  static final int SLOTS = 64;

  /** Per slot: the M whose files are open there, and its files. */
  private final M[] owners = new M[SLOTS];

  private final FileChannel[] files = new FileChannel[SLOTS * KINDS];

  /**
   * Reads file {@code kind} of {@code mp}'s thread into {@code b}, from its start (cleared
   * first; one read: every line sysmon reads fits in the buffers it passes). Returns the bytes
   * read, or -1 if the file cannot be read (no {@code /proc}, the thread is gone).
   */
  int read(M mp, int kind, ByteBuffer b) {
    if (mp.osStat == null) {
      return -1;
    }
    int slot = (int) mp.id & (SLOTS - 1);
    if (owners[slot] != mp) {
      drop(slot);
      owners[slot] = mp;
    }
    int i = slot * KINDS + kind;
    FileChannel ch = files[i];
    if (ch == null) {
      try {
        // M.osStat is "/proc/self/task/TID/stat"; the others are its siblings. A Path only
        // here, on sysmon's thread: an M's start never sets up NIO's file system.
        ch = FileChannel.open(Path.of(mp.osStat).resolveSibling(NAMES[kind]));
      } catch (IOException | RuntimeException e) {
        return -1;
      }
      files[i] = ch;
    }
    b.clear();
    try {
      ch.read(b, 0); // at 0: the kernel writes the line afresh
    } catch (IOException | RuntimeException e) {
      close(i); // the thread is gone, or an interrupt closed the file: reopened next time
      return -1;
    }
    return b.position();
  }

  private void drop(int slot) {
    for (int k = 0; k < KINDS; k++) {
      close(slot * KINDS + k);
    }
    owners[slot] = null;
  }

  private void close(int i) {
    FileChannel ch = files[i];
    files[i] = null;
    if (ch != null) {
      try {
        ch.close();
      } catch (IOException e) {
        // a /proc file: nothing to flush, nothing to report
      }
    }
  }

  /** Closes every open file (sysmon's thread, as it ends: a later sysmon reopens them). */
  void close() {
    for (int s = 0; s < SLOTS; s++) {
      drop(s);
    }
  }
}
