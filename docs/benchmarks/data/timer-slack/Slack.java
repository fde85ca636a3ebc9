import java.nio.file.*;
import java.util.concurrent.locks.LockSupport;
public class Slack {
  static void measure(String label) {
    for (long ns : new long[]{1_000, 20_000, 50_000, 100_000}) {
      long[] d = new long[4000];
      for (int w = 0; w < 2; w++)
        for (int i = 0; i < d.length; i++) { long t = System.nanoTime(); LockSupport.parkNanos(ns); d[i] = System.nanoTime() - t; }
      java.util.Arrays.sort(d);
      System.out.printf("%s parkNanos(%d us): p10 %.0f p50 %.0f p90 %.0f us%n", label, ns/1000, d[400]/1e3, d[2000]/1e3, d[3600]/1e3);
    }
  }
  public static void main(String[] a) throws Exception {
    Thread t = new Thread(() -> {
      try {
        Path self = Files.readSymbolicLink(Path.of("/proc/thread-self"));
        String tid = self.getFileName().toString();
        System.out.println("thread-self -> " + self + "; task dir has timerslack_ns: " + Files.exists(Path.of("/proc/thread-self/timerslack_ns")));
        Path f = Path.of("/proc/" + tid + "/timerslack_ns");
        System.out.println(f + " = " + Files.readString(f).trim());
        measure("before");
        Files.writeString(f, "1000");
        System.out.println(f + " = " + Files.readString(f).trim() + " (leader: " + Files.readString(Path.of("/proc/self/timerslack_ns")).trim() + ")");
        measure("slack 1us");
      } catch (Exception e) { e.printStackTrace(); }
    });
    t.start(); t.join();
  }
}
