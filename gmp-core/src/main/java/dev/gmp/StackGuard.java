package dev.gmp;

/**
 * Stack headroom for the scheduler's multi-step paths that user code reaches from its own stack
 * (a submission's wake-up). A {@code StackOverflowError} in the middle of one
 * would leave a claim made and not handed on, or the scheduler lock held (the JDK delays the
 * error out of {@code ReentrantLock.lock} to its caller, past the lock): the executor would
 * never run a task again. The JDK marks its locks' such paths {@code @ReservedStackAccess},
 * which is not open to a library. So these paths first use more stack than they need, with no
 * state changed: a task that recursed to the limit gets its error before gmp changes anything,
 * as from any other call.
 */
final class StackGuard {
  /**
   * Frames deeper than the guarded paths go (the lock's acquisition, the idle lists, an M's
   * hand-off, a blocking call's way back to a P and its park: about 20), with a margin for
   * interpreted frames, which are larger.
   */
  private static final int DEPTH = 48;

  private StackGuard() {}

  /** Throws StackOverflowError now if the guarded path could overflow later. */
  static void ensure() {
    if (probe(DEPTH, 1, 2, 3, 4, 5, 6, 7, 8) == 0) {
      throw new AssertionError(); // never: keeps the recursion from being optimized away
    }
  }

  /**
   * One frame per level, each keeping eight longs live across its call, so that compiled frames
   * are as large as a scheduler method's (about 100 bytes), not the 16 to 32 of a frame with
   * nothing to keep: the guard reserves as much stack compiled as interpreted, near enough.
   */
  private static long probe(int n, long a, long b, long c, long d, long e, long f, long g,
      long h) {
    if (n == 0) {
      return a | 1;
    }
    long r = probe(n - 1, b, c, d, e, f, g, h, a);
    return r + (a ^ b ^ c ^ d ^ e ^ f ^ g ^ h);
  }

  /** Whether the guarded path fits: for a step that may simply be skipped. */
  static boolean hasRoom() {
    try {
      ensure();
      return true;
    } catch (StackOverflowError e) {
      return false;
    }
  }
}
