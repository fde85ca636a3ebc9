package dev.gmp.bench;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.LifeCycle;
import org.eclipse.jetty.util.thread.ThreadPool;

/**
 * Jetty 12's {@link ThreadPool} over any {@link ExecutorService}: Jetty's request work runs on the
 * executor, its acceptor and selector loops on threads of their own.
 *
 * <p>Which job is which: Jetty starts its long-lived loops (each connector's acceptors, each
 * selector's produce loop, which blocks in {@code Selector.select} for the server's lifetime)
 * with {@code execute} while {@link Server#start} runs, and everything it executes once the
 * server has started is a connection task (a request to parse and handle). So jobs executed before
 * the server reports started get a dedicated daemon thread each; later jobs go to the executor.
 * Putting the loops on the executor would park a selector in {@code select()} on one of its
 * workers for good: a fixed pool or ForkJoinPool would lose a worker (at parallelism 1, all of
 * them), and gmp would see an unmarked blocking call and hand its processor on. A real Jetty keeps
 * them on platform threads of its QueuedThreadPool for the same reason.
 *
 * <p>No reserved threads: this pool is deliberately not a {@code TryExecutor}, so Jetty's
 * AdaptiveExecutionStrategy never chooses execute-produce-consume (which needs {@code
 * tryExecute} to hand a reserved thread the selector's job while the selecting thread runs the
 * request itself: the selector role would then move onto the executor's workers). With a blocking
 * handler ({@code Handler.Abstract}'s default invocation type) it chooses produce-execute-consume:
 * the selector thread stays the selector and calls {@code execute} once per request, from outside
 * the executor, the same shape as the JDK HttpServer's dispatcher thread, so both servers put the
 * same calls on each executor.
 *
 * <p>Not a {@code SizedThreadPool} either: the executor's size is its own business, so Jetty's
 * thread budget check (which only sized pools take part in) does not apply. Stopping the server
 * does not shut the executor down; its owner does.
 */
final class JettyExecutorPool implements ThreadPool, LifeCycle.Listener {
  private final ExecutorService exec;
  private final AtomicInteger loops = new AtomicInteger();
  // Written once by the thread that starts the server, read by Jetty's selector threads on each
  // execute: volatile is enough, a stale false only gives one more job a thread of its own.
  private volatile boolean serving;

  private JettyExecutorPool(ExecutorService exec) {
    this.exec = exec;
  }

  /** A server (not started) whose request work runs on {@code exec}. */
  static Server newServer(ExecutorService exec) {
    JettyExecutorPool pool = new JettyExecutorPool(exec);
    Server server = new Server(pool);
    server.addEventListener(pool);
    return server;
  }

  @Override
  public void lifeCycleStarted(LifeCycle event) {
    // Jetty hands a server's listeners to its components too (selectors and connectors report
    // started before the server does): only the server itself being started counts.
    if (event instanceof Server) {
      serving = true;
    }
  }

  @Override
  public void lifeCycleStopping(LifeCycle event) {
    if (event instanceof Server) {
      serving = false;
    }
  }

  @Override
  public void execute(Runnable job) {
    if (serving) {
      exec.execute(job);
      return;
    }
    Thread t = new Thread(job, "jetty-loop-" + loops.incrementAndGet());
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void join() throws InterruptedException {
    while (!exec.awaitTermination(1, TimeUnit.HOURS)) {
      // Jetty's join() waits for the pool to end, however long
    }
  }

  /** The loop threads started; the executor's own threads are not visible through its interface. */
  @Override
  public int getThreads() {
    return loops.get();
  }

  @Override
  public int getIdleThreads() {
    return 0;
  }

  /** Never: the executor queues what it cannot run yet, and says nothing about its threads. */
  @Override
  public boolean isLowOnThreads() {
    return false;
  }
}
