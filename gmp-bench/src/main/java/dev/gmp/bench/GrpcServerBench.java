package dev.gmp.bench;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Recorder;

/**
 * gRPC with each executor as the server's application executor ({@code
 * ServerBuilder.executor}): the RPC framework of the server targets, beside the JDK
 * HttpServer and Jetty ({@link HttpServerBench}). One unary method on byte arrays (no protobuf, no
 * generated code), served over gRPC's shaded Netty on loopback. The server's Netty event loop
 * hands each call's callbacks to the executor (gRPC's SerializingExecutor: the request, then
 * the half-close that runs the handler, each an {@code execute} from outside the executor), so at
 * light load every call is a wake-up. Handlers: {@code tiny} echoes the request; {@code sleep1}
 * first sleeps 1 ms unmarked (a blocking call nobody declared); {@code read1} first waits 1 ms
 * in a read, unmarked ({@link HttpServerBench#work}).
 *
 * <p>The client is in the same JVM: {@code clients} calls in flight in a closed loop on one
 * channel with its own Netty event loop, completions handled on that loop (directExecutor), so
 * the client costs every executor the same. Printed once a second, in {@link HttpServerBench}'s
 * format: req/s, p50 and p99 (call start to response), the process's CPU per call (client,
 * server, executor and JIT together), and gmp's stats.
 *
 * <p>{@code java -cp benchmarks.jar dev.gmp.bench.GrpcServerBench EXECUTOR CLIENTS HANDLER
 * [SECONDS [PARALLELISM]]} (defaults gmp 16 tiny 10 2).
 */
public final class GrpcServerBench {
  private GrpcServerBench() {}

  /** Byte arrays as they are: a marshaller that copies nothing it need not. */
  private static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  private static final MethodDescriptor<byte[], byte[]> ECHO =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("bench.Echo/Echo")
          .setRequestMarshaller(BYTES)
          .setResponseMarshaller(BYTES)
          .build();

  private static final byte[] REQUEST = "ok".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  /** One closed-loop caller: issues the next call from the previous one's completion. */
  private static final class Caller implements StreamObserver<byte[]> {
    private final ManagedChannel channel;
    private final Recorder latencies;
    private final java.util.concurrent.atomic.LongAdder responses;
    private volatile boolean stop;
    private long started;

    Caller(ManagedChannel channel, Recorder latencies, java.util.concurrent.atomic.LongAdder responses) {
      this.channel = channel;
      this.latencies = latencies;
      this.responses = responses;
    }

    void next() {
      if (stop) {
        return;
      }
      started = System.nanoTime();
      ClientCalls.asyncUnaryCall(channel.newCall(ECHO, CallOptions.DEFAULT), REQUEST, this);
    }

    @Override
    public void onNext(byte[] value) {
      latencies.recordValue(System.nanoTime() - started);
      responses.increment();
    }

    @Override
    public void onError(Throwable t) {
      if (!stop) {
        t.printStackTrace();
        stop = true;
      }
    }

    @Override
    public void onCompleted() {
      next();
    }
  }

  public static void main(String[] args) throws Exception {
    String executor = args.length > 0 ? args[0] : "gmp";
    int clients = args.length > 1 ? Integer.parseInt(args[1]) : 16;
    String handler = args.length > 2 ? args[2] : "tiny";
    int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 10;
    int parallelism = args.length > 4 ? Integer.parseInt(args[4]) : 2;
    Runnable work = HttpServerBench.work(handler);
    LiveThreads threads = new LiveThreads();
    ExecutorService exec = Execs.create(executor, parallelism, threads);
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("bench.Echo")
            .addMethod(
                ECHO,
                ServerCalls.asyncUnaryCall(
                    (byte[] request, StreamObserver<byte[]> response) -> {
                      work.run();
                      response.onNext(request);
                      response.onCompleted();
                    }))
            .build();
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .executor(exec)
            .addService(service)
            .build()
            .start();
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
            .usePlaintext()
            .directExecutor()
            .build();
    Recorder latencies = new Recorder(TimeUnit.SECONDS.toNanos(60), 3);
    java.util.concurrent.atomic.LongAdder responses = new java.util.concurrent.atomic.LongAdder();
    Caller[] callers = new Caller[clients];
    try {
      for (int i = 0; i < clients; i++) {
        callers[i] = new Caller(channel, latencies, responses);
        callers[i].next();
      }
      for (int s = 0; s < seconds; s++) {
        threads.resetPeak();
        long r0 = responses.sum();
        long cpu0 = CpuClock.process();
        long t0 = System.nanoTime();
        latencies.reset();
        Thread.sleep(1000);
        long n = responses.sum() - r0;
        double secs = (System.nanoTime() - t0) / 1e9;
        long cpu = CpuClock.process() - cpu0;
        var h = latencies.getIntervalHistogram();
        System.out.printf(
            "grpc %s p=%d clients=%d %s: %.0f req/s p50 %.0f us p99 %.0f us peakThreads %d"
                + " cpu/req %.1f us %s%n",
            executor, parallelism, clients, handler, n / secs,
            h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0,
            threads.peak(), n == 0 ? 0 : cpu / 1000.0 / n, HttpServerBench.gmpStats(exec));
      }
    } finally {
      for (Caller c : callers) {
        if (c != null) {
          c.stop = true;
        }
      }
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      exec.shutdownNow();
    }
  }
}
