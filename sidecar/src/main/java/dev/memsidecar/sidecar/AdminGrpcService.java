package dev.memsidecar.sidecar;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.core.EngineStatus;
import dev.memsidecar.core.MemoryEngine;
import dev.memsidecar.core.RequestOptions;
import dev.memsidecar.core.ScopeTransfer;
import dev.memsidecar.core.events.EventBus;
import dev.memsidecar.core.events.RuntimeEvent;
import dev.memsidecar.core.events.Watch;
import dev.memsidecar.core.maintenance.MaintenanceService;
import dev.memsidecar.core.maintenance.TargetRun;
import dev.memsidecar.core.run.DecisionEntry;
import dev.memsidecar.proto.v1.AdminServiceGrpc;
import dev.memsidecar.proto.v1.ExportScopeRequest;
import dev.memsidecar.proto.v1.ExportScopeResponse;
import dev.memsidecar.proto.v1.Flags;
import dev.memsidecar.proto.v1.GetStatusRequest;
import dev.memsidecar.proto.v1.GetStatusResponse;
import dev.memsidecar.proto.v1.ImportScopeRequest;
import dev.memsidecar.proto.v1.ImportScopeResponse;
import dev.memsidecar.proto.v1.ListWriteDecisionsRequest;
import dev.memsidecar.proto.v1.ListWriteDecisionsResponse;
import dev.memsidecar.proto.v1.MaintenanceResult;
import dev.memsidecar.proto.v1.MaintenanceStatus;
import dev.memsidecar.proto.v1.MaintenanceTargetStatus;
import dev.memsidecar.proto.v1.ProfileStatus;
import dev.memsidecar.proto.v1.ProviderInfo;
import dev.memsidecar.proto.v1.RunMaintenanceRequest;
import dev.memsidecar.proto.v1.RunMaintenanceResponse;
import dev.memsidecar.proto.v1.WatchEventsRequest;
import dev.memsidecar.proto.v1.WatchEventsResponse;
import dev.memsidecar.proto.v1.WriteDecisionEntry;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * memsidecar.v1.AdminService: GetStatus, WatchEvents, ListWriteDecisions, RunMaintenance,
 * ExportScope and ImportScope.
 *
 * <p>WatchEvents streams what an {@link EventBus} {@link Watch} buffers, with gRPC flow control:
 * events are sent while the call is ready; when it is not, the watch's bounded buffer holds the
 * rest (dropping beyond its bound, which the watcher is told with {@code events.dropped}) until the
 * call's on-ready handler resumes the sending. No thread waits for events: a send pass runs only
 * when the watch wakes it (its buffer went from empty to not empty), when the call turns ready, or
 * when the stream starts, and returns as soon as there is nothing to send or the call is not ready.
 * The passes run one at a time per call, each on a fresh virtual thread, so a publisher never
 * serializes messages and never waits for a watcher, and a stream never holds one of the call
 * workers while idle; at most one pass per open stream exists, and open streams are bounded by
 * {@link CallAdmission} (each counts as a call in flight until it ends). The stream ends when the
 * client cancels it (or its deadline passes), which closes the watch, or when the bus is closed
 * (the sidecar is stopping): then with UNAVAILABLE.
 */
final class AdminGrpcService extends AdminServiceGrpc.AdminServiceImplBase {
  private static final System.Logger LOG = System.getLogger(AdminGrpcService.class.getName());

  private static final ThreadFactory SENDERS =
      Thread.ofVirtual().name("memsidecar-watch-", 1).factory();

  /** Runs each send pass on a new virtual thread: passes never block, so no pool is needed. */
  private static final Executor SEND = task -> SENDERS.newThread(task).start();

  private final MemoryEngine engine;
  private final String version;
  private final EventBus events;

  /**
   * @param events the bus the engine publishes to; WatchEvents watches it
   */
  AdminGrpcService(MemoryEngine engine, String version, EventBus events) {
    this.engine = requireNonNull(engine, "engine is null");
    this.version = requireNonNull(version, "version is null");
    this.events = requireNonNull(events, "events is null");
  }

  @Override
  public void listWriteDecisions(
      ListWriteDecisionsRequest req, StreamObserver<ListWriteDecisionsResponse> out) {
    MemoryEngine.DecisionPage page =
        engine.writeDecisions(
            ProtoMapping.scope(req.getScope()),
            req.getRunId(),
            ProtoMapping.outcome(req.getOutcome()),
            req.getPageSize(),
            req.getPageToken());
    ListWriteDecisionsResponse.Builder res =
        ListWriteDecisionsResponse.newBuilder().setNextPageToken(page.nextPageToken());
    for (DecisionEntry e : page.entries()) {
      res.addDecisions(
          WriteDecisionEntry.newBuilder()
              .setRunId(e.runId())
              .setTime(ProtoMapping.timestamp(e.time()))
              .setDecision(ProtoMapping.decision(e.decision())));
    }
    out.onNext(res.build());
    out.onCompleted();
  }

  /** Items of an export sent per message. */
  private static final int EXPORT_BATCH = 100;

  @Override
  public void exportScope(ExportScopeRequest req, StreamObserver<ExportScopeResponse> observer) {
    ServerCallStreamObserver<ExportScopeResponse> call =
        (ServerCallStreamObserver<ExportScopeResponse>) observer;
    Object ready = new Object();
    call.setOnReadyHandler(
        () -> {
          synchronized (ready) {
            ready.notifyAll();
          }
        });
    RequestOptions options = ProtoMapping.options();
    ExportScopeResponse.Builder batch = ExportScopeResponse.newBuilder();
    new ScopeTransfer(engine)
        .export(
            ProtoMapping.scope(req.getScope()),
            options,
            item -> {
              batch.addItems(TransferMapping.item(item));
              if (batch.getItemsCount() == EXPORT_BATCH) {
                send(call, ready, batch, options);
              }
            });
    if (batch.getItemsCount() > 0) {
      send(call, ready, batch, options);
    }
    call.onCompleted();
  }

  /**
   * Sends the batch once the client can take it (flow control: an export of any size holds one
   * batch in memory), then clears it.
   */
  private static void send(
      ServerCallStreamObserver<ExportScopeResponse> call,
      Object ready,
      ExportScopeResponse.Builder batch,
      RequestOptions options) {
    synchronized (ready) {
      while (!call.isReady()) {
        options.checkNotCancelled();
        try {
          ready.wait(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new MemoryException(MemoryException.Code.CANCELLED, "the export was interrupted");
        }
      }
    }
    call.onNext(batch.build());
    batch.clear();
  }

  @Override
  public void importScope(ImportScopeRequest req, StreamObserver<ImportScopeResponse> out) {
    List<ScopeTransfer.Item> items = new ArrayList<>(req.getItemsCount());
    for (int i = 0; i < req.getItemsCount(); i++) {
      items.add(TransferMapping.item(req.getItems(i), "items[" + i + "]"));
    }
    ScopeTransfer.Counts n =
        new ScopeTransfer(engine)
            .restore(
                ProtoMapping.scope(req.getScope()),
                items,
                ProtoMapping.options(req.getMetadataMap()));
    out.onNext(
        ImportScopeResponse.newBuilder()
            .setMemories(n.records())
            .setToolRules(n.rules())
            .setMessages(n.messages())
            .setFiles(n.files())
            .build());
    out.onCompleted();
  }

  @Override
  public void runMaintenance(
      RunMaintenanceRequest req, StreamObserver<RunMaintenanceResponse> out) {
    RunMaintenanceResponse.Builder res = RunMaintenanceResponse.newBuilder();
    for (TargetRun run : engine.maintenance().runNow(req.getTargetsList())) {
      res.addResults(result(run));
    }
    out.onNext(res.build());
    out.onCompleted();
  }

  static MaintenanceResult result(TargetRun run) {
    return MaintenanceResult.newBuilder()
        .setName(run.target())
        .setOk(run.ok())
        .putAllCounts(run.counts())
        .setError(run.error())
        .setStartTime(ProtoMapping.timestamp(run.startTime()))
        .setEndTime(ProtoMapping.timestamp(run.endTime()))
        .setTrigger(run.trigger())
        .build();
  }

  static MaintenanceStatus maintenanceStatus(MaintenanceService.Status status) {
    MaintenanceStatus.Builder out =
        MaintenanceStatus.newBuilder().setEnabled(status.enabled()).setSchedule(status.schedule());
    for (MaintenanceService.TargetStatus t : status.targets()) {
      MaintenanceTargetStatus.Builder target =
          MaintenanceTargetStatus.newBuilder().setName(t.name()).setScheduled(t.scheduled());
      t.last().ifPresent(run -> target.setLastRun(result(run)));
      if (t.nextRun() != null) {
        target.setNextRunTime(ProtoMapping.timestamp(t.nextRun()));
      }
      out.addTargets(target);
    }
    return out.build();
  }

  @Override
  public void getStatus(GetStatusRequest req, StreamObserver<GetStatusResponse> out) {
    EngineStatus status = engine.status();
    GetStatusResponse.Builder res =
        GetStatusResponse.newBuilder()
            .setVersion(version)
            .setEmbedder(status.embedder())
            .setEmbedderDimensions(status.embedderDimensions())
            .setSessionVectorsPending(status.sessionVectorsPending())
            .setExtractor(status.extractor())
            .setMaintenance(maintenanceStatus(engine.maintenance().status()))
            .addAllPlugins(status.plugins())
            .setFlags(
                Flags.newBuilder()
                    .setDeepagentsMemRead(status.flags().deepagentsMemRead())
                    .setDeepagentsMemWrite(status.flags().deepagentsMemWrite())
                    .setLangmemRead(status.flags().langMemRead())
                    .setLangmemWrite(status.flags().langMemWrite()));
    for (EngineStatus.ProviderStatus p : status.providers()) {
      res.addProviders(p.name())
          .addProviderInfo(
              ProviderInfo.newBuilder()
                  .setName(p.name())
                  .addAllAliases(p.aliases())
                  .addAllCapabilities(p.capabilities())
                  .setSource(p.source())
                  .putAllDetails(p.details()));
    }
    for (EngineStatus.ProfileStatus p : status.profiles()) {
      ProfileStatus.Builder profile =
          ProfileStatus.newBuilder()
              .setId(p.id())
              .setScopeKind(p.scopeKind())
              .setProvider(p.provider())
              .setEnabled(p.enabled())
              .putAllSettings(p.settings())
              .setVectorsPending(p.pendingVectors().records());
      if (p.pendingVectors().records() > 0) {
        // Unset when nothing waits: reads as 0.
        profile.setVectorsOldestWait(ProtoMapping.duration(p.pendingVectors().oldestWait()));
      }
      res.addProfiles(profile);
    }
    out.onNext(res.build());
    out.onCompleted();
  }

  @Override
  public void watchEvents(WatchEventsRequest req, StreamObserver<WatchEventsResponse> observer) {
    EventStream stream = new EventStream((ServerCallStreamObserver<WatchEventsResponse>) observer);
    // Throws INVALID_ARGUMENT for a bad scope or bad types, before the stream starts.
    Watch watch =
        events.watch(ProtoMapping.scope(req.getScope()), req.getTypesList(), stream::signal);
    stream.start(watch);
  }

  static dev.memsidecar.proto.v1.RuntimeEvent toProto(RuntimeEvent event) {
    return dev.memsidecar.proto.v1.RuntimeEvent.newBuilder()
        .setType(event.type())
        .setTime(ProtoMapping.timestamp(event.time()))
        .setRunId(event.runId())
        .setNamespace(event.namespace())
        .putAllAttributes(event.attributes())
        .build();
  }

  /**
   * One WatchEvents call: sends the watch's events while the call is ready. {@link #signal} asks
   * for a send pass; passes run one at a time (a signal during a pass makes it go round again), so
   * the observer is only ever used by one thread at a time.
   */
  private static final class EventStream {
    private final ServerCallStreamObserver<WatchEventsResponse> out;
    private final AtomicInteger signals = new AtomicInteger();
    private volatile Watch watch;
    private volatile boolean ended;

    EventStream(ServerCallStreamObserver<WatchEventsResponse> out) {
      this.out = out;
    }

    /** Wires the call to {@code watch}; called once, while the call's method runs. */
    void start(Watch watch) {
      this.watch = watch;
      out.setOnCancelHandler(
          () -> {
            ended = true;
            watch.close();
          });
      out.setOnReadyHandler(this::signal);
      signal();
    }

    /** Asks for a send pass; never blocks. May come before {@link #start} (then it is a no-op). */
    void signal() {
      if (signals.getAndIncrement() == 0) {
        SEND.execute(this::sendPasses);
      }
    }

    private void sendPasses() {
      int seen = 1;
      do {
        try {
          sendWhileReady();
        } catch (RuntimeException | Error e) {
          LOG.log(System.Logger.Level.ERROR, "sending watched events failed; ending the stream", e);
          end(Status.INTERNAL.withDescription("internal error while sending events"));
        }
        seen = signals.addAndGet(-seen);
      } while (seen != 0);
    }

    private void sendWhileReady() {
      Watch w = watch;
      if (w == null || ended) {
        return;
      }
      if (w.isClosedByBus()) {
        end(Status.UNAVAILABLE.withDescription("the sidecar is stopping; watch again later"));
        return;
      }
      while (!ended && out.isReady()) {
        RuntimeEvent event = w.poll();
        if (event == null) {
          return;
        }
        out.onNext(WatchEventsResponse.newBuilder().setEvent(toProto(event)).build());
      }
    }

    private void end(Status status) {
      if (ended) {
        return;
      }
      ended = true;
      Watch w = watch;
      if (w != null) {
        w.close();
      }
      try {
        out.onError(status.asRuntimeException());
      } catch (RuntimeException alreadyEnded) {
        // Cancelled meanwhile: nobody is listening any more.
      }
    }
  }
}
