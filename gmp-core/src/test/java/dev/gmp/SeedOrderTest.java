package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.RepeatedTest;

class SeedOrderTest {

  /**
   * Seed 001: with one processor, a task that spawns 0..9 and returns runs them as 9 0 1 .. 8:
   * each spawn takes runnext and pushes the previous runnext to the ring's tail, which the owner
   * takes oldest first. (gmp's newest-first pop, RunQueue#popNewest, is for two or more
   * processors.) A long time slice keeps sysmon from demoting the runnext chain on a loaded
   * machine.
   */
  @RepeatedTest(5)
  void spawnOrderWithOneProcessor() {
    try (TestSupport.Closer cex = TestSupport.closer(GmpExecutor.builder().parallelism(1).timeSlice(Duration.ofMinutes(1)).build())) {
      GmpExecutor ex = cex.ex();
      List<Integer> order = new ArrayList<>(); // one processor: only one task at a time
      CountDownLatch done = new CountDownLatch(10);
      ex.execute(
          () -> {
            for (int i = 0; i < 10; i++) {
              int id = i;
              ex.execute(
                  () -> {
                    synchronized (order) {
                      order.add(id);
                    }
                    done.countDown();
                  });
            }
          });
      TestSupport.await(done, "the 10 spawned tasks");
      synchronized (order) {
        assertEquals(List.of(9, 0, 1, 2, 3, 4, 5, 6, 7, 8), order);
      }
    }
  }
}
