package dev.gmp.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * A closed-loop HTTP/1.1 load generator on loopback: {@code n} keep-alive connections driven by
 * ONE thread through a selector (the caller's), each sending its next GET as soon as the previous
 * response is complete, so exactly {@code n} requests are always in flight. One thread with a
 * selector costs the client far less CPU than n blocking threads (one select serves every
 * connection that is ready), which matters when client and server share two cores; it is the same
 * client for every executor. Latency is send-to-last-byte of each response, in nanoseconds, into the
 * histogram passed to {@link #run}.
 *
 * <p>Parsing is what the JDK's HttpServer answers with: a status line, headers with a
 * Content-length, a body of that length; nothing else is pipelined on a connection.
 */
final class KeepAliveClient implements AutoCloseable {
  private static final byte[] REQUEST =
      "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  /** No response for this long means the server (its executor) lost or starved requests. */
  private static final long STALL_MS = TimeUnit.SECONDS.toMillis(Util.OP_TIMEOUT_S);

  private final Selector selector;
  private final Conn[] conns;
  private Histogram hist;
  private int done;

  KeepAliveClient(InetSocketAddress server, int n) throws IOException {
    selector = Selector.open();
    conns = new Conn[n];
    for (int i = 0; i < n; i++) {
      SocketChannel ch = SocketChannel.open(server);
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      ch.configureBlocking(false);
      conns[i] = new Conn(ch);
      ch.register(selector, SelectionKey.OP_READ, conns[i]);
    }
  }

  /**
   * Runs until {@code responses} more responses are complete, recording each latency. Connections
   * with no request in flight (the first call) send one; every completed response sends the next,
   * so requests in flight when this returns are picked up by the next call.
   */
  void run(int responses, Histogram into) throws IOException {
    hist = into;
    done = 0;
    for (Conn c : conns) {
      if (c.sentAt == 0) {
        c.send();
      }
    }
    while (done < responses) {
      if (selector.select(this::ready, STALL_MS) == 0 && done < responses) {
        throw new IllegalStateException(
            "no HTTP response for " + STALL_MS + " ms: the server's executor lost requests");
      }
    }
  }

  private void ready(SelectionKey key) {
    Conn c = (Conn) key.attachment();
    try {
      if (c.read()) {
        hist.recordValue(Math.max(0, System.nanoTime() - c.sentAt));
        done++;
        c.send();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() throws IOException {
    for (Conn c : conns) {
      c.ch.close();
    }
    selector.close();
  }

  private static final byte[] CONTENT_LENGTH =
      "\r\ncontent-length:".getBytes(StandardCharsets.US_ASCII);

  private static final class Conn {
    final SocketChannel ch;
    final ByteBuffer in = ByteBuffer.allocate(16 * 1024);
    final ByteBuffer out = ByteBuffer.wrap(REQUEST);
    long sentAt;

    Conn(SocketChannel ch) {
      this.ch = ch;
    }

    void send() throws IOException {
      out.clear();
      sentAt = System.nanoTime();
      while (out.hasRemaining()) {
        ch.write(out); // 34 bytes into an empty socket buffer: written at once
      }
    }

    /** Reads what is there; true once a whole response has arrived (then the buffer is reset). */
    boolean read() throws IOException {
      if (ch.read(in) < 0) {
        throw new IOException("the server closed a keep-alive connection");
      }
      int end = headerEnd();
      if (end < 0) {
        return false;
      }
      if (in.position() < end + contentLength(end)) {
        return false;
      }
      in.clear();
      return true;
    }

    private int headerEnd() {
      byte[] a = in.array();
      for (int i = 3, n = in.position(); i < n; i++) {
        if (a[i] == '\n' && a[i - 1] == '\r' && a[i - 2] == '\n' && a[i - 3] == '\r') {
          return i + 1;
        }
      }
      return -1;
    }

    /** The Content-length header's value, found without allocating (once per response). */
    private int contentLength(int end) {
      byte[] a = in.array();
      byte[] name = CONTENT_LENGTH;
      outer:
      for (int i = 0; i + name.length < end; i++) {
        for (int k = 0; k < name.length; k++) {
          if (Character.toLowerCase(a[i + k]) != name[k]) {
            continue outer;
          }
        }
        int v = 0;
        for (int j = i + name.length; j < end && a[j] != '\r'; j++) {
          if (a[j] >= '0' && a[j] <= '9') {
            v = v * 10 + (a[j] - '0');
          }
        }
        return v;
      }
      throw new IllegalStateException(
          "a response without Content-length: " + new String(a, 0, end, StandardCharsets.US_ASCII));
    }
  }
}
