package dev.gmp.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.gmp.GmpExecutor;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import java.util.stream.Stream;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.HdrHistogram.Histogram;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.Tomcat;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A real server on each executor, driven on loopback by {@code clients} keep-alive connections in a
 * closed loop ({@link KeepAliveClient}: one selector thread, the JMH thread itself). Servers:
 * {@code jdk}, the JDK's {@code com.sun.net.httpserver.HttpServer} with {@code
 * setExecutor(executor)}; {@code jetty}, Jetty 12's core server (no servlets) with one acceptor and
 * one selector on threads of their own and its request work on the executor ({@link
 * JettyExecutorPool}); {@code tomcat}, embedded Tomcat 11's NIO connector with the executor as its
 * {@code Executor} and one servlet. Each way one server thread calls {@code execute} once per
 * request, from outside the executor: at light load every request is a wake-up. Handlers: {@code
 * tiny} answers "ok"; {@code sleep1} first calls {@code Thread.sleep(1)}, a blocking call nobody
 * marked, which only an executor that notices unmarked blocking (or has a thread per request) can
 * overlap ({@code sleep5}, 5 ms, with {@code -p handler=sleep5}: many clients blocked at once);
 * {@code read1} first waits 1 ms for a backend's answer in a read ({@link BackendCall}: a
 * JDBC call, say), which Java reports as RUNNABLE. The Jetty handler keeps Jetty's default
 * invocation type, blocking: a handler declared non-blocking would run on the selector thread and
 * never reach the executor.
 *
 * <p>Primary score: microseconds per request (lower is better, as everywhere in this suite; req/s
 * = 1e6 / score). Secondary, per iteration: {@code reqPerSec}, {@code p50Us} and {@code p99Us}
 * (send to last byte of the response), {@code peakThreads}, the most platform threads the
 * executor had alive at once ({@link LiveThreads}; for virtual threads the JDK scheduler's
 * carrier pool size at the end of the iteration), and {@code cpuUsPerReq}, the whole process's
 * CPU per response (client, server and executor; getProcessCpuTime's 10 ms ticks are fine over a
 * one-second iteration); for gmp also {@code retakesPerSec}, the processors sysmon took from blocked
 * or long-running tasks.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class HttpServerBench {
  /** Responses per JMH operation (a few ms at the tiny handler's rate, ~0.1 s at sleep1's worst). */
  static final int BATCH = 200;

  private static final byte[] OK = "ok".getBytes(StandardCharsets.US_ASCII);

  /** Tomcat logs each start and stop at INFO; held, so that the level set on it sticks. */
  private static final Logger TOMCAT_LOG = Logger.getLogger("org.apache");

  @Param({"gmp", "fjp", "tpe", "cached", "vthread"})
  public String executor;

  @Param({"2"})
  public int parallelism;

  @Param({"4", "16"})
  public int clients;

  @Param({"tiny", "sleep1", "read1"})
  public String handler;

  @Param({"jdk", "jetty"}) // and tomcat: -p server=tomcat
  public String server;

  ExecutorService exec;
  HttpServer jdkServer;
  Server jettyServer;
  Tomcat tomcat;
  Path tomcatDir;
  KeepAliveClient client;
  final LiveThreads threads = new LiveThreads();

  /** The handler's work in place of {@link #handler}'s, when set (tests). */
  Runnable workOverride;

  /** read1's backend call inside GmpExecutor.blocking (which just runs it off gmp's threads). */
  private static void markedCall() {
    try {
      GmpExecutor.blocking(() -> {
        BackendCall.call();
        return null;
      });
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * What the handler does before it answers: nothing, an unmarked sleep, a backend call, or the
   * same call marked as blocking (GrpcServerBench too).
   */
  static Runnable work(String handler) {
    return switch (handler) {
      case "tiny" -> () -> {};
      case "sleep1" -> () -> Util.sleepNanos(1_000_000);
      case "sleep5" -> () -> Util.sleepNanos(5_000_000); // not in the default set: -p handler=
      case "read1" -> BackendCall::call;
      case "read1marked" -> HttpServerBench::markedCall; // not in the default set: -p handler=
      default ->
          throw new IllegalArgumentException(
              "handler must be tiny, sleep1, sleep5, read1 or read1marked, was " + handler);
    };
  }

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    Runnable work = workOverride != null ? workOverride : work(handler);
    exec = Execs.create(executor, parallelism, threads);
    InetSocketAddress address =
        switch (server) {
          case "jdk" -> startJdk(work);
          case "jetty" -> startJetty(work);
          case "tomcat" -> startTomcat(work);
          default ->
              throw new IllegalArgumentException(
                  "server must be jdk, jetty or tomcat, was " + server);
        };
    client = new KeepAliveClient(address, clients);
  }

  private InetSocketAddress startJdk(Runnable work) throws IOException {
    HttpHandler h = ex -> {
      work.run();
      respond(ex);
    };
    jdkServer =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
    jdkServer.createContext("/", h);
    jdkServer.setExecutor(exec);
    jdkServer.start();
    return jdkServer.getAddress();
  }

  private InetSocketAddress startJetty(Runnable work) throws Exception {
    jettyServer = JettyExecutorPool.newServer(exec);
    // One acceptor and one selector, what Jetty picks for 2 to 8 cores, fixed so that a bigger
    // machine runs the same server; both on threads of their own (JettyExecutorPool).
    ServerConnector connector =
        new ServerConnector(jettyServer, 1, 1, new HttpConnectionFactory());
    connector.setHost(InetAddress.getLoopbackAddress().getHostAddress());
    connector.setPort(0);
    connector.setAcceptQueueSize(1024);
    jettyServer.addConnector(connector);
    jettyServer.setHandler(new JettyHandler(work));
    jettyServer.start();
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), connector.getLocalPort());
  }

  private InetSocketAddress startTomcat(Runnable work) throws Exception {
    TOMCAT_LOG.setLevel(java.util.logging.Level.WARNING);
    tomcat = new Tomcat();
    tomcatDir = Files.createTempDirectory("gmp-tomcat");
    tomcat.setBaseDir(tomcatDir.toString());
    Connector connector = new Connector("HTTP/1.1"); // the NIO connector, Tomcat's default
    connector.setPort(0);
    connector.setProperty("address", InetAddress.getLoopbackAddress().getHostAddress());
    connector.setProperty("acceptCount", "1024");
    // Tomcat closes a connection after 100 requests by default; the client keeps its connections.
    connector.setProperty("maxKeepAliveRequests", "-1");
    connector.getProtocolHandler().setExecutor(exec); // request processing on the executor
    tomcat.getService().addConnector(connector);
    StandardContext ctx = (StandardContext) tomcat.addContext("", null);
    // Its leak checks at stop want --add-opens, and warn without it; there is nothing to leak.
    ctx.setClearReferencesThreadLocals(false);
    ctx.setClearReferencesRmiTargets(false);
    Tomcat.addServlet(ctx, "ok", new TomcatServlet(work));
    ctx.addServletMappingDecoded("/*", "ok");
    tomcat.start();
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), connector.getLocalPort());
  }

  /** "ok", after the handler's work. */
  private static final class TomcatServlet extends HttpServlet {
    private final transient Runnable work;

    TomcatServlet(Runnable work) {
      this.work = work;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      work.run();
      resp.setStatus(200);
      resp.setContentLength(OK.length);
      resp.getOutputStream().write(OK);
    }
  }

  /** "ok", after the handler's work; Jetty's default (blocking) invocation type. */
  private static final class JettyHandler extends Handler.Abstract {
    private final Runnable work;

    JettyHandler(Runnable work) {
      this.work = work;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
      work.run();
      response.setStatus(200);
      response.getHeaders().put(HttpHeader.CONTENT_LENGTH, OK.length);
      response.write(true, ByteBuffer.wrap(OK), callback);
      return true;
    }
  }

  private static void respond(HttpExchange ex) throws IOException {
    ex.getRequestBody().close();
    ex.sendResponseHeaders(200, OK.length);
    try (OutputStream os = ex.getResponseBody()) {
      os.write(OK);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    client.close();
    if (jdkServer != null) {
      jdkServer.stop(0);
    }
    if (jettyServer != null) {
      jettyServer.stop();
    }
    if (tomcat != null) {
      tomcat.stop();
      tomcat.destroy();
    }
    Execs.shutdown(exec);
    if (tomcatDir != null) {
      try (Stream<Path> files = Files.walk(tomcatDir)) { // its work directory, deepest first
        for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(f);
        }
      }
    }
  }

  /** Latency percentiles, throughput and peak threads of one iteration (JMH secondary results). */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Stats {
    final Histogram hist = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    long startNanos;
    long lastNanos;
    long responses;
    long cpuStart;
    long cpuLast;
    long retakesStart;
    long retakesLast;
    int peak;

    @Setup(Level.Iteration)
    public void reset(HttpServerBench b) {
      hist.reset();
      responses = 0;
      b.threads.resetPeak();
      peak = 0;
      startNanos = System.nanoTime();
      lastNanos = startNanos;
      cpuStart = CpuClock.process();
      cpuLast = cpuStart;
      retakesStart = retakes(b.exec);
      retakesLast = retakesStart;
    }

    public double p50Us() {
      return hist.getValueAtPercentile(50) / 1000.0;
    }

    public double p99Us() {
      return hist.getValueAtPercentile(99) / 1000.0;
    }

    public double reqPerSec() {
      return lastNanos == startNanos ? 0 : responses * 1e9 / (lastNanos - startNanos);
    }

    public double peakThreads() {
      return peak;
    }

    /** gmp's retakes (stats().retakes()) per second of the iteration; 0 for the others. */
    public double retakesPerSec() {
      return lastNanos == startNanos
          ? 0
          : (retakesLast - retakesStart) * 1e9 / (lastNanos - startNanos);
    }

    /** Process CPU (all threads: server, executor, client, JIT) per response, microseconds. */
    public double cpuUsPerReq() {
      return responses == 0 ? 0 : (cpuLast - cpuStart) / 1000.0 / responses;
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void httpServer(Stats st) throws IOException {
    client.run(BATCH, st.hist);
    st.responses += BATCH;
    st.lastNanos = System.nanoTime();
    st.cpuLast = CpuClock.process();
    st.retakesLast = retakes(exec);
    int p = executor.equals("vthread") ? Execs.virtualSchedulerPoolSize() : threads.peak();
    if (p > st.peak) {
      st.peak = p;
    }
  }

  static long retakes(ExecutorService es) {
    return es instanceof GmpExecutor g ? g.stats().retakes() : 0;
  }

  /**
   * A stats line for gmp after a run, for diagnosis (printed by {@link #main} once a second). Its
   * first call starts gmp's latency sampling, so the first line shows none.
   */
  static String gmpStats(ExecutorService es) {
    return es instanceof GmpExecutor g ? g.stats() + " " + g.schedulingLatency() : "";
  }

  /**
   * Quick look without JMH: {@code java -cp benchmarks.jar dev.gmp.bench.HttpServerBench EXECUTOR
   * CLIENTS HANDLER [SECONDS [SERVER [PARALLELISM]]]} (defaults gmp 16 tiny 10 jdk 2) prints req/s,
   * p50/p99 and peak threads once a second.
   *
   * @param args as above
   * @throws Exception if the server or the client fails
   */
  public static void main(String[] args) throws Exception {
    HttpServerBench b = new HttpServerBench();
    b.executor = args.length > 0 ? args[0] : "gmp";
    b.clients = args.length > 1 ? Integer.parseInt(args[1]) : 16;
    b.handler = args.length > 2 ? args[2] : "tiny";
    int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 10;
    b.server = args.length > 4 ? args[4] : "jdk";
    b.parallelism = args.length > 5 ? Integer.parseInt(args[5]) : 2;
    b.setUp();
    try {
      Stats st = new Stats();
      for (int s = 0; s < seconds; s++) {
        st.reset(b);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (System.nanoTime() < end) {
          b.httpServer(st);
        }
        System.out.printf(
            "%s %s p=%d clients=%d %s: %.0f req/s p50 %.0f us p99 %.0f us peakThreads %d cpu/req %.1f us"
                + " %s%n",
            b.server, b.executor, b.parallelism, b.clients, b.handler, st.reqPerSec(), st.p50Us(), st.p99Us(), st.peak,
            st.cpuUsPerReq(),
            gmpStats(b.exec));
      }
    } finally {
      b.tearDown();
    }
  }
}
