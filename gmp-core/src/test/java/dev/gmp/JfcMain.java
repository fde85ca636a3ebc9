package dev.gmp;

/** JfcTest's child JVM: marked blocking calls behind a backlog, recorded with gmp.jfc. */
public final class JfcMain {
  private JfcMain() {}

  public static void main(String[] args) throws Exception {
    try (GmpExecutor ex = GmpExecutor.builder().name("jfc").parallelism(2).build()) {
      for (int i = 0; i < 100; i++) {
        ex.submit(() -> GmpExecutor.blocking(() -> {
          Thread.sleep(1);
          return null;
        }));
      }
    }
  }
}
