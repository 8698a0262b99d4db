package dev.memsidecar.sidecar;

import static dev.memsidecar.sidecar.ServerUnderTest.profile;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.rpc.BadRequest;
import dev.memsidecar.conformance.InMemoryProvider;
import dev.memsidecar.core.config.ScopeKind;
import dev.memsidecar.proto.v1.AdminServiceGrpc;
import dev.memsidecar.proto.v1.GetMemoryRequest;
import dev.memsidecar.proto.v1.GetStatusRequest;
import dev.memsidecar.proto.v1.ListMemoriesRequest;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchRequest;
import dev.memsidecar.proto.v1.SearchResponse;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The services in-process, through the interceptors SidecarServer installs, over a real engine. */
// A regression must fail, not hang: the tests wait on calls held inside the engine.
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TestSidecarServer {
  private static final Scope ACME = Scope.newBuilder().setWorkspaceId("acme").build();
  private static final Pattern ERROR_ID = Pattern.compile("\\(error id ([0-9a-f]{8})\\)$");

  @TempDir Path data;
  private ServerUnderTest sidecar;
  private MemoryServiceGrpc.MemoryServiceBlockingStub memory;
  private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
  private final Logger statusLog = Logger.getLogger(StatusMapping.class.getName());
  private final Handler capture =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          logged.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  @BeforeEach
  void start() {
    TroubleProvider.reset();
    statusLog.addHandler(capture);
    // Over loopback TCP, the transport Main uses: it holds statuses to rules (trailers present)
    // that the in-process transport does not check.
    sidecar =
        ServerUnderTest.loopback(
            data,
            4,
            4,
            profile("workspace", ScopeKind.WORKSPACE, InMemoryProvider.NAME),
            profile("user", ScopeKind.USER, InMemoryProvider.NAME),
            profile("trouble", ScopeKind.WORKSPACE, TroubleProvider.NAME));
    memory = MemoryServiceGrpc.newBlockingStub(sidecar.channel);
  }

  @AfterEach
  void stop() {
    TroubleProvider.release();
    sidecar.close();
    statusLog.removeHandler(capture);
  }

  @Test
  void rememberThenSearchFindsItInTheSameWorkspaceOnly() {
    TroubleProvider.release();
    memory.remember(
        RememberRequest.newBuilder().setScope(ACME).setContent("Builds use mvn -B verify").build());
    assertEquals(1, search(ACME).getHitsCount());
    assertEquals(0, search(Scope.newBuilder().setWorkspaceId("globex").build()).getHitsCount());
  }

  @Test
  void invalidArgumentNamesTheFieldInTheMessageAndInABadRequest() {
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                memory.remember(
                    RememberRequest.newBuilder()
                        .setScope(ACME)
                        .setProfile("user")
                        .setContent("x")
                        .build()));

    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    assertEquals("scope.user_id is required by profile 'user'", e.getStatus().getDescription());
    com.google.rpc.Status details = StatusProto.fromThrowable(e);
    assertNotNull(details, "no grpc-status-details-bin trailer");
    assertEquals(Status.Code.INVALID_ARGUMENT.value(), details.getCode());
    assertEquals(1, details.getDetailsCount());
    BadRequest.FieldViolation violation = assertDoesNotThrowUnpack(details).getFieldViolations(0);
    assertEquals("scope.user_id", violation.getField());
    assertEquals(e.getStatus().getDescription(), violation.getDescription());
  }

  @Test
  void errorsWithoutAFieldCarryNoDetails() {
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                memory.getMemory(
                    GetMemoryRequest.newBuilder()
                        .setScope(ACME)
                        .setProfile("nosuch")
                        .setId("m1")
                        .build()));

    assertEquals(Status.Code.NOT_FOUND, e.getStatus().getCode());
    assertTrue(e.getStatus().getDescription().startsWith("unknown profile 'nosuch'"), e::toString);
    com.google.rpc.Status details = StatusProto.fromThrowable(e);
    assertEquals(0, details == null ? 0 : details.getDetailsCount(), details::toString);
  }

  @Test
  void unknownFailuresAreInternalWithAnErrorIdLoggedOnceAndNoInternalText() {
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                memory.getMemory(
                    GetMemoryRequest.newBuilder()
                        .setScope(ACME)
                        .setProfile("trouble")
                        .setId("m1")
                        .build()));

    assertEquals(Status.Code.INTERNAL, e.getStatus().getCode());
    String description = e.getStatus().getDescription();
    Matcher id = ERROR_ID.matcher(description);
    assertTrue(id.find(), description);
    assertEquals("internal error (error id " + id.group(1) + ")", description);
    LogRecord record = loggedOnce(id.group(1));
    assertTrue(record.getThrown() instanceof IllegalStateException, record::getMessage);
    assertEquals(TroubleProvider.SECRET, record.getThrown().getMessage());
  }

  @Test
  void unavailableKeepsItsMessageAndIsLoggedOnceWithItsCause() {
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                memory.listMemories(
                    ListMemoriesRequest.newBuilder().setScope(ACME).setProfile("trouble").build()));

    assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
    String description = e.getStatus().getDescription();
    Matcher id = ERROR_ID.matcher(description);
    assertTrue(id.find(), description);
    assertEquals(
        TroubleProvider.UNAVAILABLE_MESSAGE + " (error id " + id.group(1) + ")", description);
    LogRecord record = loggedOnce(id.group(1));
    assertEquals("connection refused", record.getThrown().getCause().getMessage());
  }

  @Test
  void callCancelledByTheClientStopsBeforeTheNextProfileAndIsCancelled() throws Exception {
    try (ServerUnderTest twoHeld = twoTroubleProfiles()) {
      Context.CancellableContext client = Context.current().withCancellation();
      CompletableFuture<Status> outcome = new CompletableFuture<>();
      client.run(() -> searchAsync(twoHeld, outcome));
      TroubleProvider.awaitEntered(1);

      client.cancel(null);

      assertEquals(Status.Code.CANCELLED, outcome.get().getCode());
      Status sent = twoHeld.closed.take();
      assertEquals(Status.Code.CANCELLED, sent.getCode(), sent::toString);
      assertEquals(
          "the call was cancelled or its deadline passed; the rest of its work was skipped",
          sent.getDescription());
      assertEquals(1, TroubleProvider.entered(), "the second profile was searched anyway");
    }
  }

  @Test
  void callPastItsDeadlineStopsBeforeTheNextProfileAndIsDeadlineExceeded() throws Exception {
    try (ServerUnderTest twoHeld = twoTroubleProfiles()) {
      StatusRuntimeException e =
          assertThrows(
              StatusRuntimeException.class,
              () ->
                  MemoryServiceGrpc.newBlockingStub(twoHeld.channel)
                      .withDeadlineAfter(200, TimeUnit.MILLISECONDS)
                      .search(SearchRequest.newBuilder().setScope(ACME).setQuery("x").build()));

      assertEquals(Status.Code.DEADLINE_EXCEEDED, e.getStatus().getCode());
      Status sent = twoHeld.closed.take();
      assertEquals(Status.Code.DEADLINE_EXCEEDED, sent.getCode(), sent::toString);
      assertEquals(1, TroubleProvider.entered(), "the second profile was searched anyway");
    }
  }

  @Test
  void healthTurnsNotServingWhileInFlightCallsFinishOnStop() throws Exception {
    HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(sidecar.channel);
    assertEquals(
        ServingStatus.SERVING, health.check(HealthCheckRequest.getDefaultInstance()).getStatus());
    assertEquals(
        "test",
        AdminServiceGrpc.newBlockingStub(sidecar.channel)
            .getStatus(GetStatusRequest.getDefaultInstance())
            .getVersion());
    BlockingQueue<ServingStatus> watched = new LinkedBlockingQueue<>();
    Context.CancellableContext watch = Context.current().withCancellation();
    watch.run(
        () ->
            HealthGrpc.newStub(sidecar.channel)
                .watch(
                    HealthCheckRequest.getDefaultInstance(),
                    new StreamObserver<HealthCheckResponse>() {
                      @Override
                      public void onNext(HealthCheckResponse response) {
                        watched.add(response.getStatus());
                      }

                      @Override
                      public void onError(Throwable t) {}

                      @Override
                      public void onCompleted() {}
                    }));
    assertEquals(ServingStatus.SERVING, watched.take());
    CompletableFuture<Status> held = new CompletableFuture<>();
    searchAsync(sidecar, held);
    TroubleProvider.awaitEntered(1);

    Thread stopping = new Thread(() -> sidecar.server.stop(60_000));
    stopping.start();

    assertEquals(ServingStatus.NOT_SERVING, watched.take());
    assertFalse(held.isDone(), "the in-flight call was cut short");
    watch.cancel(null);
    TroubleProvider.release();
    assertEquals(Status.Code.OK, held.get().getCode(), () -> held.join().toString());
    stopping.join();
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () -> health.check(HealthCheckRequest.getDefaultInstance()));
    assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
  }

  private ServerUnderTest twoTroubleProfiles() {
    return ServerUnderTest.inProcess(
        data.resolve("two"),
        2,
        0,
        profile("first", ScopeKind.WORKSPACE, TroubleProvider.NAME),
        profile("second", ScopeKind.WORKSPACE, TroubleProvider.NAME));
  }

  private SearchResponse search(Scope scope) {
    return memory.search(
        SearchRequest.newBuilder()
            .setScope(scope)
            .setQuery("how to build")
            .addProfiles("workspace")
            .build());
  }

  /** Starts a Search of every profile for ACME; {@code outcome} gets its status. */
  static void searchAsync(ServerUnderTest target, CompletableFuture<Status> outcome) {
    MemoryServiceGrpc.newStub(target.channel)
        .search(
            SearchRequest.newBuilder().setScope(ACME).setQuery("anything").build(),
            new StreamObserver<SearchResponse>() {
              @Override
              public void onNext(SearchResponse response) {}

              @Override
              public void onError(Throwable t) {
                outcome.complete(Status.fromThrowable(t));
              }

              @Override
              public void onCompleted() {
                outcome.complete(Status.OK);
              }
            });
  }

  private static BadRequest assertDoesNotThrowUnpack(com.google.rpc.Status details) {
    try {
      return details.getDetails(0).unpack(BadRequest.class);
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError("the detail is not a google.rpc.BadRequest: " + details, e);
    }
  }

  /** The one record logged with {@code errorId}, at SEVERE with a stack trace. */
  private LogRecord loggedOnce(String errorId) {
    List<LogRecord> matching =
        logged.stream().filter(r -> r.getMessage().contains(errorId)).toList();
    assertEquals(1, matching.size(), () -> "records naming " + errorId + ": " + matching);
    LogRecord record = matching.get(0);
    assertSame(Level.SEVERE, record.getLevel());
    assertNotNull(record.getThrown(), "logged without its cause");
    return record;
  }
}
