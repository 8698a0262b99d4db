package dev.memsidecar.sidecar;

import static dev.memsidecar.sidecar.ServerUnderTest.profile;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memsidecar.conformance.InMemoryProvider;
import dev.memsidecar.core.config.ScopeKind;
import dev.memsidecar.proto.v1.AdminServiceGrpc;
import dev.memsidecar.proto.v1.GetStatusRequest;
import dev.memsidecar.proto.v1.ListMemoriesRequest;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.Scope;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.AbstractStub;
import io.grpc.stub.MetadataUtils;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** With a bearer token configured, every call but health needs it, over loopback TCP. */
class TestBearerAuth {
  private static final String TOKEN = "test-token-0123456789abcdef";

  @TempDir Path data;
  private ServerUnderTest sidecar;

  @BeforeEach
  void start() {
    sidecar =
        ServerUnderTest.loopback(
            data, 4, 4, TOKEN, profile("workspace", ScopeKind.WORKSPACE, InMemoryProvider.NAME));
  }

  @AfterEach
  void stop() {
    sidecar.close();
  }

  @Test
  void callsWithoutTheTokenOrWithAWrongOneAreUnauthenticatedAndChangeNothing() {
    for (String header : new String[] {null, "Bearer wrong-token-0123456789", "Basic " + TOKEN}) {
      StatusRuntimeException e =
          assertThrows(
              StatusRuntimeException.class,
              () ->
                  withHeader(MemoryServiceGrpc.newBlockingStub(sidecar.channel), header)
                      .remember(note()));
      assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode(), e::toString);
      assertEquals(
          Status.Code.UNAUTHENTICATED,
          assertThrows(
                  StatusRuntimeException.class,
                  () ->
                      withHeader(AdminServiceGrpc.newBlockingStub(sidecar.channel), header)
                          .getStatus(GetStatusRequest.getDefaultInstance()))
              .getStatus()
              .getCode());
    }
    MemoryServiceGrpc.MemoryServiceBlockingStub memory =
        withHeader(MemoryServiceGrpc.newBlockingStub(sidecar.channel), "Bearer " + TOKEN);
    assertEquals(0, memory.listMemories(list()).getMemoriesCount(), "nothing was stored");
  }

  @Test
  void callsWithTheTokenWork() {
    MemoryServiceGrpc.MemoryServiceBlockingStub memory =
        withHeader(MemoryServiceGrpc.newBlockingStub(sidecar.channel), "Bearer " + TOKEN);
    memory.remember(note());
    assertEquals(1, memory.listMemories(list()).getMemoriesCount());
  }

  @Test
  void healthStaysOpenForProbes() {
    assertEquals(
        HealthCheckResponse.ServingStatus.SERVING,
        HealthGrpc.newBlockingStub(sidecar.channel)
            .check(HealthCheckRequest.getDefaultInstance())
            .getStatus());
  }

  private static RememberRequest note() {
    return RememberRequest.newBuilder()
        .setScope(Scope.newBuilder().setWorkspaceId("w1"))
        .setProfile("workspace")
        .setContent("the user likes green tea")
        .build();
  }

  private static ListMemoriesRequest list() {
    return ListMemoriesRequest.newBuilder()
        .setScope(Scope.newBuilder().setWorkspaceId("w1"))
        .setProfile("workspace")
        .build();
  }

  private static <S extends AbstractStub<S>> S withHeader(S stub, String authorization) {
    if (authorization == null) {
      return stub;
    }
    Metadata headers = new Metadata();
    headers.put(BearerAuth.AUTHORIZATION, authorization);
    return stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
  }
}
