import java.util.concurrent.CountDownLatch;

/**
 * The first hand-offs of an unmarked blocking task in a fresh JVM: p=1, a task blocks (sleeps
 * 400 ms, or with "latch" awaits a latch), and the microseconds until a task queued behind it
 * starts, four times in a row. javac -cp CORE_JAR HandOff.java; java -cp CORE_JAR:. HandOff [latch]
 */
public class HandOff {
  public static void main(String[] a) throws Exception {
    boolean latch = a.length > 0 && a[0].equals("latch");
    var ex = dev.gmp.GmpExecutor.create(1);
    CountDownLatch gate = new CountDownLatch(1);
    ex.submit(() -> {}).get();
    StringBuilder sb = new StringBuilder();
    for (int k = 0; k < 4; k++) {
      CountDownLatch started = new CountDownLatch(1);
      ex.execute(() -> {
        started.countDown();
        try {
          if (latch) {
            gate.await();
          } else {
            Thread.sleep(400);
          }
        } catch (InterruptedException e) {
          // shutdownNow
        }
      });
      started.await();
      CountDownLatch ran = new CountDownLatch(1);
      long t0 = System.nanoTime();
      ex.execute(ran::countDown);
      ran.await();
      sb.append(" ").append((System.nanoTime() - t0) / 1000);
    }
    System.out.println("handoff-us" + sb);
    gate.countDown();
    ex.shutdownNow();
  }
}
