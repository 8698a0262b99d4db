package dev.memsidecar.sidecar;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.learning.Acceptance;
import dev.memsidecar.core.learning.RunReceipt;
import dev.memsidecar.core.learning.SkillVersion;
import dev.memsidecar.core.learning.Task;
import dev.memsidecar.core.learning.TaskState;
import dev.memsidecar.core.skills.Approval;
import dev.memsidecar.core.skills.CandidateEvidence;
import dev.memsidecar.core.skills.CandidateStatus;
import dev.memsidecar.core.skills.PublishedSkill;
import dev.memsidecar.core.skills.ReviewDecision;
import dev.memsidecar.core.skills.SkillCandidate;
import dev.memsidecar.proto.v1.ApprovalState;
import dev.memsidecar.proto.v1.MemoryFile;
import dev.memsidecar.proto.v1.SkillCandidateStatus;
import dev.memsidecar.proto.v1.SkillEffect;
import dev.memsidecar.proto.v1.SkillEvidence;
import dev.memsidecar.proto.v1.SkillEvidenceKind;
import dev.memsidecar.proto.v1.TokenUsage;
import dev.memsidecar.proto.v1.ToolUse;
import dev.memsidecar.proto.v1.WriteCounts;

/**
 * Run receipts, tasks and verdicts between the wire and {@code core.learning}, skill candidates and
 * skills between the wire and {@code core.skills}. Stateless.
 */
final class LearningMapping {
  /** Pieces of a candidate's evidence a response shows at most (the first). */
  static final int SHOWN_EVIDENCE = 50;

  private LearningMapping() {}

  /** The token usage EndRun reported. */
  static RunReceipt.Usage usage(TokenUsage u) {
    return new RunReceipt.Usage(u.getInputTokens(), u.getOutputTokens());
  }

  /**
   * A verdict a client sent, by its number; null for UNSPECIFIED (the engine says it is required,
   * in its order of checks), INVALID_ARGUMENT for a number this release does not know.
   */
  static Acceptance acceptance(int number) {
    dev.memsidecar.proto.v1.Acceptance a = dev.memsidecar.proto.v1.Acceptance.forNumber(number);
    if (a == null) {
      throw MemoryException.invalidArgument(
          "acceptance", "acceptance " + number + " is not ACCEPT, REVISE or ABANDON");
    }
    return switch (a) {
      case ACCEPT -> Acceptance.ACCEPT;
      case REVISE -> Acceptance.REVISE;
      case ABANDON -> Acceptance.ABANDON;
      case ACCEPTANCE_UNSPECIFIED, UNRECOGNIZED -> null;
    };
  }

  static dev.memsidecar.proto.v1.RunReceipt receipt(RunReceipt r) {
    Scope s = r.scope();
    dev.memsidecar.proto.v1.RunReceipt.Builder b =
        dev.memsidecar.proto.v1.RunReceipt.newBuilder()
            .setRunId(r.runId())
            .setScope(
                dev.memsidecar.proto.v1.Scope.newBuilder()
                    .setWorkspaceId(s.workspaceId())
                    .setUserId(s.userId())
                    .setAgentId(s.agentId())
                    .setSessionId(s.sessionId()))
            .setSessionId(r.sessionId())
            .setTaskId(r.taskId())
            .setStartTime(ProtoMapping.timestamp(r.startTime()))
            .setEndTime(ProtoMapping.timestamp(r.endTime()))
            .setWriteDecisions(
                WriteCounts.newBuilder()
                    .setStored(r.writeDecisions().stored())
                    .setMerged(r.writeDecisions().merged())
                    .setRejected(r.writeDecisions().rejected()))
            .setSnapshotId(r.snapshotId())
            .setCapturedRules(r.capturedRules());
    for (RunReceipt.ToolUse t : r.tools()) {
      b.addTools(
          ToolUse.newBuilder()
              .setToolName(t.toolName())
              .setCalls(t.calls())
              .setOkCalls(t.okCalls())
              .setFailedCalls(t.failedCalls())
              .putAllFailuresByCategory(t.failuresByCategory()));
    }
    r.skills().forEach(k -> b.addSkills(skill(k)));
    if (r.usage() != null) {
      b.setUsage(
          TokenUsage.newBuilder()
              .setInputTokens(r.usage().inputTokens())
              .setOutputTokens(r.usage().outputTokens()));
    }
    return b.build();
  }

  static dev.memsidecar.proto.v1.Task task(Task t) {
    dev.memsidecar.proto.v1.Task.Builder b =
        dev.memsidecar.proto.v1.Task.newBuilder()
            .setTaskId(t.taskId())
            .setState(state(t.state()))
            .setFinalRunId(t.finalRunId())
            .addAllRunIds(t.runIds())
            .setRunCount(t.runCount())
            .setCreateTime(ProtoMapping.timestamp(t.createTime()))
            .setUpdateTime(ProtoMapping.timestamp(t.updateTime()));
    if (t.acceptanceTime() != null) {
      b.setAcceptanceTime(ProtoMapping.timestamp(t.acceptanceTime()));
    }
    t.skillEffects().forEach(e -> b.addSkillEffects(effect(e)));
    return b.build();
  }

  private static SkillEffect effect(Task.SkillEffect e) {
    return SkillEffect.newBuilder()
        .setSkill(skill(e.skill()))
        .setAcceptedTasks(e.acceptedTasks())
        .setAbandonedTasks(e.abandonedTasks())
        .setSuccessRate(e.successRate())
        .build();
  }

  /**
   * A status a client sent, by its number; null for UNSPECIFIED (all), INVALID_ARGUMENT for a
   * number this release does not know.
   */
  static CandidateStatus status(int number) {
    SkillCandidateStatus s = SkillCandidateStatus.forNumber(number);
    if (s == null) {
      throw MemoryException.invalidArgument(
          "status",
          "status "
              + number
              + " is not REVIEW_REQUIRED, APPROVED, REJECTED or PUBLISHED (or unspecified: all)");
    }
    return switch (s) {
      case REVIEW_REQUIRED -> CandidateStatus.REVIEW_REQUIRED;
      case APPROVED -> CandidateStatus.APPROVED;
      case REJECTED -> CandidateStatus.REJECTED;
      case PUBLISHED -> CandidateStatus.PUBLISHED;
      case SKILL_CANDIDATE_STATUS_UNSPECIFIED, UNRECOGNIZED -> null;
    };
  }

  static SkillCandidateStatus status(CandidateStatus s) {
    return switch (s) {
      case REVIEW_REQUIRED -> SkillCandidateStatus.REVIEW_REQUIRED;
      case APPROVED -> SkillCandidateStatus.APPROVED;
      case REJECTED -> SkillCandidateStatus.REJECTED;
      case PUBLISHED -> SkillCandidateStatus.PUBLISHED;
    };
  }

  /**
   * A review decision a client sent, by its number; null for UNSPECIFIED (the engine says it is
   * required), INVALID_ARGUMENT for a number this release does not know.
   */
  static ReviewDecision decision(int number) {
    dev.memsidecar.proto.v1.ReviewDecision d =
        dev.memsidecar.proto.v1.ReviewDecision.forNumber(number);
    if (d == null) {
      throw MemoryException.invalidArgument(
          "decision", "decision " + number + " is not APPROVE or REJECT");
    }
    return switch (d) {
      case APPROVE -> ReviewDecision.APPROVE;
      case REJECT -> ReviewDecision.REJECT;
      case REVIEW_DECISION_UNSPECIFIED, UNRECOGNIZED -> null;
    };
  }

  static dev.memsidecar.proto.v1.SkillCandidate candidate(SkillCandidate c) {
    Approval a = c.approval();
    dev.memsidecar.proto.v1.Approval.Builder approval =
        dev.memsidecar.proto.v1.Approval.newBuilder()
            .setApprovalId(a.approvalId())
            .setKind(a.kind())
            .setState(
                switch (a.state()) {
                  case PENDING -> ApprovalState.APPROVAL_STATE_PENDING;
                  case APPROVED -> ApprovalState.APPROVAL_STATE_APPROVED;
                  case REJECTED -> ApprovalState.APPROVAL_STATE_REJECTED;
                })
            .setReason(a.reason())
            .setCreateTime(ProtoMapping.timestamp(a.createTime()));
    if (a.decideTime() != null) {
      approval.setDecideTime(ProtoMapping.timestamp(a.decideTime()));
    }
    dev.memsidecar.proto.v1.SkillCandidate.Builder b =
        dev.memsidecar.proto.v1.SkillCandidate.newBuilder()
            .setCandidateId(c.candidateId())
            .setName(c.name())
            .setDescription(c.description())
            .setStatus(status(c.status()))
            .setDraft(c.draft())
            .setSynthesizer(c.synthesizer())
            .setSessionCount(c.sessionCount())
            .setTaskCount(c.taskCount())
            .setApproval(approval)
            .setCreateTime(ProtoMapping.timestamp(c.createTime()))
            .setUpdateTime(ProtoMapping.timestamp(c.updateTime()))
            .setEvidenceTotal(c.evidence().size());
    if (c.published() != null) {
      b.setPublished(skill(c.published()));
    }
    for (CandidateEvidence e :
        c.evidence().subList(0, Math.min(SHOWN_EVIDENCE, c.evidence().size()))) {
      b.addEvidence(
          SkillEvidence.newBuilder()
              .setKind(
                  e.kind() == CandidateEvidence.Kind.MEMORY
                      ? SkillEvidenceKind.SKILL_EVIDENCE_KIND_MEMORY
                      : SkillEvidenceKind.SKILL_EVIDENCE_KIND_TASK)
              .setMemoryId(e.memoryId())
              .setProfile(e.profile())
              .setUserId(e.userId())
              .setTaskId(e.taskId())
              .setFinalRunId(e.finalRunId())
              .addAllRunIds(e.runIds())
              .addAllSessionIds(e.sessionIds())
              .addAllTools(e.tools())
              .setText(e.text())
              .setTime(ProtoMapping.timestamp(e.time())));
    }
    return b.build();
  }

  /** A published skill as ListSkills and PublishSkill show it. */
  static dev.memsidecar.proto.v1.Skill skill(PublishedSkill.Listed listed) {
    PublishedSkill s = listed.latest();
    dev.memsidecar.proto.v1.Skill.Builder b =
        dev.memsidecar.proto.v1.Skill.newBuilder()
            .setName(s.name())
            .setVersion(String.valueOf(s.version()))
            .setDescription(s.description())
            .setPath(s.path())
            .setEtag(listed.etag())
            .setCandidateId(s.candidateId())
            .setPublishTime(ProtoMapping.timestamp(s.publishTime()));
    listed.effects().forEach(e -> b.addEffects(effect(e)));
    return b.build();
  }

  /** A file the files API would show at {@code path}. */
  static MemoryFile file(String path, dev.memsidecar.api.MemoryFile f) {
    MemoryFile.Builder b =
        MemoryFile.newBuilder().setPath(path).setContent(f.content()).setEtag(f.etag());
    if (f.updateTime() != null) {
      b.setUpdateTime(ProtoMapping.timestamp(f.updateTime()));
    }
    return b.build();
  }

  static dev.memsidecar.proto.v1.TaskState state(TaskState s) {
    return switch (s) {
      case OPEN -> dev.memsidecar.proto.v1.TaskState.TASK_STATE_OPEN;
      case ACCEPTED -> dev.memsidecar.proto.v1.TaskState.TASK_STATE_ACCEPTED;
      case REVISE -> dev.memsidecar.proto.v1.TaskState.TASK_STATE_REVISE;
      case ABANDONED -> dev.memsidecar.proto.v1.TaskState.TASK_STATE_ABANDONED;
    };
  }

  private static dev.memsidecar.proto.v1.SkillVersion skill(SkillVersion k) {
    return dev.memsidecar.proto.v1.SkillVersion.newBuilder()
        .setName(k.name())
        .setVersion(k.version())
        .build();
  }
}
