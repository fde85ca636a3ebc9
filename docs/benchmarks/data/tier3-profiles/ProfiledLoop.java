import java.lang.invoke.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;
/**
 * One access in a loop, on one thread or on two at once (each on its own padded object), in the
 * tier a flag picks: ns per iteration, rounds 5-8 of 8 (200,000 iterations each). Two threads
 * run the same loop method, as an executor's threads run the same scheduler methods, so in C1's
 * profiled tier (-XX:TieredStopAtLevel=3) they write the same profile counters.
 *   javac ProfiledLoop.java; java -XX:TieredStopAtLevel=3 -cp . ProfiledLoop KIND THREADS
 * KIND: vol (a volatile store), fence (releaseFence + plain store), ulazy (an updater's lazySet),
 * updater / atomic / varhandle (a CAS through each).
 */
public class ProfiledLoop {
  static final class Box { volatile int v; long pad1,pad2,pad3,pad4,pad5,pad6,pad7,pad8,pad9,pad10,pad11,pad12,pad13,pad14,pad15,pad16; }
  static final class PBox { int v; long pad1,pad2,pad3,pad4,pad5,pad6,pad7,pad8,pad9,pad10,pad11,pad12,pad13,pad14,pad15,pad16; }
  static final class ABox extends AtomicInteger { long pad1,pad2,pad3,pad4,pad5,pad6,pad7,pad8,pad9,pad10,pad11,pad12,pad13,pad14,pad15,pad16; }
  static final AtomicIntegerFieldUpdater<Box> U = AtomicIntegerFieldUpdater.newUpdater(Box.class, "v");
  static final VarHandle VH;
  static { try { VH = MethodHandles.lookup().findVarHandle(Box.class, "v", int.class); } catch (Exception e) { throw new Error(e); } }
  static int updater(Box b, int n) { int s = 0; for (int i = 0; i < n; i++) { int x = b.v; if (U.compareAndSet(b, x, x + 1)) s++; } return s; }
  static int atomic(ABox b, int n) { int s = 0; for (int i = 0; i < n; i++) { int x = b.get(); if (b.compareAndSet(x, x + 1)) s++; } return s; }
  static int varhandle(Box b, int n) { int s = 0; for (int i = 0; i < n; i++) { int x = b.v; if (VH.compareAndSet(b, x, x + 1)) s++; } return s; }
  static int fence(PBox b, int n) { int s = 0; for (int i = 0; i < n; i++) { int x = b.v; VarHandle.releaseFence(); b.v = x + 1; s++; } return s; }
  static int ulazy(Box b, int n) { int s = 0; for (int i = 0; i < n; i++) { int x = b.v; U.lazySet(b, x + 1); s++; } return s; }
  static int vol(Box b, int n) { int s = 0; for (int i = 0; i < n; i++) { int x = b.v; b.v = x + 1; s++; } return s; }
  // called through a tiny non-inlined-ish helper to mimic a small hot method
  static int helperCalls(Box b, int n) { int s = 0; for (int i = 0; i < n; i++) s += tiny(b, i); return s; }
  static int tiny(Box b, int i) { return (i & 1) == 0 ? b.v : 1; }
  public static void main(String[] a) throws Exception {
    String kind = a[0]; int threads = Integer.parseInt(a[1]); int n = 200_000;
    ExecutorService ex = Executors.newFixedThreadPool(threads);
    for (int round = 0; round < 8; round++) {
      CountDownLatch go = new CountDownLatch(1); Future<?>[] fs = new Future<?>[threads]; long[] ns = new long[threads];
      for (int t = 0; t < threads; t++) { int k = t; Box b = new Box(); ABox ab = new ABox(); PBox pb = new PBox();
        fs[t] = ex.submit(() -> { go.await(); long t0 = System.nanoTime();
          int r = switch (kind) { case "updater" -> updater(b, n); case "atomic" -> atomic(ab, n); case "varhandle" -> varhandle(b, n); case "fence" -> fence(pb, n); case "ulazy" -> ulazy(b, n); case "helper" -> helperCalls(b, n); default -> vol(b, n); };
          ns[k] = System.nanoTime() - t0; return r; }); }
      go.countDown(); for (Future<?> f : fs) f.get();
      if (round >= 4) System.out.printf("%.1f ", ns[0] / (double) n);
    }
    System.out.println(" ns/op " + kind + " threads=" + threads);
    ex.shutdown();
  }
}
