package dev.gmp;

/**
 * Stack headroom for the scheduler's multi-step paths that user code reaches from its own stack
 * (a submission's wake-up). A {@code StackOverflowError} in the middle of one
 * would leave a claim made and not handed on, or the scheduler lock held (the JDK delays the
 * error out of {@code ReentrantLock.lock} to its caller, past the lock): the executor would
 * never run a task again. ForkJoinPool marks its own such paths {@code @ReservedStackAccess},
 * which is not open to a library. So these paths first use more stack than they need, with no
 * state changed: a task that recursed to the limit gets its error before gmp changes anything,
 * as from any other call.
 */
final class StackGuard {
  /**
   * Frames deeper than the guarded paths go (the lock's acquisition, the idle lists, an M's
   * hand-off: about 15), with a margin for interpreted frames, which are larger.
   */
  private static final int DEPTH = 48;

  private StackGuard() {}

  /** Throws StackOverflowError now if the guarded path could overflow later. */
  static void ensure() {
    if (probe(DEPTH) != DEPTH) {
      throw new AssertionError(); // never: keeps the recursion from being optimized away
    }
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

  private static int probe(int n) {
    return n == 0 ? 0 : probe(n - 1) + 1;
  }
}
