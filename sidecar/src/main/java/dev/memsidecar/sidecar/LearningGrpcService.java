package dev.memsidecar.sidecar;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.learning.LearningService;
import dev.memsidecar.core.learning.RunReceipt;
import dev.memsidecar.core.learning.Task;
import dev.memsidecar.proto.v1.GetRunRequest;
import dev.memsidecar.proto.v1.GetRunResponse;
import dev.memsidecar.proto.v1.GetTaskRequest;
import dev.memsidecar.proto.v1.GetTaskResponse;
import dev.memsidecar.proto.v1.LearningServiceGrpc;
import dev.memsidecar.proto.v1.ListRunsRequest;
import dev.memsidecar.proto.v1.ListRunsResponse;
import dev.memsidecar.proto.v1.RecordAcceptanceRequest;
import dev.memsidecar.proto.v1.RecordAcceptanceResponse;
import io.grpc.stub.StreamObserver;

/** memsidecar.v1.LearningService: proto in, {@link LearningService} call, proto out. */
final class LearningGrpcService extends LearningServiceGrpc.LearningServiceImplBase {
  private final LearningService learning;

  LearningGrpcService(LearningService learning) {
    this.learning = requireNonNull(learning, "learning is null");
  }

  @Override
  public void getRun(GetRunRequest req, StreamObserver<GetRunResponse> out) {
    RunReceipt run = learning.run(ProtoMapping.scope(req.getScope()), req.getRunId());
    out.onNext(GetRunResponse.newBuilder().setRun(LearningMapping.receipt(run)).build());
    out.onCompleted();
  }

  @Override
  public void listRuns(ListRunsRequest req, StreamObserver<ListRunsResponse> out) {
    LearningService.RunPage page =
        learning.runs(
            ProtoMapping.scope(req.getScope()),
            req.getTaskId(),
            req.getPageSize(),
            req.getPageToken());
    ListRunsResponse.Builder b =
        ListRunsResponse.newBuilder().setNextPageToken(page.nextPageToken());
    page.runs().forEach(r -> b.addRuns(LearningMapping.receipt(r)));
    out.onNext(b.build());
    out.onCompleted();
  }

  @Override
  public void recordAcceptance(
      RecordAcceptanceRequest req, StreamObserver<RecordAcceptanceResponse> out) {
    Task task =
        learning.recordAcceptance(
            ProtoMapping.scope(req.getScope()),
            req.getTaskId(),
            LearningMapping.acceptance(req.getAcceptanceValue()),
            req.getFinalRunId(),
            ProtoMapping.options(req.getMetadataMap()));
    out.onNext(RecordAcceptanceResponse.newBuilder().setTask(LearningMapping.task(task)).build());
    out.onCompleted();
  }

  @Override
  public void getTask(GetTaskRequest req, StreamObserver<GetTaskResponse> out) {
    Task task = learning.task(ProtoMapping.scope(req.getScope()), req.getTaskId());
    out.onNext(GetTaskResponse.newBuilder().setTask(LearningMapping.task(task)).build());
    out.onCompleted();
  }
}
