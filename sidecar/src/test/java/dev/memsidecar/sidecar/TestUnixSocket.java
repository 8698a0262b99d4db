package dev.memsidecar.sidecar;

import static dev.memsidecar.sidecar.ServerUnderTest.profile;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.conformance.InMemoryProvider;
import dev.memsidecar.core.StartupException;
import dev.memsidecar.core.config.ScopeKind;
import dev.memsidecar.proto.v1.ListMemoriesRequest;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.Scope;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Unix domain socket listener: mode 0600, serves the same services, removed at stop. */
class TestUnixSocket {
  @TempDir Path data;
  @TempDir Path shared;

  @Test
  void aClientOnTheSocketIsServedAndOnlyTheOwnerMayConnect() throws Exception {
    Path socket = shared.resolve("memsidecar.sock");
    try (ServerSocketChannel stale = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      stale.bind(UnixDomainSocketAddress.of(socket)); // as a crashed process leaves it: replaced
    }
    UnixSocket unix = UnixSocket.prepare(socket);
    EpollEventLoopGroup group = new EpollEventLoopGroup(1);
    try (ServerUnderTest sidecar =
        ServerUnderTest.loopbackAnd(
            unix, data, profile("workspace", ScopeKind.WORKSPACE, InMemoryProvider.NAME))) {
      unix.publish();
      assertEquals(
          "rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)));
      assertEquals(1, entries(shared), "only the socket is left in its folder");

      ManagedChannel channel =
          NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
              .channelType(EpollDomainSocketChannel.class)
              .eventLoopGroup(group)
              .usePlaintext()
              .build();
      try {
        MemoryServiceGrpc.MemoryServiceBlockingStub memory =
            MemoryServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
        Scope scope = Scope.newBuilder().setWorkspaceId("w1").build();
        memory.remember(
            RememberRequest.newBuilder()
                .setScope(scope)
                .setProfile("workspace")
                .setContent("the user likes green tea")
                .build());
        assertEquals(
            1,
            MemoryServiceGrpc.newBlockingStub(sidecar.channel)
                .listMemories(
                    ListMemoriesRequest.newBuilder()
                        .setScope(scope)
                        .setProfile("workspace")
                        .build())
                .getMemoriesCount(),
            "the write over the socket is seen over TCP");
        assertEquals(
            HealthCheckResponse.ServingStatus.SERVING,
            HealthGrpc.newBlockingStub(channel)
                .check(HealthCheckRequest.getDefaultInstance())
                .getStatus());
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    } finally {
      unix.close();
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
    assertFalse(Files.exists(socket), "the socket file is removed at stop");
    assertEquals(0, entries(shared));
  }

  @Test
  void aFileThatIsNotASocketIsNeverReplaced() throws IOException {
    Path precious = shared.resolve("notes.txt");
    Files.writeString(precious, "keep me");
    StartupException e = assertThrows(StartupException.class, () -> UnixSocket.prepare(precious));
    assertTrue(e.getMessage().contains("is not a socket"), e::getMessage);
    assertEquals("keep me", Files.readString(precious));
  }

  private static long entries(Path dir) throws IOException {
    try (Stream<Path> list = Files.list(dir)) {
      return list.count();
    }
  }
}
