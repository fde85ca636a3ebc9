import java.util.concurrent.*;
public class HandOffLatch {
  public static void main(String[] a) throws Exception {
    var ex = dev.gmp.GmpExecutor.create(1); CountDownLatch gate = new CountDownLatch(1);
    ex.submit(() -> {}).get();
    StringBuilder sb = new StringBuilder();
    for (int k = 0; k < 4; k++) {
      CountDownLatch started = new CountDownLatch(1);
      ex.execute(() -> { started.countDown(); try { gate.await(); } catch (InterruptedException e) {} });
      started.await();
      CountDownLatch ran = new CountDownLatch(1);
      long t0 = System.nanoTime();
      ex.execute(ran::countDown);
      ran.await();
      sb.append(" ").append((System.nanoTime() - t0) / 1000);
    }
    System.out.println("handoff-us" + sb);
    gate.countDown(); ex.shutdownNow();
  }
}
