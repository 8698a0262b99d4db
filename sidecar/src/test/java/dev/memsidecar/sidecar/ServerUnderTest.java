package dev.memsidecar.sidecar;

import dev.memsidecar.core.CoreModule;
import dev.memsidecar.core.MemoryEngine;
import dev.memsidecar.core.config.EngineConfig;
import dev.memsidecar.core.config.Flags;
import dev.memsidecar.core.config.Maintenance;
import dev.memsidecar.core.config.ProfileSpec;
import dev.memsidecar.core.config.RunConfig;
import dev.memsidecar.core.config.ScopeKind;
import io.grpc.ForwardingServerCall;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.ServerBuilder;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.IntFunction;

/**
 * A {@link SidecarServer} over a real engine, in-process or on a loopback port, with a channel to
 * it. It also records the status of every call the server answers (its {@code ServerCall.close}),
 * as the server sent it, even for calls the client had already given up on.
 */
final class ServerUnderTest implements AutoCloseable {
  final SidecarServer server;
  final ManagedChannel channel;

  /** The statuses the server closed calls with, in order (health and reflection included). */
  final BlockingQueue<Status> closed = new LinkedBlockingQueue<>();

  /**
   * @param profiles the active profiles; memory files are kept only by their own providers
   */
  static ServerUnderTest inProcess(
      Path data, int maxConcurrentCalls, int maxQueuedCalls, ProfileSpec... profiles) {
    String name = InProcessServerBuilder.generateName();
    return new ServerUnderTest(
        List.of(InProcessServerBuilder.forName(name)),
        data,
        maxConcurrentCalls,
        maxQueuedCalls,
        null,
        profiles,
        port -> InProcessChannelBuilder.forName(name).directExecutor().build());
  }

  /** The same over TCP on 127.0.0.1, on a free port: the transport Main uses. */
  static ServerUnderTest loopback(
      Path data, int maxConcurrentCalls, int maxQueuedCalls, ProfileSpec... profiles) {
    return loopback(data, maxConcurrentCalls, maxQueuedCalls, null, profiles);
  }

  /** Over loopback TCP, every call but health needing {@code authToken} (null: none). */
  static ServerUnderTest loopback(
      Path data,
      int maxConcurrentCalls,
      int maxQueuedCalls,
      String authToken,
      ProfileSpec... profiles) {
    return new ServerUnderTest(
        List.of(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))),
        data,
        maxConcurrentCalls,
        maxQueuedCalls,
        authToken,
        profiles,
        port ->
            Grpc.newChannelBuilderForAddress("127.0.0.1", port, InsecureChannelCredentials.create())
                .build());
  }

  /** Over loopback TCP and also on {@code unix} (not yet published), no token. */
  static ServerUnderTest loopbackAnd(UnixSocket unix, Path data, ProfileSpec... profiles) {
    return new ServerUnderTest(
        List.of(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)), unix.builder()),
        data,
        4,
        4,
        null,
        profiles,
        port ->
            Grpc.newChannelBuilderForAddress("127.0.0.1", port, InsecureChannelCredentials.create())
                .build());
  }

  private ServerUnderTest(
      List<ServerBuilder<?>> builders,
      Path data,
      int maxConcurrentCalls,
      int maxQueuedCalls,
      String authToken,
      ProfileSpec[] profiles,
      IntFunction<ManagedChannel> channelToPort) {
    EngineConfig config =
        new EngineConfig(
            data,
            Flags.ALL_ON,
            List.of(profiles),
            EngineConfig.DEFAULT_GATE_THRESHOLD,
            "hash",
            Maintenance.DEFAULT,
            null,
            null,
            RunConfig.DEFAULT);
    MemoryEngine engine = new CoreModule(config, getClass().getClassLoader()).engine();
    server =
        new SidecarServer(
                builders.stream().<ServerBuilder<?>>map(b -> b.intercept(new Recorder())).toList(),
                engine,
                "test",
                maxConcurrentCalls,
                maxQueuedCalls,
                authToken)
            .start();
    channel = channelToPort.apply(server.port());
  }

  /** An enabled profile on {@code provider} with no settings. */
  static ProfileSpec profile(String id, ScopeKind scope, String provider) {
    return new ProfileSpec(id, scope, provider, true, "", Map.of(), Map.of());
  }

  @Override
  public void close() {
    channel.shutdownNow();
    server.stop(5_000);
  }

  /** Outermost on every call: notes the status each call is closed with. */
  private final class Recorder implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
      return next.startCall(
          new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
              closed.add(status);
              super.close(status, trailers);
            }
          },
          headers);
    }
  }
}
