package dev.gmp;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * {@link GmpExecutor#dump()}: Go's {@code GODEBUG=schedtrace=1,scheddetail=1} lines plus the
 * goroutine dump's wait states, as text. One header line, one line per P, one per M, one per
 * task that has started and not finished, and the totals:
 *
 * <pre>
 * SCHED app: state=running gomaxprocs=2 idleprocs=0 threads=3 spinningthreads=0 idlethreads=0 runqueue=1 [2 0]
 * P0: status=running m=M1 runqsize=2 runnext=G18 schedtick=41 syscalltick=0 timers=3
 * P1: status=syscall m=M2 runqsize=0 runnext=- schedtick=7 syscalltick=3 timers=0
 * M1: thread=app-m1 state=RUNNABLE p=P0 curg=G17 spinning=false spare=false idle=false
 * M2: thread=app-m2 state=TIMED_WAITING p=P1 curg=G12 spinning=false spare=false idle=false
 * G17: status=running for=12.0ms m=M1 p=P0 task=com.example.Work
 * G12: status=syscall for=3.1ms m=M2 p=P1 task=java.util.concurrent.FutureTask
 * totals: runnable=3 global=1 local=2 running=1 syscall=1 waiting=0 completed=140 steals=3 ...
 * </pre>
 *
 * <p>Task states: {@code running} (on a P), {@code syscall} (inside {@link GmpExecutor#blocking}),
 * {@code waiting} (sysmon found it blocked without {@code blocking} and took its P), {@code
 * runnable} (back from a blocking call, waiting for a P). {@code for=} is the time in the call for
 * {@code syscall}, and otherwise the task's age as sysmon saw it (accurate to one sysmon round;
 * {@code ?} when sysmon has not seen it yet, so it is younger than one round). A virtual
 * thread's continuation shows as {@code task=VirtualThread#42/name}; once a virtual-thread
 * builder was made, the totals end with {@code vthreads=N parkedvthreads=N}.
 *
 * <p>Nothing is stopped and no lock is taken: every word is read with the ordering its owner
 * publishes it with (P status volatile, P.m and M.curg acquire, counters opaque) or, for the M's
 * own flags (spinning, spare, on the idle list), racily: a dump is a sketch of a moving
 * scheduler, and lines may be from slightly different instants. A task's class is read from the
 * G without calling any of the task's methods, so a dump cannot block on user code.
 */
final class Dump {
  private Dump() {}

  static String of(Scheduler s) {
    long now = System.nanoTime();
    GmpStats st = Counters.snapshot(s);
    P[] all = s.procs.all;
    M[] ms = s.threads.ms();
    Map<M, P> held = new IdentityHashMap<>();
    StringBuilder b = new StringBuilder(256 + 96 * (all.length + 2 * ms.length));

    b.append("SCHED ").append(s.config.name())
        .append(": state=").append(runState(s.runState))
        .append(" gomaxprocs=").append(st.parallelism())
        .append(" idleprocs=").append(st.idleProcessors())
        .append(" threads=").append(st.threads())
        .append(" spinningthreads=").append(st.spinningThreads())
        .append(" idlethreads=").append(st.idleThreads())
        .append(" runqueue=").append(st.globalQueueLength())
        .append(" [");
    for (int i = 0; i < all.length; i++) {
      b.append(i == 0 ? "" : " ").append(all[i].runq.size());
    }
    b.append("]\n");

    for (P pp : all) {
      // Status before m: the releasing M clears m (release) before it idles the P (CAS), so a
      // P read as idle shows no M.
      int pst = pp.status();
      M m = pp.m();
      if (m != null) {
        held.put(m, pp);
      }
      G next = pp.runq.peekRunnext();
      b.append('P').append(pp.id)
          .append(": status=").append(pStatus(pst))
          .append(" m=").append(m == null ? "-" : m.toString())
          .append(" runqsize=").append(pp.runq.ringSize())
          .append(" runnext=").append(next == null ? "-" : "G" + next.id())
          .append(" schedtick=").append(Integer.toUnsignedLong(pp.schedtickOpaque()))
          .append(" syscalltick=").append(pp.syscalltick())
          .append(" timers=").append(pp.timers.live())
          .append(pp.preempt() ? " preempt=true" : "")
          .append('\n');
    }

    for (M m : ms) {
      Thread t = m.runner != null ? m.runner : m.thread;
      P pp = held.get(m);
      G g = m.curg();
      b.append(m)
          .append(": thread=").append(t == null ? "-" : t.getName())
          .append(" state=").append(t == null ? "NEW" : t.getState().toString())
          .append(" p=").append(pp == null ? "-" : "P" + pp.id)
          .append(" curg=").append(g == null ? "-" : "G" + g.id())
          // Racy reads of the M's own flags (display only, see the class comment).
          .append(" spinning=").append(m.spinning)
          .append(" spare=").append(m.spare())
          .append(" idle=").append(m.onIdleList)
          .append('\n');
    }

    for (M m : ms) {
      G g = m.curg();
      if (g == null) {
        continue;
      }
      int gs = g.statusOpaque();
      long since = m.sinceCurrent(); // in Gsyscall its call's start, else sysmon's first sight
      P pp = held.get(m);
      Runnable task = g.task; // racy: null once the task has finished meanwhile
      b.append('G').append(g.id())
          .append(": status=").append(gStatus(gs))
          .append(" for=").append(since == 0 ? "?" : duration(now - since))
          .append(" m=").append(m)
          .append(" p=").append(pp == null ? "-" : "P" + pp.id)
          .append(" task=").append(task == null ? "?" : Carriers.describe(SchedLatency.unwrap(task)))
          .append('\n');
    }

    b.append("totals: runnable=").append(st.runnableTasks())
        .append(" global=").append(st.globalQueueLength())
        .append(" local=").append(st.localQueueLength())
        .append(" running=").append(st.runningTasks())
        .append(" syscall=").append(st.syscallTasks())
        .append(" waiting=").append(st.waitingTasks())
        .append(" completed=").append(st.completedTasks())
        .append(" steals=").append(st.steals())
        .append(" handoffs=").append(st.handoffs())
        .append(" retakes=").append(st.retakes())
        .append(" blockretakes=").append(s.counters.blockRetakes.sum())
        .append(" spare=").append(st.spareThreads())
        .append(" parks=").append(st.parks())
        .append(" threadstartfailures=").append(st.threadStartFailures())
        .append(" latethreads=").append(s.counters.lateThreadStarts.sum())
        .append(" stalespinnerwakes=").append(s.counters.staleSpinnerWakes.sum())
        .append(" latehandofftakes=").append(s.counters.lateHandoffTakes.sum())
        .append(" oversubscribed=").append(s.sysmon.oversubscription.on());
    if (s.carriers != null) { // only once a virtual-thread builder was made
      b.append(" vthreads=").append(st.virtualThreads())
          .append(" parkedvthreads=").append(st.parkedVirtualThreads());
    }
    b.append('\n');
    Throwable lastFailure = s.threads.lastStartFailure; // volatile: the latest one is enough
    if (lastFailure != null) {
      b.append("last thread-start failure: ").append(lastFailure).append('\n');
    }
    return b.toString();
  }

  static String pStatus(int st) {
    return switch (st) {
      case P.Pidle -> "idle";
      case P.Prunning -> "running";
      case P.Psyscall -> "syscall";
      case P.Pdead -> "dead";
      default -> "?" + st;
    };
  }

  static String gStatus(int st) {
    return switch (st) {
      case G.Grunning -> "running";
      case G.Gsyscall -> "syscall";
      case G.Gwaiting -> "waiting";
      case G.Grunnable -> "runnable";
      case G.Gdead -> "dead";
      default -> "idle";
    };
  }

  static String runState(int rs) {
    return switch (rs) {
      case Scheduler.RUNNING -> "running";
      case Scheduler.SHUTDOWN -> "shutdown";
      case Scheduler.STOP -> "stop";
      case Scheduler.TIDYING -> "tidying";
      default -> "terminated";
    };
  }

  /** Like Go's time.Duration: 850us, 12.3ms, 4.2s. */
  static String duration(long nanos) {
    if (nanos < 0) {
      nanos = 0;
    }
    if (nanos < 1_000_000) {
      return (nanos / 1_000) + "us";
    }
    if (nanos < 1_000_000_000) {
      return oneDecimal(nanos / 100_000) + "ms";
    }
    return oneDecimal(nanos / 100_000_000) + "s";
  }

  private static String oneDecimal(long tenths) {
    return (tenths / 10) + "." + (tenths % 10);
  }
}
