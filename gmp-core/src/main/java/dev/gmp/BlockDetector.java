package dev.gmp;

import java.io.File;
import java.lang.ref.WeakReference;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;

/**
 * sysmon's detector of unmarked blocking: an M that holds a P and is inside a task, but is not
 * on a CPU (blocked in {@code sleep}, {@code wait}, a lock, a socket or pipe read) without having
 * said so through {@link GmpExecutor#blocking}. Go sees every syscall; the JVM shows a blocked
 * thread only partly, so the detector combines three facts about the M's thread, all read by
 * sysmon from outside:
 *
 * <ol>
 *   <li>its CPU clock ({@link CpuClock}: the kernel's count on Linux, a read cheap enough for
 *       every round), sampled each round in which work waits: how much of the last round it
 *       spent on a CPU. Read from the first look that finds a task waiting ({@link #needsClock}):
 *       until then every task is taken as running;
 *   <li>{@code Thread.getState()} (a field read): WAITING or TIMED_WAITING mean the thread
 *       itself chose to wait (park, sleep, Object.wait, a j.u.c lock) and can never be a
 *       CPU-bound task;
 *   <li>for a RUNNABLE thread, which is what Java reports for a thread blocked in a socket or file
 *       read, the kernel's own view of that thread ({@code /proc/self/task/TID/syscall} on
 *       Linux, a read of a file kept open, {@link ThreadFiles}: the dearest of the three; each
 *       probe's cost is in docs/design.md, section 3.1): "running" is on a CPU or waiting for
 *       one, anything else is asleep in the kernel, in the call it names. Only this tells a read
 *       from a CPU-bound task the OS has preempted, whose CPU clock stands still just the same.
 * </ol>
 *
 * <p>The verdict, per M at each round where work waits (SysmonRetake#retakeFromTask), always from two
 * samples a round apart (Go's "a syscall still there one sysmon tick later"):
 *
 * <ul>
 *   <li>WAITING or TIMED_WAITING (parked, sleeping, in Object.wait, a j.u.c lock): {@link
 *       #BLOCKED} if it spent less than half of the last round on a CPU and, at the look before,
 *       was already waiting or was parked idle as sysmon handed it its P ({@link #baseline}: in a
 *       server whose handlers block, each retake's new M is the next to block, and is judged at
 *       the very next round);
 *   <li>RUNNABLE (Java's state for a socket or pipe read): asleep to the kernel counts as blocked
 *       unless it spent over half of the last round on a CPU (so a computing task is asked at its
 *       first look at most); {@link #BLOCKED} if the kernel had it asleep at the look before
 *       too, it spent less than an eighth of the time between on a CPU (one kernel sample alone
 *       catches threads in a moment's sleep: a class load from the jar, during a server's
 *       warm-up), and the call it sleeps in is not a futex. So a read is judged at the second
 *       look, as a wait is after a look that found it waiting. A futex is a wait inside the JVM
 *       (a VM lock, the safepoint barrier, another thread's class initialisation), where a
 *       spinning task sleeps too when the machine is busy: it counts only once it has lasted a
 *       whole time slice, across looks that each come after two quiet rounds (see the overview
 *       below);
 *   <li>{@link #SUSPECT} if it waits now, or sleeps in a call of its own, but the earlier sample
 *       is missing: sysmon comes back sooner (Sysmon#SUSPECT_DELAY_NANOS, Go's 20 us tick) for
 *       the second look;
 *   <li>{@link #NO} otherwise, and always for BLOCKED on a monitor ({@code synchronized}): that is
 *       left to the time-slice rule. A contended monitor is nearly always a convoy behind a
 *       holder that runs (or was preempted: the CPU is what is short), and handing the waiters'
 *       Ps to new threads multiplies runnable threads exactly then (the JDK HttpServer's {@code
 *       lolock} served fewer requests with monitor waits retaken: docs/design.md, section 3.1).
 *       A holder that blocks inside the monitor is itself caught here, in its sleep, wait or read.
 * </ul>
 *
 * <p>Hysteresis, so that blocking for microseconds at a time causes no retake: the evidence spans
 * a round in which the thread was mostly off the CPU, with a wait at both ends; a task that waits
 * briefly and often keeps using the CPU and never qualifies. A task loses its P at most once
 * (Retake#retakeRunning), so a handler that blocks a hundred times costs one retake. One sample
 * would mislead: a thread the OS kept off the CPU for most of a round (the machine overloaded)
 * that waits at the instant of the look for something released a moment later would lose its P
 * for a wait of microseconds. A CPU-bound task is never in a JVM wait state, and the kernel
 * reports it R whether it runs or waits for a CPU (a kernel that said R is not asked again until
 * the thread has run: a preempted task on a busy machine costs one /proc read, not one a round).
 * It is asleep, off its CPU, only inside the JVM: at a safepoint, or on a VM lock whose holder
 * the OS preempted. Beside a CPU burner that sleep lasts hundreds of microseconds, long enough
 * for two looks (docs/design.md, section 3.1), so the kernel is asked which call the thread sleeps
 * in: a futex, the JVM's own, is held to a whole slice at under an eighth of a CPU, as long as a
 * task's wait on a monitor (four slices while the CPUs are oversubscribed, when a VM lock's
 * holder may wait that long for a CPU: Oversubscription#vmWaitNanos); any other call (read, poll,
 * accept, nanosleep) is the task's.
 *
 * <p>All state is sysmon's own (each M's {@link Sample}, this object): one thread reads and
 * writes it, no ordering needed. What it reads of other threads: {@code M.runner} and {@code
 * M.osStat}, written by the M before it first acquires a P, so visible through the P's {@code m}
 * (P#setM's release, P#m's acquire); the thread's state and clock are the JVM's.
 */
final class BlockDetector {
  static final int NO = 0;
  static final int SUSPECT = 1;
  static final int BLOCKED = 2;

  /**
   * One M's last sample, sysmon's own: CPU clock, when, which round; whether the thread was
   * blocked, quiet (under half the round on a CPU), asleep to the kernel after two quiet rounds
   * (settled), just handed a P (parked idle), reported R by the kernel in this quiet stretch; the
   * last round it was a suspect.
   */
  static final class Sample {
    long cpu = -1;
    long when;
    long round = -2;
    boolean blocked;
    boolean quiet;
    boolean settled;
    boolean idle;
    boolean osRunnable;
    long suspectRound = -2;
    /** Asleep inside the JVM (a futex): since when, at what CPU clock. */
    final OffSpan inVm = new OffSpan();
  }

  /**
   * A stretch off the CPU that must last a whole slice before it counts: the rule for waits that
   * a thread computing on a busy machine also shows (a futex inside the JVM; a monitor or lock
   * past the slice, SysmonRetake#offCpuSince). sysmon's own, like Sample.
   */
  static final class OffSpan {
    private boolean armed;
    private long cpu;
    private long when;
    private long collections;

    void reset() {
      armed = false;
    }

    /**
     * Whether the thread, whose CPU clock reads {@code cpu} at {@code now}, has been off the CPU
     * for a slice: since the first sample of this span, at least {@code slice} ago, it spent under
     * an eighth of the time on a CPU (the kernel rule's bound; half a CPU, a task that computes
     * beside a CPU burner, stays far above it). A first sample, one after the thread ran, or one
     * after a garbage collection ({@code collections}, {@link #collectionsSeen}) starts the span
     * here: a thread stopped for collections waits in a futex too, and under a full heap an
     * allocating task spends most of its time so, which counted as a blocked task and handed its
     * P on, a computing task beside it once the collections ended (a user's check: 2 tasks at
     * p=1 in half the runs of a 24 MB heap).
     */
    boolean lasted(long cpu, long now, long slice, long collections) {
      long span = now - when;
      if (armed && collections == this.collections && 8 * (cpu - this.cpu) < span) {
        return span >= slice;
      }
      armed = true;
      this.cpu = cpu;
      when = now;
      this.collections = collections;
      return false;
    }
  }

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

  /** The Ms' CPU clocks (sysmon's, shared with its slice rule). */
  private final CpuClock clock;

  /** The Ms' syscall (or stat) files, kept open (sysmon's, shared with the clock). */
  private final ThreadFiles files;

  BlockDetector(CpuClock clock, ThreadFiles files) {
    this.clock = clock;
    this.files = files;
  }

  /**
   * Garbage collections sysmon has noticed: a round that finds {@link #sentinel}'s referent gone
   * counts one (or more: a count of rounds with any, all OffSpan needs) and plants another. A
   * weak reference rather than the collectors' MXBeans: nothing to load, and a young object's is
   * cleared by the next collection of any collector (a concurrent one's too, which stops no
   * thread: a span then starts again for nothing, a wait inside the JVM counting a slice later).
   */
  private long collectionsSeen;

  private WeakReference<Object> sentinel = new WeakReference<>(new Object());

  void beginRound() {
    round++;
    suspects = 0;
    if (sentinel.refersTo(null)) {
      collectionsSeen++;
      sentinel = new WeakReference<>(new Object());
    }
  }

  /**
   * The verdict on {@code mp}'s thread, which runs a task while work waits (sysmon only); {@code
   * slice}: how long a wait inside the JVM must last to count (the time slice, or more while the
   * CPUs are oversubscribed: Oversubscription#vmWaitNanos).
   */
  int look(M mp, long now, long slice) {
    Thread t = mp.runner;
    if (t == null || mp.startingThread) {
      return NO; // not started, or inside gmp's own thread start (Idle#launch)
    }
    looks++;
    boolean fresh = mp.det.round == round - 1; // the last sample was the round before
    Thread.State ts = t.getState();
    if (!clock.engaged() && !needsClock(mp, ts, fresh, now, slice)) {
      mp.det.round = round; // running (or not started): nothing to judge, no clock to read yet
      mp.det.cpu = -1;
      mp.det.blocked = false;
      return NO;
    }
    long cpu = clock.engage(mp);
    boolean known = fresh && cpu >= 0 && mp.det.cpu >= 0; // so we know its CPU over one round
    long dCpu = cpu - mp.det.cpu;
    long dt = now - mp.det.when;
    boolean wasBlocked = fresh && mp.det.blocked;
    boolean wasIdle = fresh && mp.det.idle; // the last sample was taken as sysmon handed it a P
    mp.det.idle = false;
    mp.det.round = round;
    mp.det.cpu = cpu;
    mp.det.when = now;
    // Waiting for the scheduler's own lock (a wakep or submit inside the task, held for a few
    // steps by whoever has it) is not the task blocking: on a loaded machine two such looks in a
    // row would retake a spinning task's P (GmpExecutorMetricsTest.stealsAreCounted).
    boolean waits = (ts == Thread.State.WAITING || ts == Thread.State.TIMED_WAITING)
        && !mp.sched.lock.hasQueuedThread(t);
    // RUNNABLE: ask the kernel (a /proc read, the dearest probe), but not about a thread that
    // spent over half of the last round on a CPU: a running task pays for it at its first look
    // at most. Not without a clock at all: the verdict needs the CPU between two looks.
    boolean quiet = known && 2 * dCpu < dt;
    boolean wasQuiet = fresh && mp.det.quiet;
    mp.det.quiet = quiet;
    if (dCpu != 0) {
      mp.det.osRunnable = false; // it ran since the kernel said R: ask again when quiet
    }
    // BLOCKED on a monitor is left to the time-slice rule (see the overview). One kernel read
    // says both whether it sleeps and in which call (osState).
    int call = ts == Thread.State.RUNNABLE && cpu >= 0 && (quiet || !known) ? osAsleep(mp) : ON_CPU;
    boolean asleep = call != ON_CPU;
    boolean blocked = waits || asleep;
    mp.det.blocked = blocked;
    // A wait inside the JVM (a futex) must last a slice, counted only across looks that each
    // come after two quiet rounds (callVerdict): any other look ends its span.
    boolean settled = asleep && quiet && wasQuiet;
    boolean wasSettled = fresh && mp.det.settled;
    mp.det.settled = settled;
    if (!settled) {
      mp.det.inVm.reset();
    }
    if (!blocked) {
      return NO;
    }
    // Parked, sleeping or in Object.wait now, off the CPU for over half of the round, and off it
    // by its own doing at the last look too (blocked, or parked idle when handed its P): one
    // wait, not a thread the OS kept off the CPU that waits at this instant by chance.
    if (waits && quiet && (wasBlocked || wasIdle)) {
      return waitsForARunningTask(mp.sched, t) ? NO : BLOCKED;
    }
    // RUNNABLE and asleep to the kernel at this look and the last, hardly on a CPU between: a
    // read, unless the call it sleeps in is a futex (one kernel sample alone catches threads in
    // a moment's sleep: a class load).
    if (!waits && wasBlocked && 8 * dCpu < dt) {
      return callVerdict(mp, call, cpu, now, slice, settled && wasSettled);
    }
    // The first kernel sample of a sleep: a suspect (sysmon comes back soon) only in a call of
    // the task's own. A futex must last a slice anyway, and beside a CPU burner computing tasks
    // sleep in one at many looks: suspects there kept sysmon at its fastest cadence.
    if (!waits && call != CALL) {
      return NO;
    }
    // Otherwise this is the first sample of a wait (or the CPU sample before it is missing): a
    // suspect. Without a CPU clock at all, waiting at two looks in a row is the whole rule.
    return verdict(mp, wasBlocked && cpu < 0);
  }

  /**
   * Whether a look must start reading the CPU clock, before which it finds every task running:
   * the thread waits (WAITING or TIMED_WAITING, but not for the scheduler's own lock), or it is
   * RUNNABLE and asleep to the kernel at two looks in a row, in a call of its own (a read) or
   * inside the JVM (a futex) for a whole slice: the cases the verdicts below need the clock for.
   * Not BLOCKED on a monitor: the verdict is NO whatever the clock says (the slice rule's, which
   * reads the clock itself once such a wait lasts a slice). Two Ms loading the same class meet on
   * its class-loading monitor, so a program's first operations often show BLOCKED tasks while
   * work waits: when the clock was always the JVM's, loading it there slowed many fresh JVMs.
   * Until then the detector costs a state read per look, plus a /proc read for a task that spans
   * two looks, and a program whose tasks only compute never reads a clock (docs/benchmarks.md,
   * "The detector's clock, loaded when needed"). A compiling or class-loading task sleeps in
   * futexes for moments at a time, hence the slice.
   */
  private boolean needsClock(M mp, Thread.State ts, boolean fresh, long now, long slice) {
    if (ts != Thread.State.RUNNABLE) {
      return (ts == Thread.State.WAITING || ts == Thread.State.TIMED_WAITING)
          && !mp.sched.lock.hasQueuedThread(mp.runner);
    }
    int call = fresh ? osState(mp) : ON_CPU;
    if (call == ON_CPU) {
      mp.det.inVm.reset();
      return false;
    }
    return call == CALL
        || mp.det.inVm.lasted(0, now, slice, collectionsSeen); // no clock yet: time alone
  }

  /**
   * Samples an M that sysmon has just handed a P to (parked, or waking): its CPU clock now, so
   * that the task it picks up can be judged at the next round rather than one later. A new M has
   * no thread running yet and is skipped.
   */
  void baseline(M mp, long now) {
    Thread t = mp.runner;
    if (t != null) {
      mp.det.cpu = clock.read(mp);
      mp.det.when = now;
      mp.det.round = round;
      mp.det.blocked = false; // parked in stopm is not a task's wait
      mp.det.quiet = false;
      mp.det.settled = false;
      mp.det.osRunnable = false;
      mp.det.inVm.reset();
      mp.det.idle = true;
    }
  }

  /**
   * A RUNNABLE thread asleep to the kernel at two looks: which call it sleeps in. A read, poll,
   * accept or any call but a futex is the task's own: {@link #BLOCKED}. A futex is a wait inside
   * the JVM (a VM lock, a safepoint, another thread's class initialisation; a native library's
   * lock too), where a spinning task beside a CPU burner sleeps for hundreds of microseconds while
   * the holder waits for a CPU (docs/design.md, section 3.1): it counts only once it has lasted a
   * whole slice at under an eighth of a CPU, like a monitor wait (the time-slice rule), so that a
   * task that waits there for long (a class initialiser that blocks) still frees its P. The span
   * counts only looks that each come after two quiet rounds ({@code settled}: this look and the
   * last): the kernel is asked from the first quiet look for a read's sake, and spans that took
   * in those looks too retook computing tasks' Ps beside a CPU burner several times as often
   * (docs/benchmarks.md, "Handlers that block in a read").
   */
  private int callVerdict(M mp, int call, long cpu, long now, long slice, boolean settled) {
    if (call == CALL) {
      return BLOCKED;
    }
    return settled && mp.det.inVm.lasted(cpu, now, slice, collectionsSeen) ? BLOCKED : NO;
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
    if (mp.det.suspectRound != round - 1) {
      suspects++;
    }
    mp.det.suspectRound = round;
    return SUSPECT;
  }

  /**
   * The kernel's view, asked again only once the thread has run: a thread it reports R
   * (preempted, waiting for a CPU: a busy machine) costs no more /proc reads while its CPU clock
   * stands still. A thread asleep in a read accrues no CPU time at all, so it is asked again as
   * soon as it ran for a moment (and then entered its read). Returns {@link #osState}'s answer.
   */
  private int osAsleep(M mp) {
    if (mp.det.osRunnable) {
      return ON_CPU;
    }
    int call = osState(mp);
    if (call == ON_CPU) {
      mp.det.osRunnable = true;
    }
    return call;
  }

  /** What {@link #osState} found: asleep in a call of the task's own, in the JVM, or running. */
  static final int CALL = 0;

  static final int IN_VM = 1;
  static final int ON_CPU = 2;

  /**
   * Whether this kernel has the {@code syscall} files (built with the arch's trace hooks, as every
   * mainstream one is): checked once, as the first detector is built, like CpuClock#KERNEL.
   * Without them a kernel sample reads {@code stat}, and any sleep counts as a call of the task's.
   */
  private static final boolean SYSCALL_FILES = new File("/proc/thread-self/syscall").canRead();

  /**
   * The kernel's view of the thread, in one read of {@code /proc/self/task/TID/syscall}:
   * "running" (the kernel's R: on a CPU or waiting for one), or, asleep (S or D), the call's
   * number and arguments; the kernel makes sure the thread is off its CPU before it answers. So
   * one read says both whether the thread sleeps and where ({@code stat} says only the first).
   * Without a syscall file: the stat line's state word, and any sleep is {@link #CALL}. Gone, or
   * no /proc: {@link #ON_CPU}, no verdict.
   */
  private int osState(M mp) {
    if (mp.osStat == null) {
      return ON_CPU;
    }
    if (SYSCALL_FILES) {
      // "202 0x7f... 0x80 ...\n" or "running\n". Unreadable: gone, or an interrupt closed it.
      int n = files.read(mp, ThreadFiles.SYSCALL, statBuf);
      return n < 0 ? ON_CPU : classifyCall(statBuf, n);
    }
    int n = files.read(mp, ThreadFiles.STAT, statBuf); // the whole line (~300 bytes) in one read
    return n >= 0 && statAsleep(statBuf, n) ? CALL : ON_CPU;
  }

  /** {@link #osState}'s parse of a syscall line in {@code b[0, len)}. */
  static int classifyCall(ByteBuffer b, int len) {
    if (len == 0) {
      return ON_CPU; // nothing to go on: no verdict
    }
    byte c = b.get(0);
    if (c == 'r') {
      return ON_CPU;
    }
    if (c == '-') {
      return IN_VM; // -1: asleep in a fault or exception, not in a call the task made
    }
    long nr = leadingNumber(b, len);
    for (int f : FUTEX_CALLS) {
      if (nr == f) {
        return IN_VM;
      }
    }
    return CALL;
  }

  /**
   * This architecture's futex calls (futex, futex_time64 on 32-bit, futex_waitv, futex_wait):
   * what the JVM's locks, parks, safepoint barrier and class-initialisation waits sleep in.
   * Unknown architecture: none, and every call counts as the task's.
   */
  private static final int[] FUTEX_CALLS = futexCalls(System.getProperty("os.arch", ""));

  static int[] futexCalls(String arch) {
    return switch (arch) {
      case "amd64", "x86_64" -> new int[] {202, 449, 455};
      case "aarch64", "riscv64", "loongarch64" -> new int[] {98, 449, 455};
      case "ppc64", "ppc64le" -> new int[] {221, 449, 455};
      case "s390x" -> new int[] {238, 449, 455};
      case "x86", "i386", "i686", "arm" -> new int[] {240, 422, 449, 455};
      default -> new int[0];
    };
  }

  /**
   * The decimal number a /proc line in {@code b[0, len)} starts with (a syscall's number, a
   * schedstat's run time), or -1 if it starts with none.
   */
  static long leadingNumber(ByteBuffer b, int len) {
    long n = 0;
    int i = 0;
    for (; i < len; i++) {
      byte c = b.get(i);
      if (c < '0' || c > '9') {
        break;
      }
      n = n * 10 + (c - '0');
    }
    return i == 0 ? -1 : n;
  }

  /** Whether a stat line in {@code b[0, n)} has the thread asleep (state S or D). */
  static boolean statAsleep(ByteBuffer b, int n) {
    // "tid (comm) S ...": comm may hold spaces and parentheses, so look after the last ')'.
    for (int i = n - 1; i > 0; i--) {
      if (b.get(i) == ')') {
        if (i + 2 >= n) {
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
   * (or without /proc). Called by each M on its own thread when it starts (one realpath, one
   * access): through java.io, whose classes every JVM has initialised at startup, since NIO's
   * file system costs a fresh JVM ~2 ms to set up, on the way to the executor's first task.
   */
  static String ownStatFile() {
    String tid = ThreadFiles.ownTid();
    if (tid == null) {
      return null;
    }
    File stat = new File("/proc/self/task/".concat(tid).concat("/stat"));
    return stat.canRead() ? stat.getPath() : null;
  }

  /**
   * Whether {@code t} waits for a monitor or a j.u.c lock held by another task of {@code s} that
   * runs, or waits for a CPU, on one of its Ps: contention, which a hand-off cannot shorten (the
   * holder has its P and goes on when it gets a CPU), only add a thread to. On a busy machine a
   * holder preempted for milliseconds keeps its waiters off the CPU for as long, and both the
   * detector and the slice rule took such a waiter's P beside a CPU burner (1 run in 12 each:
   * BlockingTest.cpuBoundTasksThatContendForALockKeepTheirProcessors). A holder that waits
   * itself loses its own P; one outside the executor may hold the lock for any time: no.
   * A park on anything but a lock (sleep, latch, future) is never contention: no VM call.
   */
  static boolean waitsForARunningTask(Scheduler s, Thread t) {
    boolean monitor = t.getState() == Thread.State.BLOCKED;
    if (!monitor && !ownable(java.util.concurrent.locks.LockSupport.getBlocker(t))) {
      return false;
    }
    long owner = lockOwner(t);
    if (owner < 0) {
      // A monitor nobody holds was just released: the wait is ending, nothing to hand on. A
      // j.u.c lock without an owner may be held in shared mode (readers): not known, so no.
      return monitor && CpuClock.management() != null;
    }
    for (P pp : s.procs.all) {
      M mp = pp.m();
      Thread ot = mp == null ? null : mp.runner;
      if (ot != null && ot.threadId() == owner && P.state(pp.statusRaw()) == P.Prunning) {
        return ot.getState() == Thread.State.RUNNABLE; // a waiting holder loses its own P
      }
    }
    return false; // held by a thread without one of our Ps: a hand-off lets queued work run
  }

  /**
   * Whether a park's blocker is a synchronizer that can have an owner: an {@code
   * AbstractOwnableSynchronizer} (ReentrantLock's, ReentrantReadWriteLock's, a library's own),
   * but not CountDownLatch's or Semaphore's, which are built on one and never set an owner. A
   * task awaiting a latch is among the commonest waits, and asking the JVM for an owner loads
   * the management classes on sysmon's thread, which held up the hand-off (docs/benchmarks.md,
   * "The detector's clock without the JVM's management classes").
   */
  static boolean ownable(Object blocker) {
    if (!(blocker instanceof java.util.concurrent.locks.AbstractOwnableSynchronizer)) {
      return false;
    }
    Class<?> outer = blocker.getClass().getEnclosingClass(); // their Sync classes are nested
    return outer != java.util.concurrent.CountDownLatch.class
        && outer != java.util.concurrent.Semaphore.class;
  }

  /**
   * The id of the thread that holds the monitor or j.u.c lock {@code t} waits for, or -1 (none,
   * not a lock, or no management support). {@code getThreadInfo} without a stack trace stops no
   * thread (no safepoint); a ThreadInfo per call, only for a wait on a lock about to be retaken.
   */
  private static long lockOwner(Thread t) {
    ThreadMXBean mx = CpuClock.management();
    if (mx == null) {
      return -1;
    }
    try {
      java.lang.management.ThreadInfo ti = mx.getThreadInfo(t.threadId());
      return ti == null ? -1 : ti.getLockOwnerId();
    } catch (RuntimeException e) {
      return -1;
    }
  }
}
