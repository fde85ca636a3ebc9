import dev.gmp.bench.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;
import org.openjdk.jmh.infra.Blackhole;
public class FtPad {
  static final boolean PAD = Boolean.getBoolean("pad");
  static abstract class N { abstract void complete(); }
  static final class Node extends N {
    static final AtomicIntegerFieldUpdater<Node> P = AtomicIntegerFieldUpdater.newUpdater(Node.class, "pending");
    final N parent; final CountDownLatch root; volatile int pending;
    Node(N parent, CountDownLatch root) { this.parent = parent; this.root = root; pending = root != null ? 1 : 2; }
    void complete() { Node n = this; while (n != null && P.decrementAndGet(n) == 0) { if (n.root != null) { n.root.countDown(); return; } n = (Node) n.parent; } }
  }
  static final class PNode extends N {
    long a0, a1, a2, a3, a4, a5, a6, a7;
    static final AtomicIntegerFieldUpdater<PNode> P = AtomicIntegerFieldUpdater.newUpdater(PNode.class, "pending");
    final N parent; final CountDownLatch root; volatile int pending;
    long b0, b1, b2, b3, b4, b5, b6, b7;
    PNode(N parent, CountDownLatch root) { this.parent = parent; this.root = root; pending = root != null ? 1 : 2; }
    void complete() { PNode n = this; while (n != null && P.decrementAndGet(n) == 0) { if (n.root != null) { n.root.countDown(); return; } n = (PNode) n.parent; } }
  }
  static N mk(N parent, CountDownLatch root) { return PAD ? new PNode(parent, root) : new Node(parent, root); }
  static void node(ExecutorService ex, int level, N completer) {
    if (level == 0) { Blackhole.consumeCPU(20); completer.complete(); return; }
    N me = mk(completer, null);
    ex.execute(() -> node(ex, level - 1, me));
    node(ex, level - 1, me);
  }
  static void tree(ExecutorService ex) throws Exception { CountDownLatch done = new CountDownLatch(1); N root = mk(null, done); ex.execute(() -> node(ex, 16, root)); done.await(); }
  static long[] snap() { try { return (long[]) Class.forName("dev.gmp.Instr").getMethod("snap").invoke(null); } catch (Exception e) { return null; } }
  public static void main(String[] a) throws Exception {
    String e = a[0]; int p = Integer.parseInt(a[1]); int ops = Integer.parseInt(a[2]);
    ExecutorService ex = Execs.create(e, p);
    long end = System.nanoTime() + 3_000_000_000L;
    while (System.nanoTime() < end) tree(ex);
    long[] c0 = snap();
    double[] t = new double[ops];
    for (int i = 0; i < ops; i++) { long x = System.nanoTime(); tree(ex); t[i] = (System.nanoTime() - x) / 1e6; }
    long[] c1 = snap();
    java.util.Arrays.sort(t);
    if (c0 != null) System.out.printf("  per op: cross %.0f putSlowGs %.0f getBatchGs %.0f get61 %.0f%n", (c1[0]-c0[0])/(double)ops, (c1[1]-c0[1])/(double)ops, (c1[2]-c0[2])/(double)ops, (c1[3]-c0[3])/(double)ops);
    System.out.printf("%s pad=%s p=%d median %.2f p90 %.2f%n", e, PAD, p, t[ops/2], t[ops*9/10]);
    Execs.shutdown(ex);
  }
}
