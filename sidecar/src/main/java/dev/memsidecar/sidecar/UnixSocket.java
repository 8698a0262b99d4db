package dev.memsidecar.sidecar;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.StartupException;
import io.grpc.ServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A gRPC listener on a Unix domain socket (Linux, through Netty's epoll transport), for pods whose
 * containers share a volume rather than a port. Only the sidecar's own user may connect: the socket
 * is bound inside a fresh folder of mode 0700 next to its path, made mode 0600, and only then moved
 * to its path, so it is never reachable with wider permissions. A socket left at the path by an
 * earlier process is replaced (any other file there fails start-up); the socket file is removed at
 * {@link #close}.
 */
final class UnixSocket implements AutoCloseable {
  /** Longest socket path in UTF-8 bytes: Linux's sun_path holds 107 plus the terminating NUL. */
  static final int MAX_PATH_BYTES = 100;

  private final Path socket;
  private final Path privateDir;
  private final Path bound;
  private final EventLoopGroup group;
  private final ServerBuilder<?> builder;

  private UnixSocket(Path socket, Path privateDir, EventLoopGroup group) {
    this.socket = socket;
    this.privateDir = privateDir;
    this.bound = privateDir.resolve("s");
    this.group = group;
    this.builder =
        NettyServerBuilder.forAddress(new DomainSocketAddress(bound.toString()))
            .channelType(EpollServerDomainSocketChannel.class)
            .bossEventLoopGroup(group)
            .workerEventLoopGroup(group);
  }

  /**
   * Prepares a listener for {@code socket} (absolute); the server built from {@link #builder} binds
   * it when started, then call {@link #publish}.
   *
   * @throws StartupException when this platform has no epoll, the path is too long, or its folder
   *     cannot be written
   */
  static UnixSocket prepare(Path socket) {
    requireNonNull(socket, "socket is null");
    if (!Epoll.isAvailable()) {
      throw new StartupException(
          "server.unixSocket: Unix domain sockets need Linux with epoll: "
              + Epoll.unavailabilityCause());
    }
    if (socket.toString().getBytes(StandardCharsets.UTF_8).length > MAX_PATH_BYTES) {
      throw new StartupException(
          "server.unixSocket: the path is over " + MAX_PATH_BYTES + " bytes: " + socket);
    }
    if (Files.exists(socket, LinkOption.NOFOLLOW_LINKS) && !isSocket(socket)) {
      throw new StartupException(
          "server.unixSocket: " + socket + " exists and is not a socket; not replacing it");
    }
    Path parent = socket.toAbsolutePath().getParent();
    Path privateDir =
        parent.resolve(
            ".msc-" + Integer.toHexString(ThreadLocalRandom.current().nextInt() & 0xfffffff));
    try {
      Files.createDirectory(
          privateDir,
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    } catch (IOException | UnsupportedOperationException e) {
      throw new StartupException(
          "server.unixSocket: cannot create a folder in " + parent + ": " + e, e);
    }
    return new UnixSocket(socket, privateDir, new EpollEventLoopGroup(1));
  }

  private static boolean isSocket(Path path) {
    try {
      int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
      return (mode & 0170000) == 0140000; // S_IFMT, S_IFSOCK
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
  }

  /** The builder of the server that listens on this socket. */
  ServerBuilder<?> builder() {
    return builder;
  }

  /** The socket's path. */
  Path path() {
    return socket;
  }

  /** Once the server is started: the bound socket made mode 0600 and moved to its path. */
  void publish() {
    try {
      Files.setPosixFilePermissions(bound, PosixFilePermissions.fromString("rw-------"));
      try {
        Files.move(
            bound, socket, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(bound, socket, StandardCopyOption.REPLACE_EXISTING);
      }
      Files.deleteIfExists(privateDir);
    } catch (IOException e) {
      throw new StartupException(
          "server.unixSocket: cannot place the socket at " + socket + ": " + e, e);
    }
  }

  /** Removes the socket file (after the server stopped) and stops the listener's threads. */
  @Override
  public void close() {
    try {
      Files.deleteIfExists(bound);
      Files.deleteIfExists(privateDir);
      Files.deleteIfExists(socket);
    } catch (IOException e) {
      System.getLogger(UnixSocket.class.getName())
          .log(System.Logger.Level.WARNING, "cannot remove " + socket + ": " + e);
    }
    group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
  }
}
