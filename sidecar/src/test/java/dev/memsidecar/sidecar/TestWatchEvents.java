package dev.memsidecar.sidecar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.rpc.BadRequest;
import dev.memsidecar.core.CoreModule;
import dev.memsidecar.core.MemoryEngine;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.config.EngineConfig;
import dev.memsidecar.core.events.EventBus;
import dev.memsidecar.core.events.RuntimeEvent;
import dev.memsidecar.proto.v1.AdminServiceGrpc;
import dev.memsidecar.proto.v1.GetStatusRequest;
import dev.memsidecar.proto.v1.WatchEventsRequest;
import dev.memsidecar.proto.v1.WatchEventsResponse;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.StatusProto;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * WatchEvents over loopback TCP, through the server's own interceptors ({@link StatusMapping},
 * {@link CallAdmission}) with the bus in the test's hands.
 */
// A regression must fail, not hang: the tests wait for streamed events.
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TestWatchEvents {
  private static final dev.memsidecar.proto.v1.Scope ALICE =
      dev.memsidecar.proto.v1.Scope.newBuilder().setWorkspaceId("acme").setUserId("alice").build();

  @TempDir Path data;
  private Sidecar sidecar;

  @AfterEach
  void stop() {
    if (sidecar != null) {
      sidecar.close();
    }
  }

  private static RuntimeEvent event(String type, Scope scope, String runId) {
    return event(type, scope, runId, Map.of());
  }

  private static RuntimeEvent event(
      String type, Scope scope, String runId, Map<String, String> attributes) {
    return new RuntimeEvent(type, Instant.now(), runId, "ns-" + runId, scope, attributes);
  }

  @Test
  void watcherGetsTheEventsOfItsScopeAndTypesAndNoOthers() throws Exception {
    sidecar = new Sidecar(data, 4, 4, EventBus.DEFAULT_BUFFER);
    Iterator<WatchEventsResponse> stream =
        AdminServiceGrpc.newBlockingStub(sidecar.channel)
            .watchEvents(
                WatchEventsRequest.newBuilder()
                    .setScope(ALICE)
                    .addTypes("memory.")
                    .addTypes("run.end")
                    .build());
    sidecar.awaitWatches(1);
    Instant time = Instant.parse("2030-01-02T03:04:05.678901Z");
    sidecar.bus.publish(
        new RuntimeEvent(
            "memory.stored",
            time,
            "run-1",
            "acme/user/alice",
            Scope.user("acme", "alice"),
            Map.of("memory_id", "m-1", "reason", "score 8.2")));
    sidecar.bus.publish(event("memory.stored", Scope.user("globex", "alice"), "other-workspace"));
    sidecar.bus.publish(event("memory.stored", Scope.user("acme", "bob"), "other-user"));
    sidecar.bus.publish(event("memory.stored", Scope.workspace("acme"), "no-user"));
    sidecar.bus.publish(event("run.begin", Scope.user("acme", "alice"), "other-type"));
    sidecar.bus.publish(event("run.end", Scope.user("acme", "alice"), "run-2"));

    dev.memsidecar.proto.v1.RuntimeEvent first = stream.next().getEvent();
    assertEquals("memory.stored", first.getType());
    assertEquals(time.getEpochSecond(), first.getTime().getSeconds());
    assertEquals(time.getNano(), first.getTime().getNanos());
    assertEquals("run-1", first.getRunId());
    assertEquals("acme/user/alice", first.getNamespace());
    assertEquals(Map.of("memory_id", "m-1", "reason", "score 8.2"), first.getAttributesMap());
    // Published after the ones it must not see, by the same thread: nothing came in between.
    dev.memsidecar.proto.v1.RuntimeEvent second = stream.next().getEvent();
    assertEquals("run.end", second.getType());
    assertEquals("run-2", second.getRunId());
  }

  @Test
  void missingWorkspaceAndBadTypesAreInvalidArgumentNamingTheField() throws Exception {
    sidecar = new Sidecar(data, 4, 4, EventBus.DEFAULT_BUFFER);
    assertInvalid(WatchEventsRequest.newBuilder().build(), "scope.workspace_id");
    WatchEventsRequest.Builder tooMany = WatchEventsRequest.newBuilder().setScope(ALICE);
    for (int i = 0; i <= EventBus.MAX_TYPES; i++) {
      tooMany.addTypes("type." + i);
    }
    assertInvalid(tooMany.build(), "types");
    assertInvalid(
        WatchEventsRequest.newBuilder().setScope(ALICE).addTypes("x".repeat(65)).build(), "types");
    assertInvalid(WatchEventsRequest.newBuilder().setScope(ALICE).addTypes("").build(), "types");
    assertEquals(0, sidecar.bus.watchCount());
  }

  private void assertInvalid(WatchEventsRequest request, String field) throws Exception {
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () -> AdminServiceGrpc.newBlockingStub(sidecar.channel).watchEvents(request).next());
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    com.google.rpc.Status details = StatusProto.fromThrowable(e);
    assertEquals(
        field,
        details.getDetails(0).unpack(BadRequest.class).getFieldViolations(0).getField(),
        e.getMessage());
  }

  @Test
  void watcherThatDoesNotReadNeverBlocksPublishingAndLearnsHowManyItLost() throws Exception {
    int buffer = 16;
    sidecar = new Sidecar(data, 4, 4, buffer);
    RawWatch watcher = new RawWatch(sidecar.channel, ALICE);
    sidecar.awaitWatches(1);

    // Far more than the HTTP/2 windows and the watch's buffer hold together: 16 MB.
    int published = 4_000;
    Map<String, String> padding = Map.of("padding", "x".repeat(4096));
    for (int i = 0; i < published; i++) {
      sidecar.bus.publish(event("memory.stored", Scope.user("acme", "alice"), "" + i, padding));
    }
    // Every publish returned although the watcher has read at most one message.
    watcher.call.request(Integer.MAX_VALUE);

    int expected = 0;
    long lost = 0;
    int notices = 0;
    while (expected < published) {
      dev.memsidecar.proto.v1.RuntimeEvent e = watcher.messages.take().getEvent();
      if (e.getType().equals(EventBus.DROPPED)) {
        long count = Long.parseLong(e.getAttributesOrThrow("count"));
        assertTrue(count > 0);
        expected += (int) count;
        lost += count;
        notices++;
      } else {
        assertEquals(Integer.toString(expected), e.getRunId(), "in order, gaps only where said");
        expected++;
      }
    }
    assertEquals(published, expected);
    assertTrue(lost > 0, "the watcher should have lost events");
    assertTrue(notices >= 1);
    watcher.call.cancel("done", null);
  }

  @Test
  void cancellingTheStreamEndsTheWatchAndFreesItsCallSlot() throws Exception {
    // One call in flight at most: while the watch is open, no other call is admitted.
    sidecar = new Sidecar(data, 1, 0, EventBus.DEFAULT_BUFFER);
    RawWatch watcher = new RawWatch(sidecar.channel, ALICE);
    watcher.call.request(Integer.MAX_VALUE);
    sidecar.awaitWatches(1);
    sidecar.bus.publish(event("run.begin", Scope.user("acme", "alice"), "before"));
    assertEquals("before", watcher.messages.take().getEvent().getRunId());
    StatusRuntimeException busy = assertThrows(StatusRuntimeException.class, sidecar::getStatus);
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, busy.getStatus().getCode());

    watcher.call.cancel("watcher is done", null);

    assertEquals(Status.Code.CANCELLED, watcher.closed.get().getCode());
    sidecar.awaitWatches(0);
    sidecar.bus.publish(event("run.end", Scope.user("acme", "alice"), "after"));
    // The slot is given back right after the watch is closed.
    awaitTrue(
        () -> {
          try {
            sidecar.getStatus();
            return true;
          } catch (StatusRuntimeException e) {
            assertEquals(Status.Code.RESOURCE_EXHAUSTED, e.getStatus().getCode());
            return false;
          }
        });
    assertTrue(watcher.messages.isEmpty(), "no event after the cancel: " + watcher.messages);
  }

  @Test
  void manyIdleWatchersHoldNoWorkerSoUnaryCallsAreServed() throws Exception {
    int watchers = 40;
    sidecar = new Sidecar(data, 4, watchers, EventBus.DEFAULT_BUFFER);
    List<RawWatch> open = new ArrayList<>();
    for (int i = 0; i < watchers; i++) {
      RawWatch w = new RawWatch(sidecar.channel, ALICE);
      w.call.request(Integer.MAX_VALUE);
      open.add(w);
    }
    sidecar.awaitWatches(watchers);

    for (int i = 0; i < 20; i++) {
      assertEquals("test", sidecar.getStatus());
    }

    sidecar.bus.publish(event("run.begin", Scope.user("acme", "alice"), "to-all"));
    for (RawWatch w : open) {
      assertEquals("to-all", w.messages.take().getEvent().getRunId());
    }
    assertEquals("test", sidecar.getStatus());
  }

  @Test
  void closingTheBusEndsTheStreamsWithUnavailable() throws Exception {
    sidecar = new Sidecar(data, 4, 4, EventBus.DEFAULT_BUFFER);
    RawWatch first = new RawWatch(sidecar.channel, ALICE);
    RawWatch second = new RawWatch(sidecar.channel, ALICE);
    sidecar.awaitWatches(2);

    sidecar.bus.close();

    assertEquals(Status.Code.UNAVAILABLE, first.closed.get().getCode());
    assertEquals(Status.Code.UNAVAILABLE, second.closed.get().getCode());
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                AdminServiceGrpc.newBlockingStub(sidecar.channel)
                    .watchEvents(WatchEventsRequest.newBuilder().setScope(ALICE).build())
                    .next());
    assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
  }

  /** Waits (the class timeout bounds it) until {@code condition} holds. */
  private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
    while (!condition.getAsBoolean()) {
      Thread.sleep(5);
    }
  }

  /**
   * A WatchEvents call with client-side flow control: it asks for one message only; more arrive
   * once the test calls {@code call.request(n)}.
   */
  private static final class RawWatch {
    final ClientCall<WatchEventsRequest, WatchEventsResponse> call;
    final BlockingQueue<WatchEventsResponse> messages = new LinkedBlockingQueue<>();
    final CompletableFuture<Status> closed = new CompletableFuture<>();

    RawWatch(ManagedChannel channel, dev.memsidecar.proto.v1.Scope scope) {
      call = channel.newCall(AdminServiceGrpc.getWatchEventsMethod(), CallOptions.DEFAULT);
      call.start(
          new ClientCall.Listener<>() {
            @Override
            public void onMessage(WatchEventsResponse message) {
              messages.add(message);
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
              closed.complete(status);
            }
          },
          new Metadata());
      call.sendMessage(WatchEventsRequest.newBuilder().setScope(scope).build());
      call.halfClose();
      call.request(1);
    }
  }

  /**
   * The services behind the interceptors {@link SidecarServer} puts around them, on loopback TCP,
   * with an {@link EventBus} of the test's.
   */
  private static final class Sidecar implements AutoCloseable {
    final EventBus bus;
    final MemoryEngine engine;
    final CallAdmission admission;
    final Server server;
    final ManagedChannel channel;

    Sidecar(Path data, int maxConcurrentCalls, int maxQueuedCalls, int buffer) throws IOException {
      bus = new EventBus(buffer);
      engine = new CoreModule(EngineConfig.defaults(data), getClass().getClassLoader()).engine();
      admission = new CallAdmission(maxConcurrentCalls, maxQueuedCalls, engine.calls());
      server =
          NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
              .addService(
                  ServerInterceptors.intercept(
                      new AdminGrpcService(engine, "test", bus), new StatusMapping(), admission))
              .directExecutor()
              .build()
              .start();
      channel =
          Grpc.newChannelBuilderForAddress(
                  "127.0.0.1", server.getPort(), InsecureChannelCredentials.create())
              .build();
    }

    String getStatus() {
      return AdminServiceGrpc.newBlockingStub(channel)
          .getStatus(GetStatusRequest.getDefaultInstance())
          .getVersion();
    }

    void awaitWatches(int n) throws InterruptedException {
      awaitTrue(() -> bus.watchCount() == n);
    }

    @Override
    public void close() {
      bus.close();
      channel.shutdownNow();
      server.shutdownNow();
      try {
        server.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      admission.shutdown();
      admission.awaitTermination(5, TimeUnit.SECONDS);
      engine.close();
    }
  }
}
