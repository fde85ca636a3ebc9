package dev.gmp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Building an executor loads the classes its first tasks need: in a fresh JVM (any other test in
 * this one has loaded them all), the first submission and the first Ms' threads load no class of
 * gmp's, whose loading from a jar would delay the first task (Threads#loadMClasses).
 */
class FreshExecutorTest {

  @Test
  void theFirstTasksLoadNoClassOfGmps() throws Exception {
    ChildJvm.Result r = ChildJvm.run(FreshExecutorMain.class, 120, "-Xlog:class+load");
    assertEquals(0, r.exitValue(), r.stderr());
    List<String> out = r.stdout();
    int built = indexOf(out, "FreshExecutorMain$Built ");
    int ran = indexOf(out, "FreshExecutorMain$Ran ");
    assertTrue(built >= 0 && ran > built, "marker classes not logged: " + out);
    List<String> loaded = out.subList(built + 1, ran).stream()
        .filter(l -> l.contains(" dev.gmp.") && !l.contains("FreshExecutorMain"))
        .toList();
    assertEquals(List.of(), loaded, "gmp classes loaded by the first tasks");
    assertTrue(out.contains("terminated true"), "the executor did not terminate: " + loaded);
  }

  private static int indexOf(List<String> lines, String part) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(part)) {
        return i;
      }
    }
    return -1;
  }
}
