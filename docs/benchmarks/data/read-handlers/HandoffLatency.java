import dev.gmp.GmpExecutor;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.*;
import java.util.concurrent.*;

/** Time from a task entering an unmarked 5 ms wait to the next queued task's start, p=1. */
public class HandoffLatency {
  public static void main(String[] a) throws Exception {
    String kind = a[0];
    int n = Integer.parseInt(a[1]);
    Pipe pipe = Pipe.open();
    ScheduledExecutorService backend = Executors.newSingleThreadScheduledExecutor();
    long[] lat = new long[n];
    try (GmpExecutor e = GmpExecutor.create(1)) {
      for (int i = 0; i < n + 200; i++) {
        CountDownLatch done = new CountDownLatch(2);
        long[] t = new long[2];
        e.execute(() -> {
          e.execute(() -> { t[1] = System.nanoTime(); done.countDown(); });
          t[0] = System.nanoTime();
          if (kind.equals("sleep")) {
            try { Thread.sleep(5); } catch (InterruptedException x) {}
          } else {
            backend.schedule(() -> pipe.sink().write(ByteBuffer.wrap(new byte[1])), 5, TimeUnit.MILLISECONDS);
            try { pipe.source().read(ByteBuffer.allocate(1)); } catch (Exception x) { throw new RuntimeException(x); }
          }
          done.countDown();
        });
        done.await();
        if (i >= 200) lat[i - 200] = t[1] - t[0];
        Thread.sleep(2);
      }
    }
    backend.shutdown();
    Arrays.sort(lat);
    System.out.printf("%s: hand-off after p10 %d p50 %d p90 %d p99 %d us%n", kind, lat[n/10]/1000, lat[n/2]/1000, lat[n*9/10]/1000, lat[n*99/100]/1000);
  }
}
