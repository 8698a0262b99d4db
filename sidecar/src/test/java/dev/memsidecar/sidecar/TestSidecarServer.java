package dev.memsidecar.sidecar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.core.MemoryEngine;
import dev.memsidecar.core.config.EngineConfig;
import dev.memsidecar.proto.v1.AdminServiceGrpc;
import dev.memsidecar.proto.v1.GetStatusRequest;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchRequest;
import dev.memsidecar.proto.v1.ToolRuleServiceGrpc;
import dev.memsidecar.proto.v1.ListToolRulesRequest;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The services in-process, over the real engine and provider. */
class TestSidecarServer {
  @TempDir Path data;
  private SidecarServer server;
  private ManagedChannel channel;
  private MemoryServiceGrpc.MemoryServiceBlockingStub memory;

  @BeforeEach
  void start() throws Exception {
    String name = InProcessServerBuilder.generateName();
    MemoryEngine engine =
        MemoryEngine.create(EngineConfig.defaults(data), getClass().getClassLoader());
    server =
        new SidecarServer(InProcessServerBuilder.forName(name).directExecutor(), engine, "test", 2)
            .start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    memory = MemoryServiceGrpc.newBlockingStub(channel);
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.stop(1000);
  }

  @Test
  void rememberThenSearchFindsItInTheSameWorkspaceOnly() {
    Scope acme = Scope.newBuilder().setWorkspaceId("acme").build();
    memory.remember(
        RememberRequest.newBuilder().setScope(acme).setContent("Builds use mvn -B verify").build());
    assertEquals(
        1,
        memory
            .search(SearchRequest.newBuilder().setScope(acme).setQuery("how to build").build())
            .getHitsCount());
    assertEquals(
        0,
        memory
            .search(
                SearchRequest.newBuilder()
                    .setScope(Scope.newBuilder().setWorkspaceId("globex"))
                    .setQuery("how to build")
                    .build())
            .getHitsCount());
  }

  @Test
  void badInputIsInvalidArgumentNamingTheField() {
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                memory.remember(
                    RememberRequest.newBuilder()
                        .setScope(Scope.newBuilder().setWorkspaceId("acme"))
                        .setProfile("user")
                        .setContent("x")
                        .build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    assertTrue(e.getStatus().getDescription().contains("scope.user_id"));
  }

  @Test
  void unbuiltServicesAnswerUnimplemented() {
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                ToolRuleServiceGrpc.newBlockingStub(channel)
                    .listToolRules(ListToolRulesRequest.getDefaultInstance()));
    assertEquals(Status.Code.UNIMPLEMENTED, e.getStatus().getCode());
  }

  @Test
  void healthTurnsNotServingOnStop() {
    HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(channel);
    assertEquals(
        ServingStatus.SERVING,
        health.check(HealthCheckRequest.getDefaultInstance()).getStatus());
    assertEquals(
        "test",
        AdminServiceGrpc.newBlockingStub(channel)
            .getStatus(GetStatusRequest.getDefaultInstance())
            .getVersion());
    server.stop(1000);
    assertThrows(
        StatusRuntimeException.class, () -> health.check(HealthCheckRequest.getDefaultInstance()));
  }

  @Test
  void unknownFailuresBecomeInternalWithoutEchoingTheMessage() {
    Status s = StatusMapping.toStatus(new IllegalStateException("secret path /etc/x"));
    assertEquals(Status.Code.INTERNAL, s.getCode());
    assertFalse(s.getDescription().contains("secret"));
  }
}
