package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The P status token of a blocking call never comes round again (no ABA on exitsyscall). */
class PStatusTest {

  /**
   * 2^28 marked calls during one long call wrapped the old 28-bit generation: the old M's token
   * matched again and its exitsyscall CAS could take a P another M held.
   */
  @Test
  void theSyscallTokenDoesNotWrapAfter2To28Calls() {
    P pp = new P(0);
    pp.setStatus(P.Prunning);
    long first = pp.enterSyscall();
    assertTrue(pp.exitSyscall(first));
    for (int i = 0; i < (1 << 28) - 1; i++) {
      long tok = pp.enterSyscall();
      pp.exitSyscall(tok);
    }
    long later = pp.enterSyscall();
    assertNotEquals(first, later, "the generation wrapped");
    assertFalse(pp.exitSyscall(first), "a stale token must not win the CAS");
    assertTrue(pp.exitSyscall(later));
  }
}
