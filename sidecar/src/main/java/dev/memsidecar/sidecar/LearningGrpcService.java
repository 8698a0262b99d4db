package dev.memsidecar.sidecar;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.learning.LearningService;
import dev.memsidecar.core.learning.RunReceipt;
import dev.memsidecar.core.learning.Task;
import dev.memsidecar.core.skills.PublishedSkill;
import dev.memsidecar.core.skills.SkillCandidate;
import dev.memsidecar.core.skills.SkillService;
import dev.memsidecar.proto.v1.GetRunRequest;
import dev.memsidecar.proto.v1.GetRunResponse;
import dev.memsidecar.proto.v1.GetTaskRequest;
import dev.memsidecar.proto.v1.GetTaskResponse;
import dev.memsidecar.proto.v1.LearningServiceGrpc;
import dev.memsidecar.proto.v1.ListRunsRequest;
import dev.memsidecar.proto.v1.ListRunsResponse;
import dev.memsidecar.proto.v1.ListSkillCandidatesRequest;
import dev.memsidecar.proto.v1.ListSkillCandidatesResponse;
import dev.memsidecar.proto.v1.ListSkillsRequest;
import dev.memsidecar.proto.v1.ListSkillsResponse;
import dev.memsidecar.proto.v1.PublishSkillRequest;
import dev.memsidecar.proto.v1.PublishSkillResponse;
import dev.memsidecar.proto.v1.RecordAcceptanceRequest;
import dev.memsidecar.proto.v1.RecordAcceptanceResponse;
import dev.memsidecar.proto.v1.ReviewSkillCandidateRequest;
import dev.memsidecar.proto.v1.ReviewSkillCandidateResponse;
import io.grpc.stub.StreamObserver;

/**
 * memsidecar.v1.LearningService: proto in, {@link LearningService} or {@link SkillService} call,
 * proto out.
 */
final class LearningGrpcService extends LearningServiceGrpc.LearningServiceImplBase {
  private final LearningService learning;
  private final SkillService skills;

  LearningGrpcService(LearningService learning, SkillService skills) {
    this.learning = requireNonNull(learning, "learning is null");
    this.skills = requireNonNull(skills, "skills is null");
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

  @Override
  public void listSkillCandidates(
      ListSkillCandidatesRequest req, StreamObserver<ListSkillCandidatesResponse> out) {
    SkillService.CandidatePage page =
        skills.candidates(
            ProtoMapping.scope(req.getScope()),
            LearningMapping.status(req.getStatusValue()),
            req.getPageSize(),
            req.getPageToken());
    ListSkillCandidatesResponse.Builder b =
        ListSkillCandidatesResponse.newBuilder().setNextPageToken(page.nextPageToken());
    page.candidates().forEach(c -> b.addCandidates(LearningMapping.candidate(c)));
    out.onNext(b.build());
    out.onCompleted();
  }

  @Override
  public void reviewSkillCandidate(
      ReviewSkillCandidateRequest req, StreamObserver<ReviewSkillCandidateResponse> out) {
    SkillCandidate c =
        skills.review(
            ProtoMapping.scope(req.getScope()),
            req.getCandidateId(),
            LearningMapping.decision(req.getDecisionValue()),
            req.getReason(),
            req.getDraft(),
            ProtoMapping.options(req.getMetadataMap()));
    out.onNext(
        ReviewSkillCandidateResponse.newBuilder()
            .setCandidate(LearningMapping.candidate(c))
            .build());
    out.onCompleted();
  }

  @Override
  public void publishSkill(PublishSkillRequest req, StreamObserver<PublishSkillResponse> out) {
    SkillService.Published p =
        skills.publish(
            ProtoMapping.scope(req.getScope()),
            req.getCandidateId(),
            req.getEtag(),
            ProtoMapping.options(req.getMetadataMap()));
    out.onNext(
        PublishSkillResponse.newBuilder()
            .setSkill(
                LearningMapping.skill(
                    new PublishedSkill.Listed(p.skill(), p.file().etag(), java.util.List.of())))
            .setFile(LearningMapping.file(p.skill().path(), p.file()))
            .build());
    out.onCompleted();
  }

  @Override
  public void listSkills(ListSkillsRequest req, StreamObserver<ListSkillsResponse> out) {
    SkillService.SkillPage page =
        skills.skills(
            ProtoMapping.scope(req.getScope()),
            req.getName(),
            req.getPageSize(),
            req.getPageToken());
    ListSkillsResponse.Builder b =
        ListSkillsResponse.newBuilder().setNextPageToken(page.nextPageToken());
    page.skills().forEach(s -> b.addSkills(LearningMapping.skill(s)));
    out.onNext(b.build());
    out.onCompleted();
  }
}
