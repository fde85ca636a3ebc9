package dev.gmp;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Run by VirtualThreadPollerTest in a fresh JVM (with the flag), where nothing has touched the
 * JDK's socket pollers yet: a loopback echo between gmp virtual threads, then gmp is shut down,
 * then the same echo between virtual threads of the JDK's default scheduler. Had the JDK's
 * sub-poller virtual threads been created from a gmp virtual thread, they would be gmp's: gmp
 * could not terminate (they never end) and the default scheduler's I/O would stop with gmp.
 */
public final class VirtualThreadPollerMain {
  private VirtualThreadPollerMain() {}

  public static void main(String[] args) throws Exception {
    int clients = 20;
    GmpExecutor ex = GmpExecutor.builder().name("io").parallelism(2).build();
    System.out.println("gmp " + echo(ex.virtualThreadBuilder(), clients));
    ex.shutdown();
    System.out.println("terminated " + ex.awaitTermination(10, TimeUnit.SECONDS));
    System.out.println("gmp vthreads " + ex.stats().virtualThreads());
    System.out.println("default " + echo(Thread.ofVirtual(), clients));
  }

  /** A server thread, one handler thread per connection and {@code clients} client threads. */
  static int echo(Thread.Builder b, int clients) throws Exception {
    AtomicInteger ok = new AtomicInteger();
    List<Thread> all = java.util.Collections.synchronizedList(new ArrayList<>());
    try (ServerSocket ss = new ServerSocket(0, clients, InetAddress.getLoopbackAddress())) {
      Thread server = b.start(() -> {
        for (int i = 0; i < clients; i++) {
          try {
            Socket s = ss.accept();
            all.add(b.start(() -> {
              try (s; var in = new DataInputStream(s.getInputStream());
                  var out = new DataOutputStream(s.getOutputStream())) {
                s.setSoTimeout(10_000);
                out.writeInt(in.readInt() + 1);
                out.flush();
              } catch (java.io.IOException e) {
                e.printStackTrace(System.out);
              }
            }));
          } catch (java.io.IOException e) {
            e.printStackTrace(System.out);
            return;
          }
        }
      });
      for (int i = 0; i < clients; i++) {
        int k = i;
        all.add(b.start(() -> {
          try (Socket s = new Socket(ss.getInetAddress(), ss.getLocalPort());
              var in = new DataInputStream(s.getInputStream());
              var out = new DataOutputStream(s.getOutputStream())) {
            s.setSoTimeout(10_000);
            out.writeInt(k);
            out.flush();
            if (in.readInt() == k + 1) {
              ok.incrementAndGet();
            }
          } catch (java.io.IOException e) {
            e.printStackTrace(System.out);
          }
        }));
      }
      if (!server.join(Duration.ofSeconds(10))) {
        System.out.println("server stuck");
      }
      for (Thread t : List.copyOf(all)) {
        if (!t.join(Duration.ofSeconds(10))) {
          System.out.println("stuck: " + t);
        }
      }
    }
    return ok.get();
  }
}
