package dev.memsidecar.sidecar;

import static dev.memsidecar.sidecar.ServerUnderTest.profile;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memsidecar.core.config.ProfileSpec;
import dev.memsidecar.core.config.ScopeKind;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The bound on calls in flight, with calls held inside a store ({@link TroubleProvider}). */
// A regression must fail, not hang: the tests wait on calls held inside the engine.
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TestCallAdmission {
  @TempDir Path data;
  private ServerUnderTest sidecar;

  @BeforeEach
  void reset() {
    TroubleProvider.reset();
  }

  @AfterEach
  void stop() {
    TroubleProvider.release();
    if (sidecar != null) {
      sidecar.close();
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void callBeyondTheRunningOnesIsRefusedAtOnceAndTheNextIsServedAfter(boolean overTcp)
      throws Exception {
    start(2, 0, overTcp);
    List<CompletableFuture<Status>> held =
        List.of(new CompletableFuture<>(), new CompletableFuture<>());
    held.forEach(outcome -> TestSidecarServer.searchAsync(sidecar, outcome));
    TroubleProvider.awaitEntered(2);

    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, this::search);

    assertEquals(Status.Code.RESOURCE_EXHAUSTED, e.getStatus().getCode());
    assertEquals(
        "server busy: 2 calls in flight, the limit is 2; retry with backoff",
        e.getStatus().getDescription());
    assertEquals(ServingStatus.SERVING, healthCheck(), "health must answer while workers are busy");
    TroubleProvider.release();
    for (CompletableFuture<Status> outcome : held) {
      assertEquals(Status.Code.OK, outcome.get().getCode());
    }
    search();
  }

  @Test
  void queuedCallWaitsForAWorkerAndOnlyTheOneBeyondTheQueueIsRefused() throws Exception {
    start(1, 1, false);
    CompletableFuture<Status> running = new CompletableFuture<>();
    TestSidecarServer.searchAsync(sidecar, running);
    TroubleProvider.awaitEntered(1);
    CompletableFuture<Status> second = new CompletableFuture<>();
    CompletableFuture<Status> third = new CompletableFuture<>();
    TestSidecarServer.searchAsync(sidecar, second);
    TestSidecarServer.searchAsync(sidecar, third);

    // Nothing else can finish while the one worker is held: the first answer is the refusal.
    Status first = (Status) CompletableFuture.anyOf(second, third).get();

    assertEquals(Status.Code.RESOURCE_EXHAUSTED, first.getCode(), first::toString);
    assertEquals(
        "server busy: 2 calls in flight, the limit is 2; retry with backoff",
        first.getDescription());
    assertEquals(ServingStatus.SERVING, healthCheck());
    TroubleProvider.release();
    List<Status.Code> codes = new ArrayList<>();
    for (CompletableFuture<Status> outcome : List.of(running, second, third)) {
      codes.add(outcome.get().getCode());
    }
    codes.sort(null);
    assertEquals(List.of(Status.Code.OK, Status.Code.OK, Status.Code.RESOURCE_EXHAUSTED), codes);
    search();
  }

  /** A server with one profile on the trouble provider, in-process or over loopback TCP. */
  private void start(int maxConcurrentCalls, int maxQueuedCalls, boolean overTcp) {
    ProfileSpec trouble = profile("trouble", ScopeKind.WORKSPACE, TroubleProvider.NAME);
    sidecar =
        overTcp
            ? ServerUnderTest.loopback(data, maxConcurrentCalls, maxQueuedCalls, trouble)
            : ServerUnderTest.inProcess(data, maxConcurrentCalls, maxQueuedCalls, trouble);
  }

  private void search() {
    MemoryServiceGrpc.newBlockingStub(sidecar.channel)
        .search(
            SearchRequest.newBuilder()
                .setScope(Scope.newBuilder().setWorkspaceId("acme"))
                .setQuery("anything")
                .build());
  }

  private ServingStatus healthCheck() {
    return HealthGrpc.newBlockingStub(sidecar.channel)
        .check(HealthCheckRequest.getDefaultInstance())
        .getStatus();
  }
}
