package dev.gmp;

/**
 * An immutable snapshot of a {@link GmpExecutor}'s scheduler. Each field is read without stopping
 * anything, so fields may be from slightly different instants; cheap enough to poll.
 *
 * @param parallelism Ps (GOMAXPROCS)
 * @param threads worker threads (Ms) started and not exited (an M whose thread has not checked in
 *     yet counts; one the ThreadFactory is still being asked for does not)
 * @param idleThreads Ms parked on the idle list
 * @param spinningThreads Ms looking for work to steal
 * @param idleProcessors Ps on the idle list
 * @param globalQueueLength tasks in the global queue
 * @param localQueueLength tasks in all Ps' local rings and runnext slots
 * @param runnableTasks tasks queued anywhere (Go's /sched/goroutines/runnable)
 * @param runningTasks tasks running on an M (/sched/goroutines/running)
 * @param syscallTasks tasks inside {@link GmpExecutor#blocking} (Gsyscall; one M each)
 * @param waitingTasks tasks in Gwaiting: those sysmon found blocked without {@code blocking} and
 *     took the P from, plus this executor's parked virtual threads ({@code
 *     parkedVirtualThreads})
 * @param completedTasks tasks that finished (normally or by throwing)
 * @param steals successful steals from another P's queue (each takes one task or a batch); one
 *     {@code dev.gmp.Steal} JFR event each
 * @param parks times an M went idle on the idle list (a wake-up within its idle spin of a few
 *     microseconds reaches it before its thread parks: {@code unparks} counts the others); one
 *     {@code dev.gmp.Park} JFR event each (with no threshold: gmp.jfc records those of 1 ms or
 *     more)
 * @param unparks times a parked M had to be unparked; one {@code dev.gmp.Unpark} JFR event each
 * @param threadStartFailures times no thread could be had (ThreadFactory threw or returned null,
 *     Thread.start failed, or maxThreads was reached)
 * @param handoffs Ps passed on from an M that cannot use them (Go's handoffp): by a {@link
 *     GmpExecutor#blocking} call as it starts, because tasks were waiting ({@code eager}), or
 *     after sysmon retook them (every retake but a returning M's); each goes to another M or,
 *     with no work, to the idle list. One {@code dev.gmp.Handoff} JFR event each; the JMX
 *     {@code HandoffCount} and the meter {@code executor.handoffs}.
 * @param retakes Ps taken from an M that was not using them, by another thread: by sysmon from
 *     a blocking call (kind {@code syscall}) or from a task blocked without saying so ({@code
 *     blocked}: the block detector's verdict, or a JVM wait state a whole time slice long while
 *     work waited); or by an M back from its own blocking call from another's ({@code syscall}). A blocking
 *     call that gives its P away as it starts is a hand-off, not a retake. One {@code
 *     dev.gmp.Retake} JFR event each; the JMX {@code RetakeCount} and the meter {@code
 *     executor.retakes}.
 * @param preemptionRequests time slices sysmon found expired
 * @param spareThreads Ms counted against the spare budget ({@code maxSpareThreads}): running a
 *     task without a P after a retake, or in a blocking call that counted itself as it started
 *     because tasks were waiting (<a
 *     href="https://github.com/gmp-dev/gmp/blob/main/docs/design.md#3-sysmon-and-blocking">design
 *     notes, section 3</a>)
 * @param sysmonWakeups rounds sysmon has run
 * @param threadsCreated worker threads (Ms) ever created
 * @param peakThreads the most worker threads alive, asked of the ThreadFactory or waiting to be
 *     asked for at once (so it can exceed {@code threads} at its peak), not counting threads the
 *     ThreadFactory made that are late to start (they count against maxThreads only); never more
 *     than parallelism + maxSpareThreads (the spare budget that bounds every hand-off)
 * @param pendingTimers delayed and periodic tasks waiting in the Ps' timer heaps (cancelled ones
 *     not counted)
 * @param firedTimers delayed tasks made runnable because their delay elapsed (a delay already
 *     elapsed when scheduled included; each run of a periodic task counts)
 * @param cancelledTimers scheduled tasks cancelled before they completed (by {@code cancel}, or
 *     periodic ones by {@code shutdown})
 * @param virtualThreads virtual threads carried by this executor ({@link
 *     GmpExecutor#virtualThreadBuilder}) that started and have not terminated
 * @param parkedVirtualThreads of those, the ones neither queued nor running: parked, sleeping,
 *     blocked on a monitor or waiting (Go's Gwaiting goroutines; counted in {@code
 *     waitingTasks}). A mounted one that runs or blocks its carrier counts as running.
 */
public record GmpStats(
    int parallelism,
    int threads,
    int idleThreads,
    int spinningThreads,
    int idleProcessors,
    int globalQueueLength,
    int localQueueLength,
    int runnableTasks,
    int runningTasks,
    int syscallTasks,
    int waitingTasks,
    long completedTasks,
    long steals,
    long parks,
    long unparks,
    long threadStartFailures,
    long handoffs,
    long retakes,
    long preemptionRequests,
    int spareThreads,
    long sysmonWakeups,
    long threadsCreated,
    int peakThreads,
    int pendingTimers,
    long firedTimers,
    long cancelledTimers,

    int virtualThreads,
    int parkedVirtualThreads) {}
