package dev.memsidecar.sidecar;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.MemoryEngine;
import dev.memsidecar.core.StartupException;
import dev.memsidecar.proto.v1.AdminServiceGrpc;
import dev.memsidecar.proto.v1.LearningServiceGrpc;
import dev.memsidecar.proto.v1.MemoryFileServiceGrpc;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.SessionServiceGrpc;
import dev.memsidecar.proto.v1.ToolRuleServiceGrpc;
import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The gRPC server around one engine: memsidecar.v1 services, grpc.health.v1 and server reflection.
 * The memsidecar.v1 calls go through {@link CallAdmission} (at most {@code maxConcurrentCalls} run
 * at once on worker threads, {@code maxQueuedCalls} more wait, any further call is refused with
 * RESOURCE_EXHAUSTED) and then {@link StatusMapping}; health and reflection are never refused and
 * answer even when every worker is busy. {@link #stop} is the shutdown order: health NOT_SERVING,
 * stop taking calls, let in-flight calls finish (up to a grace period), cancel the rest, close the
 * engine.
 */
public final class SidecarServer {
  private static final System.Logger LOG = System.getLogger(SidecarServer.class.getName());

  private final List<Server> servers = new ArrayList<>();
  private final Server server;
  private final HealthStatusManager health = new HealthStatusManager();
  private final MemoryEngine engine;
  private final CallAdmission admission;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final CountDownLatch stopped = new CountDownLatch(1);

  /**
   * Builds (does not start) a server for {@code engine} on each of {@code builders}' transports
   * (the first is the one {@link #port} reports; a Unix socket may be another), all sharing the
   * same services and workers; the builders' executors are replaced (see {@link CallAdmission}).
   *
   * @param maxConcurrentCalls calls that run at once, each on a worker thread of its own
   * @param maxQueuedCalls admitted calls beyond those that wait for a worker
   * @param authToken the bearer token every call but health must carry, or null for none
   */
  public SidecarServer(
      List<ServerBuilder<?>> builders,
      MemoryEngine engine,
      String version,
      int maxConcurrentCalls,
      int maxQueuedCalls,
      String authToken) {
    this(builders, engine, version, maxConcurrentCalls, maxQueuedCalls, authToken, null);
  }

  /**
   * As above, with {@code observer} (or null) around every call of the services, health and
   * reflection included, outside the token and admission checks, so it sees every outcome (the
   * metrics' timer).
   */
  public SidecarServer(
      List<ServerBuilder<?>> builders,
      MemoryEngine engine,
      String version,
      int maxConcurrentCalls,
      int maxQueuedCalls,
      String authToken,
      ServerInterceptor observer) {
    this.engine = requireNonNull(engine, "engine is null");
    this.admission = new CallAdmission(maxConcurrentCalls, maxQueuedCalls, engine.calls());
    StatusMapping errors = new StatusMapping();
    List<BindableService> services =
        List.of(
            new MemoryGrpcService(engine),
            new AdminGrpcService(engine, version, engine.events()),
            new MemoryFileGrpcService(engine.files()),
            new ToolRuleGrpcService(engine.toolRules()),
            new SessionGrpcService(engine.sessions()),
            new LearningGrpcService(engine.learning(), engine.skills()));
    // The last interceptor runs first: the token, admission, then error mapping around the
    // service; a request that does not parse is answered before any of them.
    List<ServerInterceptor> guards = new ArrayList<>();
    guards.add(errors);
    guards.add(admission);
    if (authToken != null) {
      guards.add(new BearerAuth(authToken));
    }
    if (observer != null) {
      guards.add(observer);
    }
    List<ServerServiceDefinition> definitions = new ArrayList<>();
    for (BindableService service : services) {
      definitions.add(RequestParsing.guard(ServerInterceptors.intercept(service, guards)));
    }
    ServerServiceDefinition reflection = ProtoReflectionServiceV1.newInstance().bindService();
    if (authToken != null) {
      reflection = ServerInterceptors.intercept(reflection, new BearerAuth(authToken));
    }
    ServerServiceDefinition healthService = health.getHealthService().bindService();
    if (observer != null) {
      reflection = ServerInterceptors.intercept(reflection, observer);
      healthService = ServerInterceptors.intercept(healthService, observer);
    }
    definitions.add(RequestParsing.guard(healthService));
    definitions.add(RequestParsing.guard(reflection));
    for (ServerBuilder<?> builder : builders) {
      definitions.forEach(builder::addService);
      servers.add(builder.directExecutor().build());
    }
    this.server = servers.get(0);
  }

  /**
   * Starts serving; health turns SERVING.
   *
   * @throws StartupException when the server cannot listen (e.g. the port is taken); the engine is
   *     closed by then
   */
  public SidecarServer start() {
    try {
      for (Server s : servers) {
        s.start();
      }
    } catch (IOException e) {
      servers.forEach(Server::shutdownNow);
      admission.shutdown();
      engine.close();
      Throwable cause = e.getCause();
      throw new StartupException(
          "cannot serve gRPC: "
              + e.getMessage()
              + (cause == null || cause.getMessage() == null
                  ? ""
                  : " (" + cause.getMessage() + ")"),
          e);
    }
    health.setStatus("", ServingStatus.SERVING);
    for (String name :
        List.of(
            MemoryServiceGrpc.SERVICE_NAME,
            AdminServiceGrpc.SERVICE_NAME,
            MemoryFileServiceGrpc.SERVICE_NAME,
            ToolRuleServiceGrpc.SERVICE_NAME,
            SessionServiceGrpc.SERVICE_NAME,
            LearningServiceGrpc.SERVICE_NAME)) {
      health.setStatus(name, ServingStatus.SERVING);
    }
    return this;
  }

  /** The engine the server serves. */
  public MemoryEngine engine() {
    return engine;
  }

  /** The bound port (useful when started on port 0). */
  public int port() {
    return server.getPort();
  }

  /**
   * Orderly shutdown; safe to call more than once and from any thread: later callers wait until the
   * first has finished, so nobody exits the JVM while stores are closing.
   */
  public void stop(long graceMillis) {
    if (!stopping.compareAndSet(false, true)) {
      try {
        stopped.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return;
    }
    health.enterTerminalState();
    // Ends the WatchEvents streams, which would otherwise hold the shutdown for the whole grace.
    engine.events().close();
    servers.forEach(Server::shutdown);
    try {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMillis);
      for (Server s : servers) {
        if (!s.awaitTermination(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
          LOG.log(System.Logger.Level.WARNING, "calls still running after grace; cancelling them");
          s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      servers.forEach(Server::shutdownNow);
    } finally {
      // Cancelled calls may still be inside the engine on a worker; close it after them.
      admission.shutdown();
      if (!admission.awaitTermination(5, TimeUnit.SECONDS)) {
        LOG.log(System.Logger.Level.WARNING, "workers still busy; closing the engine anyway");
      }
      engine.close();
      stopped.countDown();
    }
  }

  /** Blocks until the server has terminated. */
  public void awaitTermination() throws InterruptedException {
    for (Server s : servers) {
      s.awaitTermination();
    }
  }
}
