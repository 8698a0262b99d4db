package dev.memsidecar.sidecar;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.learning.Acceptance;
import dev.memsidecar.core.learning.RunReceipt;
import dev.memsidecar.core.learning.SkillVersion;
import dev.memsidecar.core.learning.Task;
import dev.memsidecar.core.learning.TaskState;
import dev.memsidecar.proto.v1.SkillEffect;
import dev.memsidecar.proto.v1.TokenUsage;
import dev.memsidecar.proto.v1.ToolUse;
import dev.memsidecar.proto.v1.WriteCounts;

/** Run receipts, tasks and verdicts between the wire and {@code core.learning}. Stateless. */
final class LearningMapping {
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
    for (Task.SkillEffect e : t.skillEffects()) {
      b.addSkillEffects(
          SkillEffect.newBuilder()
              .setSkill(skill(e.skill()))
              .setAcceptedTasks(e.acceptedTasks())
              .setAbandonedTasks(e.abandonedTasks())
              .setSuccessRate(e.successRate()));
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
