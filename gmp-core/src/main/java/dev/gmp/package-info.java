/**
 * Go's GMP scheduler as a work-stealing {@link java.util.concurrent.ScheduledExecutorService}:
 * {@link dev.gmp.GmpExecutor}, made with {@link dev.gmp.GmpExecutor#create()} or {@link
 * dev.gmp.GmpExecutor#builder()}.
 *
 * <p>Processors (Ps, Go's GOMAXPROCS of them) each own a lock-free run queue with a {@code
 * runnext} slot; worker threads (Ms) run a processor's tasks, steal from the others when theirs
 * run dry, and park when there is nothing to steal; a {@code sysmon} thread takes a processor away
 * from a task that blocks or runs past its time slice and hands it to another thread. A task that
 * {@linkplain java.util.concurrent.Executor#execute executes} another from inside the executor
 * puts it in its processor's {@code runnext} slot, so it runs next on the same thread (Go's {@code
 * go} statement); a task from any other thread goes to the global queue. {@link
 * dev.gmp.GmpExecutor#blocking GmpExecutor.blocking} marks a call that may block, so that its
 * processor goes to another thread at once.
 *
 * <p>Besides the executor: {@link dev.gmp.GmpStats}, a snapshot of the scheduler's counters
 * ({@link dev.gmp.GmpExecutor#stats()}); {@link dev.gmp.GmpExecutorMXBean}, the JMX view of an
 * executor built with {@link dev.gmp.GmpExecutor.Builder#jmx(boolean) jmx(true)}; and JFR events
 * named {@code dev.gmp.*} (steals, parks, hand-offs, retakes, a periodic statistics event), which
 * have no API: enable them in a recording. {@link dev.gmp.micrometer} binds the statistics to
 * Micrometer.
 *
 * <p>The <a href="https://github.com/gmp-dev/gmp">project page</a> is the user's guide; its <a
 * href="https://github.com/gmp-dev/gmp/blob/main/docs/design.md">design notes</a> map each part
 * onto Go's runtime.
 */
package dev.gmp;
