package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The detector's reading of {@code /proc/self/task/TID/syscall}: which calls are the JVM's own
 * waits (held to a time slice) and which are a task's (a read: retaken at the second look).
 */
class BlockDetectorCallTest {
  private static int classify(String line) {
    byte[] b = line.getBytes(StandardCharsets.US_ASCII);
    return BlockDetector.classifyCall(ByteBuffer.wrap(b), b.length);
  }

  @Test
  void readsTheCallNumber() {
    String arch = System.getProperty("os.arch");
    int futex = BlockDetector.futexCalls(arch).length > 0 ? BlockDetector.futexCalls(arch)[0] : -1;
    if (futex >= 0) {
      assertEquals(BlockDetector.IN_VM, classify(futex + " 0x7fec 0x80 0x2 0x0 0x0 0x0 0x7f 0x7f\n"));
    }
    assertEquals(BlockDetector.CALL, classify("0 0x22 0x7fc1 0x1 0xc 0x0 0xd6 0x7f 0x7f\n"));
    assertEquals(BlockDetector.CALL, classify("7 0x22 0x7fc1 0x1 0xc 0x0 0xd6 0x7f 0x7f\n"));
    assertEquals(BlockDetector.ON_CPU, classify("running\n"));
    assertEquals(BlockDetector.IN_VM, classify("-1 0x7ffe 0x7f12\n")); // a fault, not a call
    assertEquals(BlockDetector.ON_CPU, classify("")); // nothing to go on: no verdict
  }

  @Test
  void readsTheStateWordOfAStatLineWhereThereIsNoSyscallFile() {
    assertEquals(true, asleep("4242 (gmp-1) S 4200 4200 1 0 -1 4194368 0 0\n"));
    assertEquals(true, asleep("4242 (gmp-1) D 4200 4200 1 0\n"));
    assertEquals(false, asleep("4242 (gmp-1) R 4200 4200 1 0\n"));
    // The thread's name may hold spaces and parentheses: the state follows the last ')'.
    assertEquals(false, asleep("4242 (a) S (b) R 4200 4200\n"));
    assertEquals(true, asleep("4242 (a) R (b) S 4200 4200\n"));
    assertEquals(false, asleep("4242 (gmp-1)"));
  }

  private static boolean asleep(String line) {
    byte[] b = line.getBytes(StandardCharsets.US_ASCII);
    return BlockDetector.statAsleep(ByteBuffer.wrap(b), b.length);
  }

  @Test
  void knowsTheFutexCallOfEachLinuxArchitecture() {
    assertArrayEquals(new int[] {202, 449, 455}, BlockDetector.futexCalls("amd64"));
    assertArrayEquals(new int[] {98, 449, 455}, BlockDetector.futexCalls("aarch64"));
    assertArrayEquals(new int[] {98, 449, 455}, BlockDetector.futexCalls("riscv64"));
    assertArrayEquals(new int[] {221, 449, 455}, BlockDetector.futexCalls("ppc64le"));
    assertArrayEquals(new int[] {238, 449, 455}, BlockDetector.futexCalls("s390x"));
    assertArrayEquals(new int[] {240, 422, 449, 455}, BlockDetector.futexCalls("arm"));
    assertEquals(0, BlockDetector.futexCalls("sparcv9").length);
  }
}
