package dev.memsidecar.sidecar.cli;

import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.AbstractStub;
import io.grpc.stub.MetadataUtils;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;

/**
 * One client command's connection to a running sidecar: loopback TCP or its Unix socket, the bearer
 * token on every call, and a deadline per call. Closing shuts the channel down.
 */
final class Connection implements AutoCloseable {
  static final String ENV_AUTH_TOKEN = "MEMSIDECAR_AUTH_TOKEN";

  private final ManagedChannel channel;
  private final EpollEventLoopGroup group;
  private final ClientInterceptor auth;
  private final int timeoutSeconds;

  private Connection(
      ManagedChannel channel, EpollEventLoopGroup group, String token, int timeoutSeconds) {
    this.channel = channel;
    this.group = group;
    this.timeoutSeconds = timeoutSeconds;
    Metadata headers = new Metadata();
    if (token != null) {
      headers.put(
          Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
    }
    this.auth = MetadataUtils.newAttachHeadersInterceptor(headers);
  }

  /** A connection over {@code channel} (in process: no token). */
  static Connection of(ManagedChannel channel, int timeoutSeconds) {
    return new Connection(channel, null, null, timeoutSeconds);
  }

  /**
   * Connects as {@code o} says (nothing is sent until the first call).
   *
   * @throws CliException (usage) for a target that is not HOST:PORT, an unreadable token file, or a
   *     Unix socket on a platform without epoll
   */
  static Connection open(ClientOptions o) {
    if (o.timeoutSeconds <= 0) {
      throw CliException.usage("--timeout must be at least 1 second, not " + o.timeoutSeconds);
    }
    String token = token(o);
    if (o.unixSocket != null) {
      if (!Epoll.isAvailable()) {
        throw CliException.usage("--unix-socket needs Linux (epoll); use --target HOST:PORT");
      }
      EpollEventLoopGroup group = new EpollEventLoopGroup(1);
      ManagedChannel channel =
          NettyChannelBuilder.forAddress(new DomainSocketAddress(o.unixSocket.toString()))
              .channelType(EpollDomainSocketChannel.class)
              .eventLoopGroup(group)
              .usePlaintext()
              .build();
      return new Connection(channel, group, token, o.timeoutSeconds);
    }
    int colon = o.target.lastIndexOf(':');
    int port = -1;
    if (colon > 0) {
      try {
        port = Integer.parseInt(o.target.substring(colon + 1));
      } catch (NumberFormatException e) {
        port = -1;
      }
    }
    if (port < 1 || port > 65535) {
      throw CliException.usage("--target must be HOST:PORT, such as 127.0.0.1:7411: " + o.target);
    }
    String host = o.target.substring(0, colon).replaceAll("^\\[(.*)]$", "$1");
    ManagedChannel channel = NettyChannelBuilder.forAddress(host, port).usePlaintext().build();
    return new Connection(channel, null, token, o.timeoutSeconds);
  }

  /** {@code stub} with the token and this command's deadline. */
  io.grpc.Channel channel() {
    return channel;
  }

  /** The token interceptor alone, for a stream that must outlive one call's deadline. */
  ClientInterceptor auth() {
    return auth;
  }

  <S extends AbstractStub<S>> S stub(S stub) {
    return stub.withInterceptors(auth).withDeadlineAfter(timeoutSeconds, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (group != null) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  private static String token(ClientOptions o) {
    if (o.tokenFile != null) {
      try {
        return Files.readString(o.tokenFile, StandardCharsets.UTF_8).strip();
      } catch (IOException e) {
        throw CliException.usage("--token-file " + o.tokenFile + " cannot be read: " + e);
      }
    }
    String env = System.getenv(ENV_AUTH_TOKEN);
    return env == null || env.isBlank() ? null : env.strip();
  }
}
