package dev.gmp.bench;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

/**
 * What one store to a field costs through each way Java spells it, in the tier a fresh JVM runs
 * gmp's per-task path in: run it with {@code -Xint}, {@code -XX:TieredStopAtLevel=3} (C1's
 * profiled code) and with the default tiers (C2), as docs/benchmarks.md, "Plain status stores",
 * did. Each access sits in its own small method called from a loop, as the scheduler's accessors
 * are; the loop runs {@code N} times per access and round, 3 rounds, ns per call.
 *
 * <pre>
 *   java -Xint -cp benchmarks.jar dev.gmp.bench.AccessCost 300000
 *   java -XX:TieredStopAtLevel=3 -cp benchmarks.jar dev.gmp.bench.AccessCost 3000000
 *   java -cp benchmarks.jar dev.gmp.bench.AccessCost 30000000
 * </pre>
 *
 * <p>Not JMH on purpose: JMH warms everything up to C2, and the point is the tiers before it.
 */
public final class AccessCost {
  private AccessCost() {}

  static final class Holder {
    volatile int v;
    volatile Object r;
    int plain;
    Object plainRef;
  }

  /** A subclass's own field: AtomicInteger's accessors use Unsafe with no class check. */
  static final class OwnAtomic extends AtomicInteger {}

  private static final AtomicIntegerFieldUpdater<Holder> V =
      AtomicIntegerFieldUpdater.newUpdater(Holder.class, "v");
  private static final AtomicReferenceFieldUpdater<Holder, Object> R =
      AtomicReferenceFieldUpdater.newUpdater(Holder.class, Object.class, "r");
  private static final VarHandle VH_V;
  private static final VarHandle VH_R;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      VH_V = l.findVarHandle(Holder.class, "v", int.class);
      VH_R = l.findVarHandle(Holder.class, "r", Object.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  static void updaterLazySet(Holder h, int i) {
    V.lazySet(h, i);
  }

  static void updaterLazySetRef(Holder h, Object o) {
    R.lazySet(h, o);
  }

  static boolean updaterCas(Holder h, int i) {
    return V.compareAndSet(h, i, i + 1);
  }

  static void varHandleSetRelease(Holder h, int i) {
    VH_V.setRelease(h, i);
  }

  static void varHandleSetReleaseRef(Holder h, Object o) {
    VH_R.setRelease(h, o);
  }

  static void ownAtomicLazySet(OwnAtomic a, int i) {
    a.lazySet(i);
  }

  static void volatileStore(Holder h, int i) {
    h.v = i;
  }

  static void volatileStoreRef(Holder h, Object o) {
    h.r = o;
  }

  static void plainStore(Holder h, int i) {
    h.plain = i;
  }

  /** setRelease spelled as a fence and a plain store (what C2 makes of setRelease anyway). */
  static void releaseFenceStore(Holder h, int i) {
    VarHandle.releaseFence();
    h.plain = i;
  }

  static void releaseFenceStoreRef(Holder h, Object o) {
    VarHandle.releaseFence();
    h.plainRef = o;
  }

  /** getAcquire spelled as a plain load and a fence. */
  static int loadAcquireFence(Holder h) {
    int v = h.plain;
    VarHandle.acquireFence();
    return v;
  }

  static int volatileLoad(Holder h) {
    return h.v;
  }

  public static void main(String[] args) {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 3_000_000;
    Holder h = new Holder();
    OwnAtomic a = new OwnAtomic();
    Object o = new Object();
    for (int round = 1; round <= 3; round++) {
      StringBuilder sb = new StringBuilder("round " + round + ", ns per call:");
      long t = System.nanoTime();
      for (int i = 0; i < n; i++) {
        updaterLazySet(h, i);
      }
      t = report(sb, "updater lazySet", t, n);
      for (int i = 0; i < n; i++) {
        updaterLazySetRef(h, (i & 1) == 0 ? o : null);
      }
      t = report(sb, "updater lazySet (reference)", t, n);
      for (int i = 0; i < n; i++) {
        updaterCas(h, h.v);
      }
      t = report(sb, "updater compareAndSet", t, n);
      for (int i = 0; i < n; i++) {
        varHandleSetRelease(h, i);
      }
      t = report(sb, "VarHandle setRelease", t, n);
      for (int i = 0; i < n; i++) {
        varHandleSetReleaseRef(h, (i & 1) == 0 ? o : null);
      }
      t = report(sb, "VarHandle setRelease (reference)", t, n);
      for (int i = 0; i < n; i++) {
        ownAtomicLazySet(a, i);
      }
      t = report(sb, "AtomicInteger subclass lazySet", t, n);
      for (int i = 0; i < n; i++) {
        volatileStore(h, i);
      }
      t = report(sb, "volatile store", t, n);
      for (int i = 0; i < n; i++) {
        volatileStoreRef(h, (i & 1) == 0 ? o : null);
      }
      t = report(sb, "volatile store (reference)", t, n);
      for (int i = 0; i < n; i++) {
        plainStore(h, i);
      }
      t = report(sb, "plain store", t, n);
      for (int i = 0; i < n; i++) {
        releaseFenceStore(h, i);
      }
      t = report(sb, "releaseFence + plain store", t, n);
      for (int i = 0; i < n; i++) {
        releaseFenceStoreRef(h, (i & 1) == 0 ? o : null);
      }
      t = report(sb, "releaseFence + plain store (ref)", t, n);
      int sum = 0;
      for (int i = 0; i < n; i++) {
        sum += volatileLoad(h);
      }
      t = report(sb, "volatile load", t, n);
      for (int i = 0; i < n; i++) {
        sum += loadAcquireFence(h);
      }
      report(sb, "plain load + acquireFence", t, n);
      sb.append(sum == 42 ? " " : "");
      System.out.println(sb);
    }
  }

  private static long report(StringBuilder sb, String what, long since, int n) {
    long now = System.nanoTime();
    sb.append(String.format("%n  %-34s %7.1f", what, (now - since) / (double) n));
    return System.nanoTime();
  }
}
