package dev.gmp;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Run by OutOfMemoryTest in a JVM with a small heap (Serial GC, so the free space is what was
 * freed): a task on the only P queues a backlog that has grown the global queue's array, fills the
 * heap but 1 MB, and goes on spawning until execute throws OutOfMemoryError (the array's next
 * doubling needs 2 MB; later a G's own allocation fails). Every execute that returned normally was
 * accepted, so once the heap is freed every one of those tasks must run. Prints "ok", or what went
 * wrong.
 */
public final class OutOfMemoryMain {
  private OutOfMemoryMain() {}

  public static void main(String[] args) throws Exception {
    // No time slice: the spawning task keeps the P, so its children overflow its ring.
    GmpExecutor ex = GmpExecutor.builder().parallelism(1).timeSlice(Duration.ofDays(1)).build();
    AtomicLong accepted = new AtomicLong();
    AtomicLong ran = new AtomicLong();
    AtomicLong failedSubmits = new AtomicLong();
    Runnable child = ran::incrementAndGet;
    List<Object> hog = new ArrayList<>();
    ex.submit(() -> {
      for (int i = 0; i < 261_500; i++) { // just below the array's 262,144 slots
        ex.execute(child);
        accepted.incrementAndGet();
      }
      List<byte[]> reserve = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        reserve.add(new byte[1 << 16]);
      }
      for (int chunk : new int[] {1 << 20, 1 << 16, 1 << 12, 1 << 7}) {
        try {
          for (; ; ) {
            hog.add(new byte[chunk]);
          }
        } catch (OutOfMemoryError full) {
          // the heap is full down to this chunk size
        }
      }
      // 1 MB free: room for the Gs spawned next, not for the array's doubling (2 MB)
      reserve.clear();
      for (int i = 0; i < 100_000 && failedSubmits.get() < 3; i++) {
        try {
          ex.execute(child);
          accepted.incrementAndGet();
        } catch (OutOfMemoryError e) {
          failedSubmits.incrementAndGet(); // not accepted: the caller knows
        }
      }
      hog.clear();
      return null;
    }).get();
    hog.clear();
    ex.shutdown();
    boolean terminated = ex.awaitTermination(60, TimeUnit.SECONDS);
    if (terminated && ran.get() == accepted.get()) {
      System.out.println("ok");
    } else {
      System.out.println("accepted " + accepted + ", ran " + ran + ", terminated " + terminated
          + ", failed submits " + failedSubmits);
    }
  }
}
