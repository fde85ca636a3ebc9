package dev.gmp;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongConsumer;

/**
 * Scheduling latency (Go 1.26's {@code /sched/latencies}, Tokio's schedule-latency histogram):
 * the time from a task becoming runnable to its start, sampled, into a lock-free histogram.
 *
 * <p>Sampling. One G in {@value #SAMPLE_EVERY} is timed: its task is wrapped in a {@link Sampled}
 * that carries when it became runnable, so that the other 63 carry nothing (a G is 32 bytes; a
 * stamp word in every G made it 40). A local spawn is sampled when its goid is a multiple of
 * {@value #SAMPLE_EVERY} (the goid is in hand: no extra work to decide), an outside submission or
 * continuation when a thread-local random draw says so (outside Gs get their goid only when moved
 * from the injection side, after they became runnable). Only a sampled G pays: a wrapper and a
 * System.nanoTime where it is made runnable, another nanoTime where it starts. The task path
 * otherwise pays a test of the goid's low bits (local) or a ThreadLocalRandom draw (outside), and
 * a type test of the task where it starts (only once sampling is on: SchedulingLoop#execute). Go
 * samples 1 G in 8 this way (gTrackingPeriod); 64 spreads two clock reads per sample to about a
 * nanosecond per task (more on a virtual machine whose clock read is slow).
 *
 * <p>On demand. That is the sample's own cost; the wrapping branch in the spawn path cost more:
 * with it compiled in, a local spawn took about a tenth longer, at any sampling rate (1 in 1,024
 * saved only a quarter of it). So the scheduler samples only once someone asks
 * ({@code Scheduler.sampleLatency}, set at the first read, listener or JFR period, or by the
 * builder), and until then a test of that flag, never taken, compiles to nothing on the path.
 *
 * <p>Histogram. Log-linear buckets: values below 8 ns exactly, then each power of two split in 8
 * (an upper bound at most 12.5% above any value in its bucket), up to about 36 minutes; a
 * percentile is reported as the upper bound of the bucket it falls in, so never below the true
 * value. Counts live in {@code stripes} {@link AtomicLongArray}s, chosen by the recording M's id,
 * so that Ms sampling at once seldom share a line; an increment is one atomic add (a lock-free
 * fetch-and-add, one per sample, so about a third of a nanosecond per task spread over 64). Per-M
 * single-writer arrays would save the atomic but need folding when an M exits. Readers sum the
 * stripes without stopping anyone: counts may be from slightly different instants, never torn.
 *
 * <p>HdrHistogram would give the same percentiles but its recorder is single-writer or takes a
 * WriterReaderPhaser per record, and gmp-core has no runtime dependency.
 */
final class SchedLatency {
  /** One G in this many is sampled (a power of two: the test is a mask). */
  static final int SAMPLE_EVERY = 64;

  private static final int MASK = SAMPLE_EVERY - 1;

  /** Sub-buckets per power of two: 2^SUB_BITS. */
  private static final int SUB_BITS = 3;

  private static final int SUB = 1 << SUB_BITS;

  /** Highest power of two with buckets of its own; longer latencies share the last bucket. */
  private static final int MAX_EXP = 40;

  static final int BUCKETS = (MAX_EXP - SUB_BITS + 2) * SUB;

  private final AtomicLongArray[] stripes;

  private final int stripeMask;

  private static final LongConsumer[] NONE = {};

  /**
   * Who else receives each sample (the Micrometer Timer). Volatile: written rarely, under this
   * object's monitor, as a new array; a recording M reads it once per sample.
   */
  private volatile LongConsumer[] listeners = NONE;

  /** The JFR periodic event's previous counts, for its per-period percentiles (its thread only). */
  private long[] lastPeriod = new long[BUCKETS];

  SchedLatency(int parallelism) {
    int n = Integer.highestOneBit(Math.max(1, Math.min(16, parallelism)) * 2 - 1);
    stripes = new AtomicLongArray[n];
    for (int i = 0; i < n; i++) {
      stripes[i] = new AtomicLongArray(BUCKETS);
    }
    stripeMask = n - 1;
  }

  // ---------------------------------------------------------------- the task path

  /**
   * A sampled G's task: the submitted one and when the G became runnable (System.nanoTime).
   * Written before the G is queued and read by the M that takes it: the queue publishes both, as
   * it publishes {@link G#task}.
   */
  static final class Sampled implements Runnable {
    final Runnable task;
    final long readyAt;

    Sampled(Runnable task, long readyAt) {
      this.task = task;
      this.readyAt = readyAt;
    }

    @Override
    public void run() { // execute unwraps; only a caller that forgot to would come here
      task.run();
    }

    @Override
    public String toString() {
      return task.toString();
    }
  }

  /** Scheduler#newG: a local G's task, wrapped if its goid is a multiple of SAMPLE_EVERY. */
  static Runnable local(int goid, Runnable task) {
    return (goid & MASK) == 0 ? new Sampled(task, System.nanoTime()) : task;
  }

  /** An outside G's task (submitExternal, readyExternal): one in SAMPLE_EVERY, at random. */
  static Runnable external(Runnable task) {
    return (ThreadLocalRandom.current().nextInt() & MASK) == 0
        ? new Sampled(task, System.nanoTime())
        : task;
  }

  /** The submitted task of a G's {@code task} (shutdownNow's list, messages, the dump). */
  static Runnable unwrap(Runnable task) {
    return task instanceof Sampled s ? s.task : task;
  }

  /** execute, before the task runs: the task to run, with a sampled G's wait recorded. */
  Runnable started(M m, Runnable task) {
    if (task instanceof Sampled s) {
      record(m, System.nanoTime() - s.readyAt);
      return s.task;
    }
    return task;
  }

  private void record(M m, long nanos) {
    long d = Math.max(0, nanos); // nanoTime is monotonic per JVM; a clamp costs nothing
    stripes[(int) m.id & stripeMask].getAndIncrement(bucket(d));
    LongConsumer[] ls = listeners;
    for (LongConsumer l : ls) {
      try {
        l.accept(d);
      } catch (Throwable e) {
        m.sched.report(e);
      }
    }
  }

  synchronized boolean removeListener(LongConsumer l) {
    LongConsumer[] old = listeners;
    for (int i = 0; i < old.length; i++) {
      if (old[i].equals(l)) {
        LongConsumer[] ls = new LongConsumer[old.length - 1];
        System.arraycopy(old, 0, ls, 0, i);
        System.arraycopy(old, i + 1, ls, i, old.length - i - 1);
        listeners = ls; // volatile: the workers' next sample reads the new array
        return true;
      }
    }
    return false;
  }

  synchronized void addListener(LongConsumer l) {
    LongConsumer[] old = listeners;
    for (LongConsumer x : old) {
      if (x.equals(l)) {
        return; // added already: a second copy would see each sample twice
      }
    }
    LongConsumer[] ls = java.util.Arrays.copyOf(old, old.length + 1);
    ls[old.length] = l;
    listeners = ls;
  }

  // ---------------------------------------------------------------- buckets

  static int bucket(long v) {
    if (v < SUB) {
      return (int) v;
    }
    int e = 63 - Long.numberOfLeadingZeros(v); // >= SUB_BITS
    int i = (e - SUB_BITS + 1) * SUB + (int) ((v >>> (e - SUB_BITS)) & (SUB - 1));
    return Math.min(i, BUCKETS - 1);
  }

  /** The smallest value in bucket i. */
  static long lower(int i) {
    if (i < SUB) {
      return i;
    }
    int e = i / SUB + SUB_BITS - 1;
    return (long) (SUB + i % SUB) << (e - SUB_BITS);
  }

  /** The largest value in bucket i (the last bucket's is unbounded: Long.MAX_VALUE). */
  static long upper(int i) {
    return i == BUCKETS - 1 ? Long.MAX_VALUE : lower(i + 1) - 1;
  }

  // ---------------------------------------------------------------- readers

  /** The counts so far, summed over the stripes. */
  long[] counts() {
    long[] c = new long[BUCKETS];
    for (AtomicLongArray a : stripes) {
      for (int i = 0; i < BUCKETS; i++) {
        c[i] += a.get(i); // volatile reads: recent counts, each whole
      }
    }
    return c;
  }

  SchedulingLatency snapshot() {
    return of(counts());
  }

  /** Since the previous call (JfrRecorder's periodic event, one thread). */
  synchronized SchedulingLatency sinceLastPeriod() {
    long[] now = counts();
    long[] d = new long[BUCKETS];
    for (int i = 0; i < BUCKETS; i++) {
      d[i] = now[i] - lastPeriod[i];
    }
    lastPeriod = now;
    return of(d);
  }

  static SchedulingLatency of(long[] c) {
    long n = 0;
    int top = -1;
    for (int i = 0; i < BUCKETS; i++) {
      n += c[i];
      if (c[i] != 0) {
        top = i;
      }
    }
    return new SchedulingLatency(n, SAMPLE_EVERY, percentile(c, n, 0.5), percentile(c, n, 0.9),
        percentile(c, n, 0.99), percentile(c, n, 0.999), top < 0 ? 0 : upper(top));
  }

  /** The upper bound of the bucket holding the q-th sample (0 with none). */
  static long percentile(long[] c, long n, double q) {
    if (n == 0) {
      return 0;
    }
    long rank = Math.max(1, (long) Math.ceil(q * n));
    long seen = 0;
    for (int i = 0; i < BUCKETS; i++) {
      seen += c[i];
      if (seen >= rank) {
        return upper(i);
      }
    }
    return upper(BUCKETS - 1);
  }
}
