package dev.gmp.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** Go's BenchmarkMatmult (runtime/proc_test.go): see {@link #Matmult}. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(3)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class GoMatmult extends ExecutorBenchmark {
  /** The matrix size (Go: cube root of b.N); the split threshold is Go's 8. */
  @Param({"256"})
  public int matrixSize;

  double[][] a;
  double[][] b;
  double[][] c;

  @Setup(Level.Trial)
  public void matrices() {
    a = matrix(matrixSize, 1);
    b = matrix(matrixSize, 2);
    c = new double[matrixSize][matrixSize];
  }

  private static double[][] matrix(int n, int seed) {
    double[][] m = new double[n][n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        m[i][j] = ((i * 31 + j * 17 + seed) % 97) / 97.0;
      }
    }
    return m;
  }

  // ------------------------------------------------------------- Matmult

  /**
   * Go's recursive matrix multiply: split the largest of i and j in two (one half spawned, the
   * other run inline), split k sequentially, multiply directly below the threshold of 8. Go joins
   * with a channel receive; here each split counts its halves down and continues the parent when
   * both are done, so no worker ever blocks.
   */
  @Benchmark
  public double Matmult() {
    int n = matrixSize;
    for (double[] row : c) {
      java.util.Arrays.fill(row, 0.0);
    }
    CountDownLatch done = new CountDownLatch(1);
    matmult(0, n, 0, n, 0, n, done::countDown);
    Util.await(done, "Matmult");
    return c[n / 2][n / 3];
  }

  private interface Cont {
    void done();
  }

  private static final class Join implements Cont {
    private final AtomicInteger pending = new AtomicInteger(2);
    private final Cont parent;

    Join(Cont parent) {
      this.parent = parent;
    }

    @Override
    public void done() {
      if (pending.decrementAndGet() == 0) {
        parent.done();
      }
    }
  }

  private static final int THRESHOLD = 8;

  private void matmult(int i0, int i1, int j0, int j1, int k0, int k1, Cont k) {
    int di = i1 - i0;
    int dj = j1 - j0;
    int dk = k1 - k0;
    if (di >= dj && di >= dk && di >= THRESHOLD) {
      int mi = i0 + di / 2;
      Join join = new Join(k);
      exec.execute(() -> matmult(i0, mi, j0, j1, k0, k1, join));
      matmult(mi, i1, j0, j1, k0, k1, join);
    } else if (dj >= dk && dj >= THRESHOLD) {
      int mj = j0 + dj / 2;
      Join join = new Join(k);
      exec.execute(() -> matmult(i0, i1, j0, mj, k0, k1, join));
      matmult(i0, i1, mj, j1, k0, k1, join);
    } else if (dk >= THRESHOLD) {
      // deliberately sequential (both halves write the same C cells), as in Go
      int mk = k0 + dk / 2;
      matmult(i0, i1, j0, j1, k0, mk, () -> matmult(i0, i1, j0, j1, mk, k1, k));
    } else {
      double[][] a = this.a;
      double[][] b = this.b;
      double[][] c = this.c;
      for (int i = i0; i < i1; i++) {
        double[] ci = c[i];
        double[] ai = a[i];
        for (int j = j0; j < j1; j++) {
          double s = ci[j];
          for (int kk = k0; kk < k1; kk++) {
            s += ai[kk] * b[kk][j];
          }
          ci[j] = s;
        }
      }
      k.done();
    }
  }
}
