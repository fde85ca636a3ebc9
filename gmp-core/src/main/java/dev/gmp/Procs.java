package dev.gmp;

import java.util.Arrays;

/**
 * An immutable snapshot of allp together with the steal-order table for its length (Go keeps
 * stealOrder next to allp for the same reason: a reader must never pair an array with the
 * coprimes of another length). Replaced as a whole when parallelism changes or sysmon swaps a P.
 */
final class Procs {
  final P[] all;
  final int[] coprimes;

  Procs(P[] all) {
    this.all = all;
    this.coprimes = coprimes(all.length);
  }

  Procs(P[] all, int[] coprimes) {
    this.all = all;
    this.coprimes = coprimes;
  }

  Procs replace(int id, P np) {
    P[] copy = all.clone();
    copy[id] = np;
    return new Procs(copy, coprimes);
  }

  /** Numbers in [1, n] coprime to n: stepping by one of them from any start visits every P once. */
  static int[] coprimes(int n) {
    int[] out = new int[n];
    int k = 0;
    for (int i = 1; i <= n; i++) {
      if (gcd(i, n) == 1) {
        out[k++] = i;
      }
    }
    return Arrays.copyOf(out, k); // no stream: this runs on every executor's creation
  }

  private static int gcd(int a, int b) {
    while (b != 0) {
      int t = a % b;
      a = b;
      b = t;
    }
    return a;
  }
}
