package dev.memsidecar.sidecar;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.ListInput;
import dev.memsidecar.core.MemoryEngine;
import dev.memsidecar.core.MemoryPage;
import dev.memsidecar.core.RememberInput;
import dev.memsidecar.core.SearchInput;
import dev.memsidecar.core.run.BeginRunInput;
import dev.memsidecar.core.run.EndRunInput;
import dev.memsidecar.core.run.EndRunResult;
import dev.memsidecar.core.run.RunSnapshot;
import dev.memsidecar.proto.v1.BeginRunRequest;
import dev.memsidecar.proto.v1.BeginRunResponse;
import dev.memsidecar.proto.v1.EndRunRequest;
import dev.memsidecar.proto.v1.EndRunResponse;
import dev.memsidecar.proto.v1.ForgetMemoryRequest;
import dev.memsidecar.proto.v1.ForgetMemoryResponse;
import dev.memsidecar.proto.v1.GetMemoryRequest;
import dev.memsidecar.proto.v1.GetMemoryResponse;
import dev.memsidecar.proto.v1.ListMemoriesRequest;
import dev.memsidecar.proto.v1.ListMemoriesResponse;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.RememberResponse;
import dev.memsidecar.proto.v1.SearchRequest;
import dev.memsidecar.proto.v1.SearchResponse;
import io.grpc.stub.StreamObserver;

/**
 * memsidecar.v1.MemoryService: proto in, engine call, proto out. Errors propagate to {@link
 * StatusMapping}.
 */
final class MemoryGrpcService extends MemoryServiceGrpc.MemoryServiceImplBase {
  private final MemoryEngine engine;

  MemoryGrpcService(MemoryEngine engine) {
    this.engine = requireNonNull(engine, "engine is null");
  }

  @Override
  public void beginRun(BeginRunRequest req, StreamObserver<BeginRunResponse> out) {
    RunSnapshot snapshot =
        engine.beginRun(
            new BeginRunInput(
                ProtoMapping.scope(req.getScope()),
                req.getRunId(),
                req.getInput(),
                req.getToolsList(),
                req.getTopK(),
                req.getMetadataMap()),
            ProtoMapping.options(req.getMetadataMap()));
    out.onNext(ProtoMapping.beginRun(snapshot));
    out.onCompleted();
  }

  @Override
  public void endRun(EndRunRequest req, StreamObserver<EndRunResponse> out) {
    EndRunResult result =
        engine.endRun(
            new EndRunInput(
                ProtoMapping.scope(req.getScope()),
                req.getRunId(),
                req.getInput(),
                req.getOutput(),
                ProtoMapping.toolCalls(req.getToolCallsList()),
                req.getMetadataMap(),
                req.hasUsage() ? LearningMapping.usage(req.getUsage()) : null),
            ProtoMapping.options(req.getMetadataMap()));
    out.onNext(ProtoMapping.endRun(result));
    out.onCompleted();
  }

  @Override
  public void remember(RememberRequest req, StreamObserver<RememberResponse> out) {
    var decision =
        engine.remember(
            new RememberInput(
                ProtoMapping.scope(req.getScope()),
                req.getProfile(),
                req.getContent(),
                ProtoMapping.kind(req.getKind(), "kind"),
                req.getTagsList(),
                req.getMetadataMap(),
                ProtoMapping.scores(req.getScores()),
                ProtoMapping.validity(req.getValidity()),
                req.getRequestId(),
                req.getContext()),
            ProtoMapping.options(req.getMetadataMap()));
    out.onNext(RememberResponse.newBuilder().setDecision(ProtoMapping.decision(decision)).build());
    out.onCompleted();
  }

  @Override
  public void search(SearchRequest req, StreamObserver<SearchResponse> out) {
    var hits =
        engine.search(
            new SearchInput(
                ProtoMapping.scope(req.getScope()),
                req.getQuery(),
                req.getProfilesList(),
                req.getTopK(),
                ProtoMapping.kinds(req.getKindsList()),
                req.getTagsList(),
                req.getMinScore()),
            ProtoMapping.options());
    SearchResponse.Builder res = SearchResponse.newBuilder();
    hits.forEach(h -> res.addHits(ProtoMapping.hit(h)));
    out.onNext(res.build());
    out.onCompleted();
  }

  @Override
  public void getMemory(GetMemoryRequest req, StreamObserver<GetMemoryResponse> out) {
    var memory =
        engine.get(
            ProtoMapping.scope(req.getScope()),
            req.getProfile(),
            req.getId(),
            ProtoMapping.options());
    out.onNext(GetMemoryResponse.newBuilder().setMemory(ProtoMapping.memory(memory)).build());
    out.onCompleted();
  }

  @Override
  public void listMemories(ListMemoriesRequest req, StreamObserver<ListMemoriesResponse> out) {
    MemoryPage page =
        engine.list(
            new ListInput(
                ProtoMapping.scope(req.getScope()),
                req.getProfile(),
                req.getPageSize(),
                req.getPageToken(),
                req.getIncludeInactive()),
            ProtoMapping.options());
    ListMemoriesResponse.Builder res =
        ListMemoriesResponse.newBuilder().setNextPageToken(page.nextPageToken());
    page.memories().forEach(m -> res.addMemories(ProtoMapping.memory(m)));
    out.onNext(res.build());
    out.onCompleted();
  }

  @Override
  public void forgetMemory(ForgetMemoryRequest req, StreamObserver<ForgetMemoryResponse> out) {
    boolean forgotten =
        engine.forget(
            ProtoMapping.scope(req.getScope()),
            req.getProfile(),
            req.getId(),
            ProtoMapping.options(req.getMetadataMap()));
    out.onNext(ForgetMemoryResponse.newBuilder().setForgotten(forgotten).build());
    out.onCompleted();
  }
}
