package dev.gmp.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A blocking call to a backend that answers after 1 ms, nobody marking it: what a JDBC or HTTP
 * client call does to the thread that makes it. The caller blocks in a read (RUNNABLE to Java,
 * asleep in the kernel), unlike {@code Thread.sleep} (TIMED_WAITING), so an executor that
 * notices unmarked blocking has to ask the kernel. The backend is one thread of its own that
 * writes a byte into the caller's pipe 1 ms after the call; pipes are pooled, as connections are.
 */
final class BackendCall {
  private static final ScheduledExecutorService BACKEND =
      Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "backend");
        t.setDaemon(true);
        return t;
      });

  private static final ConcurrentLinkedQueue<Pipe> POOL = new ConcurrentLinkedQueue<>();

  private BackendCall() {}

  /** Blocks about 1 ms in a pipe read. */
  static void call() {
    try {
      Pipe p = POOL.poll();
      if (p == null) {
        p = Pipe.open();
      }
      Pipe pipe = p;
      BACKEND.schedule(() -> pipe.sink().write(ByteBuffer.wrap(new byte[1])), 1,
          TimeUnit.MILLISECONDS);
      ByteBuffer one = ByteBuffer.allocate(1);
      while (one.hasRemaining()) {
        pipe.source().read(one);
      }
      POOL.offer(pipe);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
