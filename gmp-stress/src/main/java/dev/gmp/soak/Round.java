package dev.gmp.soak;

import dev.gmp.GmpExecutor;
import dev.gmp.GmpStats;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * One executor's life in the soak (docs/stress.md, "Soak").
 *
 * <p><b>Phases.</b> An opening ({@link SoakThreadFactory.Start}, in turn by round number): a
 * failing or slow one submits a lone first task and checks it is rejected or runs. Load (the
 * round's {@code millis}): submitters, the controller
 * (setParallelism, cancellations), the interrupter, the virtual-thread driver, all from their
 * own threads, while the factory misbehaves. Then either the load goes on through the shutdown
 * (a "busy" round), or it stops first (a "quiet" round, every other one): the soak joins its
 * virtual threads (unless shutdownNow will interrupt them), waits until no task is queued or
 * running, measures the CPU time of the executor's own threads over ~200 ms against a spinning
 * reference thread, and checks that a probe task and a probe timer still run. Then shutdown() or
 * shutdownNow(), with setParallelism and a second shutdownNow racing it from other threads;
 * awaitTermination; the accounting; and the round's dud threads are joined so rounds never pile
 * up threads.
 *
 * <p><b>Accounting, per task id.</b> A one-shot task (execute, or a one-shot timer) that was
 * accepted ran exactly once, or was returned by a shutdownNow exactly once, or (a timer) was
 * cancelled by the soak with cancel returning true, or (a child of invokeAll or invokeAny) may
 * have been cancelled by that call; a rejected one never ran. A periodic timer
 * that was accepted is done (cancelled, by the soak or by shutdown, or ended by its own throw)
 * or was returned by shutdownNow. No task body starts after awaitTermination returned true and
 * none is still running then. A {@code RejectedExecutionException} is allowed only after the soak
 * called shutdown/shutdownNow, or when the factory has failed (no thread could be had).
 *
 * <p><b>Threads.</b> After termination no factory thread that was meant to run the executor's
 * Runnable (good or slow) is alive, nor sysmon, nor any virtual thread; the factory is not asked
 * for a thread after termination; duds end by themselves (each sleeps at most 1.5 s). Duds
 * alive at once never exceed maxThreads (they count against it until they exit; the factory's
 * count of them starts later and ends earlier than the executor's). {@code
 * stats().peakThreads()} never exceeds the largest parallelism the round asked for plus
 * maxSpareThreads (GmpStats' promise) plus the duds made (which may count beside that cap).
 */
final class Round {
  /** Per-round cap on task ids (the per-id counters are arrays). */
  static final int CAP = 1 << 20;

  private static final long TERMINATION_SECONDS = 10;
  private static final long IDLE_WINDOW_MS = 200;
  /** A timed wait of kind 7: short enough that a child blocking on another thread times out. */
  private static final long TIMED_WAIT_MS = 2;

  /**
   * An idle thread under this much CPU in the window is never called a spinner, however little
   * the reference spinner got: an idle executor's threads use well under a millisecond.
   */
  private static final long SPIN_FLOOR_NANOS = 10_000_000;

  /**
   * Submitters pause while more tasks than this are queued: without it a slowed executor (a
   * spinning sysmon takes one of two cores) builds a backlog of 100,000s that a virtual thread's
   * wake-up waits behind for seconds.
   */
  private static final int BACKLOG = 20_000;

  final SplittableRandom rnd;
  final long millis;
  final Soak.Result total;
  final Set<Fault> faults;
  final boolean verbose;
  final long number;

  final AtomicIntegerArray accepted = new AtomicIntegerArray(CAP);
  final AtomicIntegerArray ran = new AtomicIntegerArray(CAP);
  final AtomicIntegerArray returned = new AtomicIntegerArray(CAP);
  /** One-shot timers the soak cancelled, and children invokeAll or invokeAny may have cancelled. */
  final AtomicIntegerArray cancelledBySoak = new AtomicIntegerArray(CAP);
  final AtomicLong ids = new AtomicLong();
  final AtomicLong threw = new AtomicLong();
  final AtomicLong errors = new AtomicLong();
  final AtomicLong blocking = new AtomicLong();
  final AtomicLong unmarked = new AtomicLong();
  final AtomicLong cancelled = new AtomicLong();
  final AtomicLong rejected = new AtomicLong();
  final AtomicLong rejectedNoThread = new AtomicLong();
  final AtomicLong rejectedFactoryCause = new AtomicLong();
  final AtomicLong parChanges = new AtomicLong();
  final AtomicLong oneShotTimers = new AtomicLong();
  final AtomicLong periodicTimers = new AtomicLong();
  final AtomicLong periodicRuns = new AtomicLong();
  final AtomicLong interruptsWorkers = new AtomicLong();
  final AtomicLong interruptsSysmon = new AtomicLong();
  final AtomicLong ranAfterTermination = new AtomicLong();
  final LongAdder bodiesStarted = new LongAdder();
  final LongAdder bodiesFinished = new LongAdder();
  final ConcurrentLinkedQueue<Future<?>> futures = new ConcurrentLinkedQueue<>();
  /** Timer futures (identity: ScheduledFuture does not override equals) to their ids. */
  final Map<Object, Integer> timerIds = new ConcurrentHashMap<>();

  final Map<Integer, ScheduledFuture<?>> periodic = new ConcurrentHashMap<>();

  /** Fault DECORATOR, on every other round: the executor has {@link #decorate} as its decorator. */
  final boolean decorated;
  final AtomicLong decoratorThrew = new AtomicLong();
  final AtomicLong invokeAlls = new AtomicLong();
  final AtomicLong invokeAnys = new AtomicLong();
  final AtomicLong timedWaits = new AtomicLong();
  final AtomicLong timerWaits = new AtomicLong();

  /** The decoration the running task body is inside, if any (set by {@link Decorated#run}). */
  static final ThreadLocal<Decorated> CONTEXT = new ThreadLocal<>();

  /**
   * The ids of the children a submit or invokeAll on this thread is about to hand the decorator,
   * in order: the decorator sees their futures, whose tasks it cannot see into.
   */
  static final ThreadLocal<ArrayDeque<Integer>> CHILD_IDS =
      ThreadLocal.withInitial(ArrayDeque::new);
  final AtomicInteger periodicBudget = new AtomicInteger(6);
  final AtomicInteger maxPar = new AtomicInteger();
  final Vthreads vthreads = new Vthreads();
  final int maxParallelism;
  final int maxSpare;
  final int maxThreads;
  SoakThreadFactory factory;
  GmpExecutor ex;
  String name;
  volatile Thread sysmon;
  volatile long sysmonLookedUp;
  volatile boolean loadStop;
  volatile boolean vtStop;
  volatile boolean stop;
  volatile boolean shutdownCalled;
  volatile boolean terminated;
  String lone = "-"; // what became of the lone first task of a round that opens failing
  final List<String> failures = Collections.synchronizedList(new ArrayList<>());

  final SoakThreadFactory.Start opening;
  final boolean quiet;

  Round(SplittableRandom rnd, long millis, Soak.Result total, Soak.Options opts, long number) {
    this.rnd = rnd;
    this.millis = millis;
    this.total = total;
    this.faults = opts.faults();
    this.verbose = opts.verbose();
    this.number = number;
    this.maxParallelism = 1 + rnd.nextInt(4);
    int[] spares = {0, 2, 8, 256};
    this.maxSpare = spares[rnd.nextInt(spares.length)];
    // >= any parallelism the round sets; small, it bounds the duds alive at once
    List<SoakThreadFactory.Start> starts = SoakThreadFactory.Start.allowed(faults);
    this.opening = starts.get((int) (number % starts.size()));
    // quiet and busy rounds alternate (so both come early), each opening meeting both in turn
    int k = starts.size();
    this.quiet = (k % 2 == 1 ? number : number + number / k) % 2 == 0;
    // A dud opening always gets a small cap: it is what bounds the duds alive at once
    this.maxThreads = rnd.nextInt(3) != 0 || opening == SoakThreadFactory.Start.DUDS
        ? 4 + rnd.nextInt(5) : 10_000;
    this.decorated = faults.contains(Fault.DECORATOR) && rnd.nextBoolean();
  }

  void fail(String what) {
    failures.add("round " + number + ": " + what);
  }

  // ------------------------------------------------------------------------------------ tasks

  /** Counts a body's start (and a start after termination) and its end, around {@code r}. */
  void body(Runnable r) {
    if (terminated) {
      ranAfterTermination.incrementAndGet();
    }
    bodiesStarted.increment();
    try {
      r.run();
    } finally {
      bodiesFinished.increment();
    }
  }

  /** A task with an id; counts its run, then does its kind of work. */
  final class Task implements Runnable {
    final int id;
    final int kind;
    final long seed;
    final boolean counts; // false when wrapped in an IdFuture, which counts instead

    Task(int id, int kind, long seed, boolean counts) {
      this.id = id;
      this.kind = kind;
      this.seed = seed;
      this.counts = counts;
    }

    @Override
    public void run() {
      body(this::work);
    }

    /** Found in a returned future's text (HelpingFuture's names its pending task): {@link #idIn}. */
    @Override
    public String toString() {
      return TAG + id;
    }

    private void work() {
      if (counts) {
        ran.incrementAndGet(id);
      }
      if (decorated) {
        Decorated c = CONTEXT.get();
        if (c == null || (c.id != 0 && c.id != id)) {
          fail("task " + id + " ran outside its decoration, in " + c);
        }
      }
      SplittableRandom r = new SplittableRandom(seed);
      switch (kind) {
        case 0 -> spin(r.nextInt(2_000));
        case 1 -> { // spawn children from the worker (runnext / local ring)
          int n = 1 + r.nextInt(4);
          for (int i = 0; i < n; i++) {
            submit(r, false);
          }
        }
        case 2 -> {
          threw.incrementAndGet();
          throw new IllegalStateException("soak: deliberate failure of task " + id);
        }
        case 3 -> {
          blocking.incrementAndGet();
          if (r.nextInt(3) == 0) { // a call nobody marked (JDBC, say): sysmon retakes its P
            unmarked.incrementAndGet();
            try {
              Thread.sleep(Duration.ofNanos(200_000 + r.nextInt(1_800_000)));
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt(); // cancel(true), shutdownNow, the interrupter
            }
            if (r.nextInt(4) == 0) {
              submit(r, false); // spawn from a task that may have lost its P meanwhile
            }
            return;
          }
          try {
            GmpExecutor.blocking(
                () -> {
                  Thread.sleep(0, 1 + r.nextInt(300_000));
                  return null;
                });
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // cancel(true), shutdownNow, the interrupter
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          if (r.nextInt(4) == 0) {
            submit(r, false); // spawn after the blocking call (maybe on another P now)
          }
        }
        case 5 -> {
          errors.incrementAndGet();
          switch (r.nextInt(3)) {
            case 0 -> throw new AssertionError("soak: deliberate AssertionError, task " + id);
            case 1 -> throw new SoakError("soak: deliberate Error, task " + id);
            default -> throw new OutOfMemoryError("soak: deliberate, not a real one, task " + id);
          }
        }
        case 6 -> schedule(r);
        case 7 -> {
          switch (r.nextInt(4)) {
            case 0 -> invokeChildren(r, false);
            case 1 -> invokeChildren(r, true);
            default -> awaitChild(r, r.nextInt(3) == 0);
          }
        }
        default -> spin(100);
      }
    }
  }

  /**
   * Kind 7: submit a child through {@code submit} and wait for it, as application code does. gmp
   * runs a child no thread has started on the waiter's own thread (HelpingFuture), which must
   * never be a child that shutdownNow returns, nor one it returns after running it here. The child
   * counts its own run; its future maps to its id for shutdownNow's list and the canceller.
   * shutdownNow's interrupt ends a wait for a child it returned. Half the waits are timed, which
   * run the child in place too; one that times out leaves it to run later or be returned. With
   * {@code timer}, the child is a one-shot timer of 0-2 ms instead, whose future's wait is a
   * marked call (ScheduledTask#get), often on a timer in the waiter's own P's heap; always timed:
   * nothing runs a timer in place, so with every P held by such waits and no thread to be had
   * (a dud factory, the spare budget spent) untimed ones wait for good (docs/blocking.md).
   */
  private void awaitChild(SplittableRandom r, boolean timer) {
    int id = nextId();
    if (id == 0) {
      return;
    }
    Future<?> f;
    ArrayDeque<Integer> kids = CHILD_IDS.get();
    kids.add(id);
    try {
      Task child = new Task(id, 0, r.nextLong(), true);
      f = timer
          ? ex.schedule(child, r.nextInt(2_000), TimeUnit.MICROSECONDS)
          : ex.submit(child);
    } catch (RejectedExecutionException e) {
      rejected(e);
      return;
    } catch (DecoratorFault e) {
      return; // not accepted: nothing was queued
    } finally {
      kids.clear();
    }
    timerIds.put(f, id); // before it may be returned or cancelled: the accounting reads it then
    accepted.set(id, 1);
    if (timer) {
      oneShotTimers.incrementAndGet();
      timerWaits.incrementAndGet();
    }
    futures.add(f);
    Decorated mine = CONTEXT.get();
    try {
      if (!timer && r.nextBoolean()) {
        f.get();
      } else {
        timedWaits.incrementAndGet();
        f.get(TIMED_WAIT_MS, TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // shutdownNow, cancel(true) or the interrupter
    } catch (ExecutionException | java.util.concurrent.CancellationException e) {
      // a cancelled child, or one whose body failed: the accounting covers both
    } catch (TimeoutException e) {
      // another thread runs it (a blocking child): it ends, or is returned, without us
    }
    if (CONTEXT.get() != mine) {
      fail("task waiting on child " + id + " came back in " + CONTEXT.get() + ", not " + mine);
    }
  }

  /**
   * Kind 7, the other half: 1-3 children through invokeAll or invokeAny from the task, which gmp
   * queues as futures; invokeAll waits for them newest first, running in place those no thread
   * has started, and invokeAny waits for the first end as a marked call (in place only where no
   * thread may take its processor, or after a while with no end). The futures never reach the soak before the call returns, so shutdownNow's list names them
   * by their text ({@link #idIn}). Children are accepted before the call (any may run before it
   * returns); those the call may have cancelled (all, if it threw; every one but the answer, for
   * invokeAny) are excused if they never ran, like a timer the soak cancelled. A completed
   * invokeAll must have run every child (exactly once, as every id); a timed one (a third of the
   * calls) may instead have cancelled those not done at its timeout.
   */
  private void invokeChildren(SplittableRandom r, boolean any) {
    List<Callable<Integer>> calls = new ArrayList<>(3);
    for (int n = 1 + r.nextInt(3); calls.size() < n; ) {
      int id = nextId();
      if (id == 0) {
        break;
      }
      int roll = r.nextInt(6); // mostly CPU; some fail (invokeAny's next), some block
      calls.add(new Child(new Task(id, roll == 0 ? 2 : roll == 1 ? 3 : 0, r.nextLong(), true)));
    }
    if (calls.isEmpty()) {
      return;
    }
    ArrayDeque<Integer> kids = CHILD_IDS.get();
    for (Callable<Integer> c : calls) {
      int id = ((Child) c).task.id;
      accepted.set(id, 1);
      kids.add(id);
    }
    (any ? invokeAnys : invokeAlls).incrementAndGet();
    boolean timed = r.nextInt(3) == 0;
    if (timed) {
      timedWaits.incrementAndGet();
    }
    Decorated mine = CONTEXT.get();
    int answer = 0;
    boolean whole = false;
    try {
      if (any) {
        answer = timed
            ? ex.invokeAny(calls, TIMED_WAIT_MS, TimeUnit.MILLISECONDS)
            : ex.invokeAny(calls);
      } else {
        List<Future<Integer>> fs = timed
            ? ex.invokeAll(calls, TIMED_WAIT_MS, TimeUnit.MILLISECONDS)
            : ex.invokeAll(calls);
        whole = true;
        for (Future<Integer> f : fs) {
          if (!f.isDone() || (f.isCancelled() && !timed)) {
            fail("invokeAll returned a child's future " + f + " not done, or cancelled");
          }
          whole &= !f.isCancelled(); // timed out: the rest cancelled
        }
      }
    } catch (TimeoutException e) {
      // a timed invokeAny with no answer in time: every child cancelled
    } catch (RejectedExecutionException e) {
      rejected(e);
    } catch (DecoratorFault e) {
      // the call failed: what it queued before is cancelled
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // shutdownNow or the interrupter: the rest cancelled
    } catch (ExecutionException e) {
      // invokeAny: no child succeeded
    } finally {
      kids.clear();
    }
    if (answer != 0 && ran.get(answer) == 0) {
      fail("invokeAny answered with child " + answer + ", which never ran");
    }
    if (!whole) {
      for (Callable<Integer> c : calls) {
        int id = ((Child) c).task.id;
        if (id != answer) {
          cancelledBySoak.set(id, 1);
        }
      }
    }
    if (CONTEXT.get() != mine) {
      fail("task after invoke" + (any ? "Any" : "All") + " came back in " + CONTEXT.get()
          + ", not " + mine);
    }
  }

  /** A child of invokeAll or invokeAny: runs its task, answers its id. */
  static final class Child implements Callable<Integer> {
    final Task task;

    Child(Task task) {
      this.task = task;
    }

    @Override
    public Integer call() {
      task.run();
      return task.id;
    }

    @Override
    public String toString() {
      return task.toString();
    }
  }

  /** What Task#toString starts with. */
  static final String TAG = "soak-task#";

  /** The task id in {@code r}'s text ({@link #TAG} and digits), or 0 if it names none. */
  static int idIn(Object r) {
    String s = r.toString();
    int i = s.indexOf(TAG);
    if (i < 0) {
      return 0;
    }
    int from = i + TAG.length();
    int to = from;
    while (to < s.length() && Character.isDigit(s.charAt(to))) {
      to++;
    }
    return to > from ? Integer.parseInt(s.substring(from, to)) : 0;
  }

  // -------------------------------------------------------------------------------- decorator

  /**
   * The round's task decorator (fault DECORATOR), as context propagation is written: a wrapper
   * that sets {@link #CONTEXT} around the task. It throws one time in 128 for a task of the soak's
   * (a Task, an IdFuture, a submitted child's future): that submission must fail, nothing queued.
   */
  Runnable decorate(Runnable task) {
    int id = 0;
    if (task instanceof Task t) {
      id = t.id;
    } else if (task instanceof IdFuture f) {
      id = f.id;
    } else if (task instanceof Future<?> && !(task instanceof FutureTask<?>)) {
      // gmp's future of a submit, invokeAll or invokeAny child: the next child in order (not a
      // FutureTask such as AbstractExecutorService's invokeAny hands execute besides it)
      Integer kid = CHILD_IDS.get().poll();
      id = kid == null ? 0 : kid;
    }
    if (id != 0 && ThreadLocalRandom.current().nextInt(128) == 0) {
      decoratorThrew.incrementAndGet();
      throw new DecoratorFault(id);
    }
    return new Decorated(task, id);
  }

  /** What {@link #decorate} returns: runs the task with itself as the context, then restores. */
  final class Decorated implements Runnable {
    final Runnable task;
    /** The soak task id it decorates, 0 for a probe, a periodic timer or a scheduled Callable. */
    final int id;

    Decorated(Runnable task, int id) {
      this.task = task;
      this.id = id;
    }

    @Override
    public void run() {
      Decorated outer = CONTEXT.get();
      CONTEXT.set(this);
      try {
        task.run();
      } finally {
        if (CONTEXT.get() != this) {
          fail("decoration of task " + id + " found " + CONTEXT.get() + " after its run");
        }
        CONTEXT.set(outer);
      }
    }

    @Override
    public String toString() {
      return "decoration of " + task;
    }
  }

  /** The decorator's deliberate failure (fault DECORATOR). */
  static final class DecoratorFault extends RuntimeException {
    DecoratorFault(int id) {
      super("soak: deliberate decorator failure, task " + id, null, false, false);
    }
  }

  /** A custom Error subclass, thrown by tasks (fault ERRORS). */
  static final class SoakError extends Error {
    SoakError(String message) {
      super(message);
    }
  }

  /** What submit() would build, with the task's id and a count of the executor's runs. */
  final class IdFuture extends FutureTask<Void> {
    final int id;

    IdFuture(Task t) {
      super(t, null);
      this.id = t.id;
    }

    @Override
    public void run() {
      ran.incrementAndGet(id);
      super.run();
    }
  }

  /** A task outside the per-id accounting: checks after the faults that the executor works. */
  static final class Probe implements Runnable {
    final CountDownLatch done;

    Probe(CountDownLatch done) {
      this.done = done;
    }

    @Override
    public void run() {
      done.countDown();
    }
  }

  /** The next task id, or 0 when the round ran out of ids (then the load stops). */
  int nextId() {
    long l = ids.incrementAndGet();
    if (l >= CAP) {
      stop = true;
      loadStop = true;
      return 0;
    }
    return (int) l;
  }

  int kind(SplittableRandom r, boolean external) {
    int roll = r.nextInt(100);
    int kind = roll < 50 ? 0 : roll < 68 ? 1 : roll < 72 ? 2 : roll < 84 ? 3 : roll < 90 ? 4
        : roll < 94 ? 5 : 6;
    if (!external && kind == 1 && r.nextInt(3) != 0) {
      kind = 0; // keep the spawn tree from exploding
    }
    if (kind == 0 && r.nextInt(8) == 0) {
      kind = 7; // a task that waits on a child's future
    }
    if ((kind == 5 && !faults.contains(Fault.ERRORS))
        || (kind == 6 && !faults.contains(Fault.TIMERS))) {
      kind = 0;
    }
    return kind;
  }

  /** Submits one task (maybe as a cancellable FutureTask); records acceptance. */
  void submit(SplittableRandom r, boolean external) {
    int id = nextId();
    if (id == 0) {
      return;
    }
    int kind = kind(r, external);
    boolean future = r.nextInt(8) == 0;
    Task t = new Task(id, kind, r.nextLong(), !future);
    // A Future (what submit() makes) counts its own run, so a cancelled one still accounts
    // as run (the executor ran it; it did nothing) or as returned by shutdownNow.
    IdFuture ft = future ? new IdFuture(t) : null;
    Runnable job = future ? ft : t;
    try {
      ex.execute(job);
      accepted.set(id, 1);
      if (ft != null) {
        futures.add(ft);
      }
    } catch (RejectedExecutionException e) {
      rejected(e);
    } catch (DecoratorFault e) {
      // not accepted: nothing was queued
    }
  }

  /** Schedules a one-shot (Runnable or Callable) or periodic timer with a fresh id. */
  void schedule(SplittableRandom r) {
    int id = nextId();
    if (id == 0) {
      return;
    }
    int how = r.nextInt(10);
    if (how >= 7 && periodicBudget.getAndDecrement() <= 0) {
      how = r.nextInt(7); // enough periodic ones: each runs every 1-10 ms until cancelled
    }
    long delayUs = r.nextInt(4) == 0 ? 0 : r.nextInt(30_000);
    try {
      ScheduledFuture<?> f;
      if (how < 7) {
        Task t = new Task(id, kind(r, false), r.nextLong(), true);
        if (how < 4) {
          f = ex.schedule(t, delayUs, TimeUnit.MICROSECONDS);
        } else {
          Callable<Integer> c =
              () -> {
                t.run();
                return id;
              };
          f = ex.schedule(c, delayUs, TimeUnit.MICROSECONDS);
        }
        timerIds.put(f, id);
        accepted.set(id, 1);
        oneShotTimers.incrementAndGet();
      } else {
        long periodUs = 1_000 + r.nextInt(9_000);
        int throwAt = r.nextInt(10) == 0 ? 1 + r.nextInt(5) : -1; // a throw ends it
        AtomicInteger runs = new AtomicInteger();
        Runnable p =
            () ->
                body(
                    () -> {
                      ran.incrementAndGet(id);
                      periodicRuns.incrementAndGet();
                      if (decorated && CONTEXT.get() == null) {
                        fail("periodic timer " + id + " ran outside its decoration");
                      }
                      spin(200);
                      if (runs.incrementAndGet() == throwAt) {
                        threw.incrementAndGet();
                        throw new IllegalStateException("soak: periodic task " + id + " ends");
                      }
                    });
        f = how < 9
            ? ex.scheduleAtFixedRate(p, delayUs, periodUs, TimeUnit.MICROSECONDS)
            : ex.scheduleWithFixedDelay(p, delayUs, periodUs, TimeUnit.MICROSECONDS);
        timerIds.put(f, id);
        periodic.put(id, f);
        accepted.set(id, 1);
        periodicTimers.incrementAndGet();
      }
      futures.add(f);
    } catch (RejectedExecutionException e) {
      rejected(e);
    } catch (DecoratorFault e) {
      // not accepted: nothing was scheduled
    }
  }

  /**
   * Counts a rejection. Read after the catch: shutdownCalled is set before the soak's first
   * shutdown call, so false here means the executor was not shut down when it refused: only a
   * factory that failed (no thread to be had) allows that.
   */
  void rejected(RejectedExecutionException e) {
    rejected.incrementAndGet();
    if (shutdownCalled) {
      return;
    }
    rejectedNoThread.incrementAndGet();
    for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
      if (c instanceof SoakThreadFactory.FactoryFault) {
        rejectedFactoryCause.incrementAndGet();
        break;
      }
    }
    if (factory.threw.get() + factory.nulls.get() == 0) {
      fail("rejected before shutdown while the factory never failed: " + e);
    }
  }

  // --------------------------------------------------------------------------- virtual threads

  /** The virtual threads of the round (fault VIRTUAL_THREADS) and their outcomes. */
  final class Vthreads {
    final List<Thread> all = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger live = new AtomicInteger();
    final AtomicLong started = new AtomicLong();
    final AtomicLong rejected = new AtomicLong();
    final AtomicLong done = new AtomicLong();
    final AtomicLong interrupted = new AtomicLong();
    final AtomicLong submitted = new AtomicLong();
    Thread.Builder.OfVirtual builder; // the driver's only

    /** Two threads taking turns: park until it is my turn, take it, unpark the other. */
    final class Pair {
      final AtomicInteger turn = new AtomicInteger();
      final int n;
      volatile Thread a;
      volatile Thread b;
      volatile boolean gone; // one side ended early: the other must not wait for it

      Pair(int n) {
        this.n = n;
      }
    }

    void side(Pair p, int me, long seed) {
      SplittableRandom r = new SplittableRandom(seed);
      try {
        for (int i = 0; i < p.n; i++) {
          // No deadline: a partner may wait long in a full global queue. One that never comes
          // back keeps the executor from terminating, which the round reports; shutdownNow then
          // interrupts this thread.
          while ((p.turn.get() & 1) != me) {
            if (Thread.currentThread().isInterrupted()) {
              throw new InterruptedException();
            }
            if (p.gone) {
              done.incrementAndGet();
              return;
            }
            LockSupport.parkNanos(2_000_000); // the timeout only bounds a lost unpark's cost
          }
          p.turn.incrementAndGet();
          LockSupport.unpark(me == 0 ? p.b : p.a);
          if (r.nextInt(4) == 0) {
            Thread.sleep(r.nextInt(3));
          }
        }
        done.incrementAndGet();
      } catch (InterruptedException e) {
        p.gone = true;
        interrupted.incrementAndGet();
      }
    }

    void sleeper(long seed) {
      SplittableRandom r = new SplittableRandom(seed);
      try {
        int n = 1 + r.nextInt(5);
        for (int i = 0; i < n; i++) {
          Thread.sleep(r.nextInt(4));
          if (r.nextInt(4) == 0) {
            submitted.incrementAndGet();
            submit(r, false); // a task from a virtual thread carried by gmp
          }
        }
        done.incrementAndGet();
      } catch (InterruptedException e) {
        interrupted.incrementAndGet();
      }
    }

    /** Starts {@code t}, counted; false if the executor refused it. */
    boolean start(Thread t) {
      live.incrementAndGet();
      try {
        t.start();
        started.incrementAndGet();
        all.add(t);
        return true;
      } catch (RejectedExecutionException e) {
        live.decrementAndGet();
        rejected.incrementAndGet();
        if (!shutdownCalled) {
          fail("virtual thread start rejected before shutdown: " + e);
        }
        return false;
      }
    }

    Runnable counted(Runnable r) {
      return () -> {
        try {
          r.run();
        } finally {
          live.decrementAndGet();
        }
      };
    }

    void drive(SplittableRandom r) {
      while (!vtStop && !stop) {
        sleepMs(1 + r.nextInt(10));
        if (live.get() >= 32) {
          continue;
        }
        if (r.nextBoolean()) {
          Pair p = new Pair(5 + r.nextInt(46));
          long sa = r.nextLong();
          long sb = r.nextLong();
          p.a = builder.unstarted(counted(() -> side(p, 0, sa)));
          p.b = builder.unstarted(counted(() -> side(p, 1, sb)));
          if (!start(p.a)) {
            continue;
          }
          if (!start(p.b)) {
            p.gone = true;
          }
        } else {
          long s = r.nextLong();
          start(builder.unstarted(counted(() -> sleeper(s))));
        }
      }
    }

    /** Joins every started thread, for at most 10 s in all; false if one is still alive. */
    boolean joinAll() throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      for (Thread t : snapshot()) {
        long left = deadline - System.nanoTime();
        if (left > 0) {
          t.join(Duration.ofNanos(left));
        }
        if (t.isAlive()) {
          return false;
        }
      }
      return true;
    }

    /** The live threads' count and states, one's stack, and the executor's state. */
    String alive() {
      List<Thread> live = snapshot().stream().filter(Thread::isAlive).toList();
      Map<Thread.State, Long> states = new java.util.TreeMap<>();
      for (Thread t : live) {
        states.merge(t.getState(), 1L, Long::sum);
      }
      String stack = live.isEmpty() ? ""
          : java.util.Arrays.toString(live.get(0).getStackTrace());
      return live.size() + " alive " + states + " (" + started + " started, " + done + " done, "
          + interrupted + " interrupted); one: " + stack + "; " + ex.stats() + "\n" + ex.dump();
    }

    List<Thread> snapshot() {
      synchronized (all) {
        return new ArrayList<>(all);
      }
    }
  }

  // ------------------------------------------------------------------------------ the round

  /** A builder with the round's decorator, if it has one. */
  private GmpExecutor.Builder builder() {
    GmpExecutor.Builder b = GmpExecutor.builder();
    return decorated ? b.taskDecorator(this::decorate) : b;
  }

  void run() throws InterruptedException {
    long t0 = System.nanoTime();
    factory = new SoakThreadFactory(rnd.split(), faults, millis, opening);
    ex =
        builder()
            .parallelism(maxParallelism)
            .maxSpareThreads(maxSpare)
            .maxThreads(maxThreads)
            .threadFactory(factory)
            .uncaughtExceptionHandler((t, e) -> {})
            .keepAlive(Duration.ofMillis(50 + rnd.nextInt(500)))
            .timeSlice(Duration.ofMillis(1 + rnd.nextInt(10)))
            .build();
    maxPar.set(maxParallelism);
    name = executorName(ex.toString());
    if (faults.contains(Fault.VIRTUAL_THREADS)) {
      try {
        vthreads.builder = ex.virtualThreadBuilder().name("soak-vt");
      } catch (UnsupportedOperationException e) {
        synchronized (total) {
          total.virtualThreadsUnsupported = true; // no --add-opens: skipped
        }
      }
    }
    boolean now = rnd.nextInt(10) < 4;
    if (opening == SoakThreadFactory.Start.FAILING) {
      loneTask();
    } else if (opening == SoakThreadFactory.Start.SLOW) {
      loneSlowTask();
    }

    List<Thread> load = new ArrayList<>();
    int submitters = 1 + rnd.nextInt(3);
    for (int i = 0; i < submitters; i++) {
      SplittableRandom r = rnd.split();
      load.add(start(() -> submitLoop(r)));
    }
    SplittableRandom cr = rnd.split();
    load.add(start(() -> controlLoop(cr)));
    if (faults.contains(Fault.INTERRUPTS)) {
      SplittableRandom ir = rnd.split();
      load.add(start(() -> interruptLoop(ir)));
    }
    Thread vtDriver = null;
    if (vthreads.builder != null) {
      SplittableRandom vr = rnd.split();
      vtDriver = start(() -> vthreads.drive(vr));
    }

    sleepMs(millis);
    IdleCpu idle = null;
    if (quiet) {
      loadStop = true;
      vtStop = true;
      for (Thread h : load) {
        h.join();
      }
      if (vtDriver != null) {
        vtDriver.join();
      }
      if (!now && !vthreads.joinAll()) {
        fail("virtual threads still alive 10 s after the load stopped: " + vthreads.alive());
      }
      idle = measureIdle();
      probe();
    }
    // A busy round does not join its virtual threads: while submitters keep the global queue
    // full, a woken virtual thread may wait there for seconds (Go's global queue is served
    // once per 61 schedule rounds while local queues have work). shutdown() lets them finish,
    // shutdownNow() interrupts them; either way none may be alive after termination.

    // Shutdown, with setParallelism and maybe a second shutdownNow racing it.
    List<Runnable> back = Collections.synchronizedList(new ArrayList<>());
    List<Thread> racers = new ArrayList<>();
    boolean raceNow = false;
    CountDownLatch go = new CountDownLatch(1);
    if (faults.contains(Fault.RACES)) {
      SplittableRandom rr = rnd.split();
      racers.add(start(() -> raceParallelism(go, rr.split())));
      if (rr.nextInt(3) == 0) {
        raceNow = true;
        racers.add(
            start(
                () -> {
                  await(go);
                  back.addAll(ex.shutdownNow());
                }));
      }
    }
    shutdownCalled = true;
    go.countDown();
    if (now) {
      back.addAll(ex.shutdownNow());
    } else {
      ex.shutdown();
    }
    for (Thread h : racers) {
      h.join();
    }
    stop = true;
    loadStop = true;
    vtStop = true;
    for (Thread h : load) {
      h.join();
    }
    if (vtDriver != null) {
      vtDriver.join();
    }
    boolean ok = ex.awaitTermination(TERMINATION_SECONDS, TimeUnit.SECONDS);
    GmpStats st = ex.stats();
    if (ok) {
      terminated = true;
      factory.terminated = true;
    } else {
      fail("did not terminate in " + TERMINATION_SECONDS + " s: " + ex + " " + st
          + " factory: " + factory.settings() + " calls=" + factory.calls + " made="
          + factory.made() + " alive=" + factory.alive + "\n" + ex.dump());
      back.addAll(ex.shutdownNow());
      ex.awaitTermination(5, TimeUnit.SECONDS);
    }
    Tally tally = account(back, now || raceNow || !ok, ok, st);
    // Duds end by themselves (at most 1.5 s after they start); the next round must not
    // inherit them.
    long dudsLeft = 0;
    for (Thread d : factory.duds) {
      d.join(Duration.ofSeconds(5));
      if (d.isAlive()) {
        dudsLeft++;
      }
    }
    if (dudsLeft > 0) {
      fail(dudsLeft + " dud threads alive 5 s after termination");
    }
    if (factory.callsAfterTermination.get() > 0) {
      fail("the factory was asked for " + factory.callsAfterTermination
          + " threads after termination");
    }
    long elapsedMs = (System.nanoTime() - t0) / 1_000_000;
    report(tally, idle, st, now, raceNow, ok, elapsedMs);
  }

  private void submitLoop(SplittableRandom r) {
    while (!stop && !loadStop) {
      if (ex.stats().runnableTasks() > BACKLOG) {
        sleepMs(1); // back pressure: a queue that only grows makes every latency unbounded
        continue;
      }
      int burst = 1 + r.nextInt(200);
      for (int k = 0; k < burst && !stop && !loadStop; k++) {
        if (faults.contains(Fault.TIMERS) && r.nextInt(25) == 0) {
          schedule(r);
        } else {
          submit(r, true);
        }
      }
      if (r.nextInt(10) == 0) {
        sleepMs(r.nextInt(20)); // idle gap: Ms park, then get woken
      } else {
        Thread.yield();
      }
    }
  }

  private void controlLoop(SplittableRandom r) {
    while (!stop && !loadStop) {
      sleepMs(1 + r.nextInt(10));
      int roll = r.nextInt(10);
      if (roll < 3) {
        setParallelism(1 + r.nextInt(4));
      } else {
        Future<?> f = futures.poll();
        if (f != null && f.cancel(r.nextBoolean())) {
          cancelled.incrementAndGet();
          Integer id = timerIds.get(f);
          if (id != null && id > 0 && !periodic.containsKey(id)) {
            cancelledBySoak.set(id, 1);
          }
        }
      }
    }
  }

  private void setParallelism(int n) {
    maxPar.accumulateAndGet(n, Math::max); // before: the cap may rise as soon as it is called
    try {
      ex.setParallelism(n);
      parChanges.incrementAndGet();
    } catch (RuntimeException e) {
      fail("setParallelism(" + n + ") threw " + e); // allowed at any time, after shutdown too
    }
  }

  private void raceParallelism(CountDownLatch go, SplittableRandom r) {
    await(go);
    int n = 5 + r.nextInt(30);
    for (int i = 0; i < n; i++) {
      setParallelism(1 + r.nextInt(4));
      if (r.nextBoolean()) {
        Thread.yield();
      }
    }
  }

  /** Interrupts a worker inside the executor's Runnable, or sysmon, every 1-10 ms. */
  private void interruptLoop(SplittableRandom r) {
    while (!stop && !loadStop) {
      sleepMs(1 + r.nextInt(10));
      if (r.nextInt(10) < 7) {
        Thread[] ts = factory.running.toArray(new Thread[0]);
        if (ts.length > 0) {
          ts[r.nextInt(ts.length)].interrupt();
          interruptsWorkers.incrementAndGet();
        }
      } else {
        Thread sm = sysmon();
        if (sm != null) {
          sm.interrupt();
          interruptsSysmon.incrementAndGet();
        }
      }
    }
  }

  /** Sysmon threads seen by earlier rounds (their executors terminated; they never come back). */
  private static final Set<Thread> OLD_SYSMONS =
      Collections.newSetFromMap(new java.util.WeakHashMap<>());

  /**
   * The executor's name from its toString ({@code GmpExecutor[<name>, ...]}, or {@code ...[...,
   * name = <name>, ...]}), or null if neither form is there.
   */
  static String executorName(String s) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("name = ([^,\\]]+)").matcher(s);
    if (m.find()) {
      return m.group(1).trim();
    }
    m = java.util.regex.Pattern.compile("^GmpExecutor\\[([^,\\]]+),").matcher(s);
    return m.find() ? m.group(1).trim() : null;
  }

  /**
   * The executor's sysmon thread: {@code <name>-sysmon}, or, if the name could not be read, the
   * one thread named {@code *-sysmon} that no earlier round saw (one executor at a time is
   * alive). Looked up at most every 20 ms until found.
   */
  Thread sysmon() {
    Thread t = sysmon;
    if (t != null) {
      return t;
    }
    long now = System.nanoTime();
    if (now - sysmonLookedUp < 20_000_000) {
      return null;
    }
    sysmonLookedUp = now;
    Thread found = null;
    int candidates = 0;
    synchronized (OLD_SYSMONS) {
      for (Thread c : Thread.getAllStackTraces().keySet()) {
        String n = c.getName();
        if (name != null ? n.equals(name + "-sysmon")
            : n.endsWith("-sysmon") && !OLD_SYSMONS.contains(c)) {
          found = c;
          candidates++;
        }
      }
      if (candidates != 1) {
        return null;
      }
      OLD_SYSMONS.add(found);
    }
    sysmon = found;
    return found;
  }

  // ---------------------------------------------------------------------------- quiet phase

  /** CPU time of the executor's own threads over the idle window. */
  record IdleCpu(boolean quiescent, long windowNanos, long cpuNanos, long maxThreadNanos,
      String maxThread, long refNanos, int threadsMade) {
    double maxShare() {
      return windowNanos > 0 ? (double) maxThreadNanos / windowNanos : 0;
    }
  }

  private boolean quiescent() {
    GmpStats s = ex.stats();
    return s.runnableTasks() + s.runningTasks() + s.syscallTasks() == 0;
  }

  /**
   * Waits (at most 1 s) until no task is queued or running, then measures for ~200 ms the CPU
   * time of the workers and sysmon, and of a thread of the soak that spins meanwhile (the
   * reference). Fails the round on a gross spin only: a worker using more than half the window
   * while the executor was quiescent at both ends (so it cannot have been running a task); sysmon
   * using more than half the window, or (quiescent) more than half what the reference got and
   * over 10 ms.
   * Load gives a thread less CPU, never more, so no bound fails for load: the half-window one can
   * miss a spin on a loaded machine, the relative one catches sysmon's there (a spinner gets about
   * what the reference gets).
   */
  private IdleCpu measureIdle() {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    if (!mx.isThreadCpuTimeSupported()) {
      return null;
    }
    if (!mx.isThreadCpuTimeEnabled()) {
      mx.setThreadCpuTimeEnabled(true);
    }
    long until = System.nanoTime() + 1_000_000_000L;
    boolean q;
    while (!(q = quiescent()) && System.nanoTime() < until) {
      sleepMs(5); // polling a condition, bounded; the verdict does not depend on how long
    }
    if (sysmon == null) {
      sysmonLookedUp = 0;
    }
    Thread sm = sysmon();
    if (sm == null) {
      fail("no sysmon thread found (name " + name + ", from " + ex + "): its idle CPU is not"
          + " measured and the interrupts fault cannot reach it");
    }
    List<Thread> ts = new ArrayList<>();
    for (Thread t : factory.workers) {
      if (t.isAlive()) {
        ts.add(t);
      }
    }
    if (sm != null) {
      ts.add(sm);
    }
    // The reference: a thread of ours that spins through the window gets what this machine
    // gives a spinning thread now (all of a core when quiet, a fraction under load).
    AtomicInteger spinning = new AtomicInteger(1);
    Thread ref = start(() -> {
      while (spinning.get() != 0) {
        Thread.onSpinWait();
      }
    });
    long[] c0 = new long[ts.size()];
    int made0 = factory.calls.get();
    long w0 = System.nanoTime();
    long r0 = mx.getThreadCpuTime(ref.threadId());
    for (int i = 0; i < c0.length; i++) {
      c0[i] = mx.getThreadCpuTime(ts.get(i).threadId());
    }
    sleepMs(IDLE_WINDOW_MS); // the measurement window itself
    long[] c1 = new long[ts.size()];
    for (int i = 0; i < c1.length; i++) {
      c1[i] = mx.getThreadCpuTime(ts.get(i).threadId());
    }
    long refCpu = mx.getThreadCpuTime(ref.threadId()) - r0;
    long w = System.nanoTime() - w0;
    spinning.set(0);
    try {
      ref.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    q &= quiescent();
    long sum = 0;
    long max = 0;
    String maxName = "-";
    for (int i = 0; i < c0.length; i++) {
      if (c0[i] < 0 || c1[i] < 0) {
        continue; // not alive at one end
      }
      long d = c1[i] - c0[i];
      sum += d;
      if (d > max) {
        max = d;
        maxName = ts.get(i).getName();
      }
      boolean isSysmon = ts.get(i) == sm;
      // Relative to the reference for sysmon only, and only while quiescent: a worker of an
      // idle executor still runs the periodic timers (up to 6, every 1-10 ms), and sysmon
      // retaking from blocked tasks ticks every 20 us; a few ms of CPU that load does not shrink.
      boolean spins = isSysmon
          ? d > w / 2 || (q && d > refCpu / 2 && d > SPIN_FLOOR_NANOS)
          : q && d > w / 2;
      if (spins) {
        // Where the thread is now, and the executor's view: a spin that is over by the time
        // the window closes still leaves its cause in the counters and the dump.
        fail(String.format(Locale.ROOT,
            "idle executor spins: %s used %.0f ms CPU of a %.0f ms idle window, in which a"
                + " spinning thread of the soak got %.0f ms (interrupts: %d of sysmon, %d of"
                + " workers); its stack now: %s; %s%n%s",
            ts.get(i).getName(), d / 1e6, w / 1e6, refCpu / 1e6, interruptsSysmon.get(),
            interruptsWorkers.get(), Arrays.toString(ts.get(i).getStackTrace()), ex.stats(),
            ex.dump()));
      }
    }
    return new IdleCpu(q, w, sum, max, maxName, refCpu, factory.calls.get() - made0);
  }

  /**
   * The round's first task and timer, alone, while every factory answer fails: no thread of the
   * executor exists and none can be started, so execute and schedule must throw
   * RejectedExecutionException (with the factory's exception as cause when it only threw) and not
   * accept the task. If one accepts it although the factory was asked during the call and failed
   * every time, that is the violation; and a task accepted must run (within 10 s of the factory's
   * recovery, with nothing else submitted to rescue it).
   */
  private void loneTask() throws InterruptedException {
    // execute, then schedule (a timer needs a thread as much), both while every answer fails
    CountDownLatch ranTask = new CountDownLatch(1);
    CountDownLatch ranTimer = new CountDownLatch(1);
    boolean task = loneSubmit("execute", () -> ex.execute(new Probe(ranTask)));
    boolean timer = loneSubmit("schedule",
        () -> timerIds.put(ex.schedule(new Probe(ranTimer), 1, TimeUnit.MILLISECONDS), -1));
    factory.endStart(); // from here on a thread can be had: an accepted task must run
    lone = "execute " + (task ? "accepted" : "rejected") + ", schedule "
        + (timer ? "accepted" : "rejected");
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    boolean ran = (!task || ranTask.await(until - System.nanoTime(), TimeUnit.NANOSECONDS))
        && (!timer || ranTimer.await(until - System.nanoTime(), TimeUnit.NANOSECONDS));
    if (!ran) {
      lone += ", never ran";
      fail("a task accepted while no thread could be had (factory threw " + factory.threw
          + ", returned null " + factory.nulls + ") did not run within 10 s: " + ex + " "
          + ex.stats());
    }
  }

  /**
   * One submission of the failing opening: false if rejected (the cause is checked), true if
   * accepted (a violation if the factory was asked during the call and no thread was ever made).
   */
  private boolean loneSubmit(String how, Runnable submit) {
    int calls0 = factory.calls.get();
    try {
      submit.run();
    } catch (RejectedExecutionException e) {
      rejectedNoThread.incrementAndGet(); // a probe, outside the per-id counts
      boolean factoryCause = false;
      for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
        factoryCause |= c instanceof SoakThreadFactory.FactoryFault;
      }
      rejectedFactoryCause.addAndGet(factoryCause ? 1 : 0);
      if (factory.nulls.get() == 0 && !factoryCause) {
        fail("no thread could be had, the factory only threw, but the rejection of " + how
            + " has another cause: " + e + ", cause " + e.getCause());
      }
      return false;
    }
    int asked = factory.calls.get() - calls0;
    if (asked > 0 && factory.made() == 0) { // read while every answer still fails
      fail(how + " accepted a task while no thread existed and none could be started (the"
          + " factory failed all " + asked + " times it was asked during the call)");
    }
    return true;
  }

  /**
   * The round's first task, alone, while the factory makes only threads that arrive 300-400 ms
   * late: the executor must not give a late thread up, so the task runs when one arrives (within
   * 10 s, with nothing else submitted to rescue it). Then the factory recovers.
   */
  private void loneSlowTask() throws InterruptedException {
    CountDownLatch done = new CountDownLatch(1);
    try {
      ex.execute(new Probe(done));
      if (done.await(10, TimeUnit.SECONDS)) {
        lone = "slow start, ran";
      } else {
        lone = "slow start, never ran";
        fail("a task accepted while the factory made only threads 300-400 ms late did not run"
            + " within 10 s (" + factory.calls + " threads asked for, " + factory.running.size()
            + " running the executor's Runnable): " + ex + " " + ex.stats());
      }
    } catch (RejectedExecutionException e) {
      fail("rejected while the factory never failed (it made only late threads): " + e);
      lone = "slow start, rejected";
    } finally {
      factory.endStart();
    }
  }

  /** A task and a timer must still run after all the faults (retried while refused). */
  private void probe() throws InterruptedException {
    CountDownLatch done = new CountDownLatch(2);
    boolean task = false;
    boolean timer = false;
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!(task && timer) && System.nanoTime() < until) {
      try {
        if (!task) {
          ex.execute(new Probe(done));
          task = true;
        }
        if (!timer) {
          timerIds.put(ex.schedule(new Probe(done), 1, TimeUnit.MILLISECONDS), -1);
          timer = true;
        }
      } catch (RejectedExecutionException e) {
        if (factory.threw.get() + factory.nulls.get() == 0) {
          fail("probe rejected before shutdown while the factory never failed: " + e);
          return;
        }
        sleepMs(20); // the factory failed (the executor may be backing off): try again
      }
    }
    if (!(task && timer)) {
      fail("probe refused for 10 s: the executor accepts nothing after the faults");
    } else if (!done.await(10, TimeUnit.SECONDS)) {
      fail("probe task or timer did not run within 10 s after the faults: " + ex + " "
          + ex.stats() + "\n" + ex.dump());
    }
  }

  // ----------------------------------------------------------------------------- accounting

  /** One round's per-id verdicts. */
  record Tally(long submitted, long accepted, long ran, long returned, long cancelledUnrun,
      long periodicAccepted, long lost, long dup, long phantom, long periodicLive,
      long alive, long sysmonAlive, long vtAlive, long stillRunning) {}

  private Tally account(List<Runnable> back, boolean anyNow, boolean ok, GmpStats st)
      throws InterruptedException {
    List<Runnable> all;
    synchronized (back) {
      all = new ArrayList<>(back);
    }
    for (Runnable r : all) {
      if (r instanceof Decorated d) {
        r = d.task; // an execute'd task under the decorator comes back decorated
      }
      if (r instanceof Task t) {
        returned.incrementAndGet(t.id);
      } else if (r instanceof IdFuture f) {
        returned.incrementAndGet(f.id);
      } else if (r instanceof Probe) {
        continue;
      } else {
        Integer id = timerIds.get(r);
        if (id == null && r instanceof Future<?> f) {
          id = idIn(r); // an invokeAll or invokeAny child's future, named by its pending task
          if (id == 0 && f.isCancelled()) {
            continue; // one the call cancelled once shutdownNow's interrupt ended its wait: the
            // text no longer names it, and its id is excused (invokeChildren)
          }
        }
        if (id == null || id == 0) {
          fail("shutdownNow returned a task we never submitted: " + r);
        } else if (id > 0) {
          returned.incrementAndGet(id);
        }
      }
    }
    int maxId = (int) Math.min(ids.get(), CAP - 1);
    long acc = 0;
    long rn = 0;
    long rt = 0;
    long cu = 0;
    long pacc = 0;
    long lost = 0;
    long dup = 0;
    long phantom = 0;
    long plive = 0;
    for (int id = 1; id <= maxId; id++) {
      int a = accepted.get(id);
      ScheduledFuture<?> pf = a == 1 ? periodic.get(id) : null;
      if (pf != null) {
        pacc++;
        int r = returned.get(id);
        if (r > 1) {
          dup++;
        } else if (r == 0 && !pf.isDone() && ok) {
          plive++;
        }
        continue;
      }
      int seen = ran.get(id) + returned.get(id);
      acc += a;
      rn += a == 1 ? ran.get(id) : 0;
      rt += a == 1 ? returned.get(id) : 0;
      if (a == 1 && seen == 0) {
        if (cancelledBySoak.get(id) == 1) {
          cu++;
        } else {
          lost++;
        }
      } else if (a == 0 && seen != 0) {
        phantom++;
      } else if (seen > 1) {
        dup++;
      }
    }
    // A thread the watchdog wrote off before it ran the Runnable (a slow one, 300-400 ms late) is
    // not waited for by awaitTermination (it may be a dud that never runs it) and returns at once
    // when it does run it: it must be gone soon after, not at once (design.md, section 4).
    long joinUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    for (Thread t : factory.workers) {
      long left = joinUntil - System.nanoTime();
      if (left > 0 && t.isAlive() && !factory.running.contains(t)) {
        TimeUnit.NANOSECONDS.timedJoin(t, left);
      }
    }
    long alive = factory.workers.stream().filter(Thread::isAlive).count();
    long slowAlive = factory.workers.stream()
        .filter(t -> t.isAlive() && t.getName().endsWith("-slow")).count();
    Thread sm = sysmon;
    long smAlive = ok && sm != null && sm.isAlive() ? 1 : 0;
    long vtAlive = vthreads.snapshot().stream().filter(Thread::isAlive).count();
    long stillRunning = ok ? bodiesStarted.sum() - bodiesFinished.sum() : 0;
    if (lost + dup + phantom + plive + alive + smAlive + vtAlive > 0) {
      fail(String.format(Locale.ROOT,
          "parallelism %d, maxSpare %d, %s, factory %s: lost=%d dup=%d phantom=%d"
              + " periodicLive=%d workersAlive=%d (slow threads %d) sysmonAlive=%d"
              + " vthreadsAlive=%d",
          maxParallelism, maxSpare, anyNow ? "shutdownNow" : "shutdown", factory.settings(),
          lost, dup, phantom, plive, alive, slowAlive, smAlive, vtAlive));
    }
    if (ranAfterTermination.get() > 0 || stillRunning != 0) {
      fail(ranAfterTermination + " task bodies started after awaitTermination returned true, "
          + stillRunning + " still running then");
    }
    if (!anyNow && vthreads.interrupted.get() > 0) {
      fail(vthreads.interrupted + " virtual threads interrupted in a round without shutdownNow");
    }
    long vtEnded = vthreads.done.get() + vthreads.interrupted.get();
    if (ok && vtEnded != vthreads.started.get()) {
      fail("virtual threads: started " + vthreads.started + ", ended " + vtEnded);
    }
    if (factory.peakDudsAlive.get() > maxThreads) {
      fail(factory.peakDudsAlive + " dud threads alive at once > maxThreads " + maxThreads
          + " (duds count against maxThreads until they exit)");
    }
    // Duds may count beside the cap rather than in it, so the bound allows every dud made
    int bound = maxPar.get() + maxSpare + factory.duds.size();
    if (st.peakThreads() > bound) {
      fail("peakThreads " + st.peakThreads() + " > parallelism " + maxPar + " + maxSpare "
          + maxSpare + " + duds made " + factory.duds.size());
    }
    return new Tally(maxId, acc, rn, rt, cu, pacc, lost, dup, phantom, plive, alive, smAlive,
        vtAlive, stillRunning);
  }

  private void report(Tally t, IdleCpu idle, GmpStats st, boolean now, boolean raceNow,
      boolean ok, long elapsedMs) {
    Soak.Result r = total;
    synchronized (r) {
      r.shutdownNows += now || raceNow ? 1 : 0;
      r.submitted += t.submitted();
      r.accepted += t.accepted();
      r.rejected += rejected.get();
      r.rejectedNoThread += rejectedNoThread.get();
      r.rejectedFactoryCause += rejectedFactoryCause.get();
      r.ran += t.ran();
      r.returned += t.returned();
      r.timersCancelledUnrun += t.cancelledUnrun();
      r.threw += threw.get();
      r.errors += errors.get();
      r.blockingCalls += blocking.get();
      r.unmarkedCalls += unmarked.get();
      r.retakes += st.retakes();
      r.cancelled += cancelled.get();
      r.parallelismChanges += parChanges.get();
      r.oneShotTimers += oneShotTimers.get();
      r.periodicTimers += t.periodicAccepted();
      r.periodicRuns += periodicRuns.get();
      r.interruptsWorkers += interruptsWorkers.get();
      r.interruptsSysmon += interruptsSysmon.get();
      r.lost += t.lost();
      r.duplicated += t.dup();
      r.phantom += t.phantom();
      r.periodicLive += t.periodicLive();
      r.notTerminated += ok ? 0 : 1;
      r.threadsAlive += t.alive();
      r.sysmonAlive += t.sysmonAlive();
      r.ranAfterTermination += ranAfterTermination.get() + t.stillRunning();
      r.workerThreads += factory.made();
      r.slowThreads += factory.slow.get();
      r.dudThreads += factory.duds.size();
      r.factoryThrew += factory.threw.get();
      r.factoryNull += factory.nulls.get();
      r.maxThreadsPerRound = Math.max(r.maxThreadsPerRound, factory.made());
      r.maxPeakAlive = Math.max(r.maxPeakAlive, factory.peakAlive.get());
      r.maxPeakDudsAlive = Math.max(r.maxPeakDudsAlive, factory.peakDudsAlive.get());
      r.loneTasks += lone.startsWith("execute") ? 2 : 0;
      r.loneRejected += (lone.contains("execute rejected") ? 1 : 0)
          + (lone.contains("schedule rejected") ? 1 : 0);
      r.slowStarts += lone.startsWith("slow") ? 1 : 0;
      r.maxPeakThreads = Math.max(r.maxPeakThreads, st.peakThreads());
      r.vtStarted += vthreads.started.get();
      r.vtInterrupted += vthreads.interrupted.get();
      r.vtRejected += vthreads.rejected.get();
      r.vtAlive += t.vtAlive();
      r.decoratedRounds += decorated ? 1 : 0;
      r.decoratorThrew += decoratorThrew.get();
      r.invokeAlls += invokeAlls.get();
      r.invokeAnys += invokeAnys.get();
      r.timedWaits += timedWaits.get();
      r.timerWaits += timerWaits.get();
      if (idle != null) {
        r.idleRounds++;
        r.idleQuiescent += idle.quiescent() ? 1 : 0;
        r.idleCpuNanos += idle.cpuNanos();
        r.idleWindowNanos += idle.windowNanos();
        r.maxIdleShare = Math.max(r.maxIdleShare, idle.maxShare());
        r.idleThreadsMade += idle.threadsMade();
      }
      r.failures.addAll(failures);
    }
    if (verbose) {
      String idleText = idle == null ? "busy round"
          : String.format(Locale.ROOT, "idle CPU %.1f ms in %.0f ms (max %s %.0f%%%s; a spinner"
              + " got %.0f ms), %d threads made while idle", idle.cpuNanos() / 1e6,
              idle.windowNanos() / 1e6, idle.maxThread(), 100 * idle.maxShare(),
              idle.quiescent() ? "" : ", not quiescent", idle.refNanos() / 1e6,
              idle.threadsMade());
      System.out.printf(Locale.ROOT,
          "round %d: %d ms, par %d (max %d) spare %d maxThreads %d, %s%s, %s, factory %s,"
              + " opening %s (lone first task: %s): submitted %d = ran %d + returned %d"
              + " + cancelled timers %d + rejected %d (%d before shutdown, for want of a thread)"
              + " + periodic %d (%d runs) + lost %d; dup %d phantom %d; threads: %d made (%d"
              + " slow, %d dud; factory threw %d, null %d), peak alive %d (duds %d), peakThreads"
              + " %d, created %d, start failures %d; interrupts %d workers %d sysmon; vthreads %d"
              + " (%d interrupted, %d rejected); %s%s%n",
          number, elapsedMs, maxParallelism, maxPar.get(), maxSpare, maxThreads,
          now ? "shutdownNow" : "shutdown", raceNow ? "+racing shutdownNow" : "",
          idle == null ? "busy" : "quiet", factory.settings(), opening, lone, t.submitted(),
          t.ran(), t.returned(), t.cancelledUnrun(),
          rejected.get(), rejectedNoThread.get(), t.periodicAccepted(), periodicRuns.get(),
          t.lost(), t.dup(), t.phantom(), factory.made(), factory.slow.get(),
          factory.duds.size(), factory.threw.get(), factory.nulls.get(),
          factory.peakAlive.get(), factory.peakDudsAlive.get(), st.peakThreads(),
          st.threadsCreated(), st.threadStartFailures(), interruptsWorkers.get(),
          interruptsSysmon.get(),
          vthreads.started.get(), vthreads.interrupted.get(), vthreads.rejected.get(), idleText,
          failures.isEmpty() ? "" : " FAILED " + failures);
    }
  }

  private static Thread start(Runnable r) {
    Thread t = new Thread(r, "soak-driver");
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static void await(CountDownLatch l) {
    try {
      l.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static void spin(int iterations) {
    long x = 0;
    for (int i = 0; i < iterations; i++) {
      x += i * 31L;
    }
    if (x == 42) {
      System.out.print("");
    }
  }

  static void sleepMs(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
