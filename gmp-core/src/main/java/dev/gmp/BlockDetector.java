package dev.gmp;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * sysmon's detector of unmarked blocking: an M that holds a P and is inside a task, but is not
 * on a CPU (blocked in {@code sleep}, {@code wait}, a lock, a socket or pipe read) without having
 * said so through {@link GmpExecutor#blocking}. Go sees every syscall; the JVM shows a blocked
 * thread only partly, so the detector combines three facts about the M's thread, all read by
 * sysmon from outside:
 *
 * <ol>
 *   <li>its CPU clock ({@code ThreadMXBean.getThreadCpuTime}, 0.3-0.6 us a read on the reference
 *       VM), sampled each round in which work waits: how much of the last round it spent on a
 *       CPU;
 *   <li>{@code Thread.getState()} (a field read, ~1 ns): BLOCKED, WAITING or TIMED_WAITING mean
 *       the thread itself chose to wait (monitor, park, sleep, Object.wait) and can never be a
 *       CPU-bound task;
 *   <li>for a RUNNABLE thread, which is what Java reports for a thread blocked in a socket or file
 *       read, the kernel's own state of that thread ({@code /proc/self/task/TID/stat} on Linux,
 *       4-6 us to open and read): S or D is asleep in the kernel, R is running or waiting for a
 *       CPU. Only this tells a read from a CPU-bound task the OS has preempted, whose CPU clock
 *       stands still just the same.
 * </ol>
 *
 * <p>The verdict, per M at each round where work waits (Sysmon#retakeFromTask):
 *
 * <ul>
 *   <li>{@link #BLOCKED} if the thread is in a JVM wait state now and spent less than half of the
 *       last round on a CPU; or if it is RUNNABLE, the kernel had it asleep at the last round and
 *       has it asleep now, and it spent less than an eighth of the round between on a CPU (two
 *       samples: one alone could catch a thread stopped for a moment, at a page fault or a GC
 *       safepoint).
 *   <li>{@link #SUSPECT} if it is waiting now but the evidence is not complete (no CPU sample from
 *       the last round, or the first kernel sample): sysmon comes back sooner
 *       (Sysmon#SUSPECT_DELAY_NANOS) for the verdict.
 *   <li>{@link #NO} otherwise.
 * </ul>
 *
 * <p>An M that sysmon hands a P to gets its CPU sampled right then ({@link #baseline}), so the
 * task it picks up can be judged at the very next round: in a server whose handlers block, each
 * retake's new M is the next to block.
 *
 * <p>Hysteresis, so that blocking for microseconds at a time causes no retake: the evidence
 * covers a whole round (~70-170 us) in which the thread was mostly off the CPU, not one instant:
 * a task that waits briefly and often keeps using the CPU and never qualifies; and a task loses
 * its P at most once (Retake#retakeRunning), so a handler that blocks a hundred times costs one
 * retake. A CPU-bound task is never in a JVM wait state, and the kernel reports it R whether it
 * runs or waits for a CPU. The one instant the kernel shows it asleep is at a GC safepoint; but
 * a safepoint stops sysmon too (the CPU clock read is a VM call), so two looks in a row cannot
 * fall inside one: the look after it finds a thread that has run again. What a single sample can
 * mistake: a thread the OS kept off the CPU (preempted, the machine overloaded) for most of a
 * round that is waiting on a briefly held monitor at the instant of the look; it loses its P
 * though its wait is short (measured: tens per second in the JDK HttpServer at load average 5 on
 * 2 cores, its {@code lolock}; none on a quiet machine) and goes on P-less, as any retaken task.
 *
 * <p>All state is sysmon's own (the {@code det*} fields of M, this object): one thread reads and
 * writes it, no ordering needed. What it reads of other threads: {@code M.runner} and {@code
 * M.osStat}, written by the M before it first acquires a P, so visible through the P's {@code m}
 * (P#setM's release, P#m's acquire); the thread's state and clock are the JVM's.
 */
final class BlockDetector {
  static final int NO = 0;
  static final int SUSPECT = 1;
  static final int BLOCKED = 2;

  /** sysmon's round number, bumped at the start of each Sysmon#retake: "the round before" test. */
  private long round;

  /** SUSPECT verdicts in the current round (sysmon comes back sooner while any). */
  int suspects;

  /**
   * Looks at an M since sysmon started. Volatile: tests poll it from their own thread; sysmon is
   * the only writer, so its increment needs no atomic.
   */
  volatile long looks;

  private final ByteBuffer statBuf = ByteBuffer.allocate(1024);

  void beginRound() {
    round++;
    suspects = 0;
  }

  /** The verdict on {@code mp}'s thread, which runs a task while work waits (sysmon only). */
  int look(M mp, long now) {
    Thread t = mp.runner;
    if (t == null) {
      return NO;
    }
    looks++;
    long cpu = Clock.cpuTime(t);
    boolean fresh = mp.detRound == round - 1; // the last sample was the round before
    boolean known = fresh && cpu >= 0 && mp.detCpu >= 0; // so we know its CPU over one round
    long dCpu = cpu - mp.detCpu;
    long dt = now - mp.detWhen;
    boolean wasAsleep = fresh && mp.detAsleep;
    mp.detRound = round;
    mp.detCpu = cpu;
    mp.detWhen = now;
    mp.detAsleep = false;
    Thread.State ts = t.getState();
    if (ts == Thread.State.BLOCKED
        || ts == Thread.State.WAITING
        || ts == Thread.State.TIMED_WAITING) {
      // Waiting now, and off the CPU for over half of the last round (without a CPU clock: waiting
      // at the last round too).
      boolean blocked = cpu < 0 ? wasWaiting(mp) : known && 2 * dCpu < dt;
      mp.detWaitRound = round;
      return verdict(mp, blocked);
    }
    // RUNNABLE: ask the kernel (~5 us), but only about a thread that spent less than half of the
    // last round on a CPU, so that a running task never pays for it.
    if (mp.osStat == null || !known || 2 * dCpu >= dt || !osSleeping(mp.osStat)) {
      return NO; // running; or R to the kernel: preempted and waiting for a CPU, never a retake
    }
    mp.detAsleep = true;
    // Asleep at the last round and now, hardly on a CPU between: one read that lasted a round.
    return verdict(mp, wasAsleep && 8 * dCpu < dt);
  }

  private boolean wasWaiting(M mp) {
    return mp.detWaitRound == round - 1;
  }

  /**
   * Samples an M that sysmon has just handed a P to (parked, or waking): its CPU clock now, so
   * that its first task can be judged at the next round rather than one later. A new M has no
   * thread running yet and is skipped.
   */
  void baseline(M mp, long now) {
    Thread t = mp.runner;
    if (t != null) {
      mp.detCpu = Clock.cpuTime(t);
      mp.detWhen = now;
      mp.detRound = round;
      mp.detAsleep = false; // parked in stopm is not a task's wait
      mp.detWaitRound = -2;
    }
  }

  /**
   * BLOCKED, or SUSPECT. A suspect asks sysmon for a sooner round only if it was not one at the
   * last round too: a task that waits at every look but keeps using the CPU (a contended lock in
   * a busy loop) must not hold sysmon at its fastest cadence.
   */
  private int verdict(M mp, boolean blocked) {
    if (blocked) {
      return BLOCKED;
    }
    if (mp.detSuspectRound != round - 1) {
      suspects++;
    }
    mp.detSuspectRound = round;
    return SUSPECT;
  }

  /** Whether the kernel has the thread asleep (state S or D in its stat line). */
  private boolean osSleeping(Path stat) {
    ByteBuffer b = statBuf;
    b.clear();
    try (FileChannel ch = FileChannel.open(stat)) {
      ch.read(b); // the whole line (~300 bytes) comes in one read
    } catch (IOException | RuntimeException e) {
      return false; // the thread is gone, or no /proc: no verdict
    }
    // "tid (comm) S ...": comm may hold spaces and parentheses, so look after the last ')'.
    for (int i = b.position() - 1; i > 0; i--) {
      if (b.get(i) == ')') {
        if (i + 2 >= b.position()) {
          return false;
        }
        byte st = b.get(i + 2);
        return st == 'S' || st == 'D';
      }
    }
    return false;
  }

  /**
   * The calling thread's kernel stat file, {@code /proc/self/task/TID/stat}, or null off Linux
   * (or without /proc). Called by each M on its own thread when it starts (~8 us: one readlink).
   */
  static Path ownStatFile() {
    try {
      Path self = Files.readSymbolicLink(Path.of("/proc/thread-self")); // "PID/task/TID"
      Path stat = Path.of("/proc/self/task", self.getFileName().toString(), "stat");
      return Files.isReadable(stat) ? stat : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * The threads' CPU clocks, in a holder: the JVM's management classes load (~12 ms once) on
   * sysmon's thread at its first look, never on a worker starting up.
   */
  private static final class Clock {
    private static final ThreadMXBean MX = open();

    private static ThreadMXBean open() {
      try {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        return mx.isThreadCpuTimeSupported() ? mx : null;
      } catch (RuntimeException | LinkageError e) {
        return null; // no CPU clock to be had: the wait-state rule alone
      }
    }

    /** The thread's CPU time in ns, or -1 if unknown (no clock, disabled, or thread gone). */
    static long cpuTime(Thread t) {
      ThreadMXBean mx = MX;
      return mx == null ? -1 : mx.getThreadCpuTime(t.threadId());
    }
  }
}
