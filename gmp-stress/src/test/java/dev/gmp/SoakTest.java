package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gmp.soak.Soak;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The randomised soak (dev.gmp.soak.Soak): a short smoke run always, a long one tagged slow. */
class SoakTest {
  @Test
  void smoke() throws Exception {
    check(Soak.run(Duration.ofSeconds(6), 20261129L));
  }

  /** -Dtests.exclude= runs it; -Dgmp.soak.seconds=N sets its length (default 60). */
  @Test
  @Tag("slow")
  void soak() throws Exception {
    long seconds = Long.getLong("gmp.soak.seconds", 60);
    check(Soak.run(Duration.ofSeconds(seconds), System.nanoTime()));
  }

  private static void check(Soak.Result r) {
    System.out.println(r);
    assertEquals(0, r.lost, "accepted tasks neither run nor returned");
    assertEquals(0, r.duplicated, "tasks run or returned twice");
    assertEquals(0, r.phantom, "rejected tasks that ran");
    assertEquals(0, r.notTerminated, "rounds that did not terminate");
    assertEquals(0, r.threadsAlive, "worker threads alive after awaitTermination");
    assertEquals(r.accepted, r.ran + r.returned, "accepted = ran + returned");
    assertTrue(r.ok(), r.failures.toString());
    assertTrue(r.ran > 0, "nothing ran");
  }
}
