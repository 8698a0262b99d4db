package dev.memsidecar.sidecar;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.EngineStatus;
import dev.memsidecar.core.MemoryEngine;
import dev.memsidecar.proto.v1.AdminServiceGrpc;
import dev.memsidecar.proto.v1.Flags;
import dev.memsidecar.proto.v1.GetStatusRequest;
import dev.memsidecar.proto.v1.GetStatusResponse;
import dev.memsidecar.proto.v1.ProfileStatus;
import dev.memsidecar.proto.v1.ProviderInfo;
import io.grpc.stub.StreamObserver;

/** memsidecar.v1.AdminService: GetStatus. WatchEvents answers UNIMPLEMENTED until it is built. */
final class AdminGrpcService extends AdminServiceGrpc.AdminServiceImplBase {
  private final MemoryEngine engine;
  private final String version;

  AdminGrpcService(MemoryEngine engine, String version) {
    this.engine = requireNonNull(engine, "engine is null");
    this.version = requireNonNull(version, "version is null");
  }

  @Override
  public void getStatus(GetStatusRequest req, StreamObserver<GetStatusResponse> out) {
    EngineStatus status = engine.status();
    GetStatusResponse.Builder res =
        GetStatusResponse.newBuilder()
            .setVersion(version)
            .setEmbedder(status.embedder())
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
      res.addProfiles(
          ProfileStatus.newBuilder()
              .setId(p.id())
              .setScopeKind(p.scopeKind())
              .setProvider(p.provider())
              .setEnabled(p.enabled())
              .putAllSettings(p.settings()));
    }
    out.onNext(res.build());
    out.onCompleted();
  }
}
