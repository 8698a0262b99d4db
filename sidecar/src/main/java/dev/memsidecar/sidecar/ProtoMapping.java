package dev.memsidecar.sidecar;

import com.google.protobuf.Timestamp;
import dev.memsidecar.api.GateScores;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.core.Limits;
import dev.memsidecar.core.MemoryHit;
import dev.memsidecar.core.RequestOptions;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.StoredMemory;
import dev.memsidecar.core.WriteDecision;
import dev.memsidecar.core.run.EndRunResult;
import dev.memsidecar.core.run.RunSnapshot;
import dev.memsidecar.core.toolrules.ToolRule;
import dev.memsidecar.proto.v1.BeginRunResponse;
import dev.memsidecar.proto.v1.EndRunResponse;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.MemoryKind;
import dev.memsidecar.proto.v1.MemoryStatus;
import dev.memsidecar.proto.v1.PromptSection;
import dev.memsidecar.proto.v1.SearchHit;
import dev.memsidecar.proto.v1.ToolCall;
import dev.memsidecar.proto.v1.ToolRulePriority;
import dev.memsidecar.proto.v1.ToolRuleSource;
import dev.memsidecar.proto.v1.Validity;
import dev.memsidecar.proto.v1.WriteOutcome;
import io.grpc.Context;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Translates between the wire types of memsidecar.v1 and the engine's types. Stateless. */
final class ProtoMapping {
  private ProtoMapping() {}

  /**
   * The options of a request without metadata: writable, cancelled when the gRPC call is (its
   * client went away or its deadline passed). Call on the thread handling the call.
   */
  static RequestOptions options() {
    return options(Map.of());
  }

  /** The options a request's metadata asks for ({@code memoryWrite}), cancelled with the call. */
  static RequestOptions options(Map<String, String> metadata) {
    Context call = Context.current();
    return RequestOptions.fromMetadata(metadata).withCancellation(call::isCancelled);
  }

  static Scope scope(dev.memsidecar.proto.v1.Scope s) {
    return new Scope(s.getWorkspaceId(), s.getUserId(), s.getAgentId(), s.getSessionId());
  }

  static GateScores scores(dev.memsidecar.proto.v1.GateScores s) {
    return new GateScores(
        s.getImportance(),
        s.getNovelty(),
        s.getRelevance(),
        s.getCredibility(),
        s.getGranularity(),
        s.getTimeliness());
  }

  static dev.memsidecar.proto.v1.GateScores scores(GateScores s) {
    return dev.memsidecar.proto.v1.GateScores.newBuilder()
        .setImportance(s.importance())
        .setNovelty(s.novelty())
        .setRelevance(s.relevance())
        .setCredibility(s.credibility())
        .setGranularity(s.granularity())
        .setTimeliness(s.timeliness())
        .build();
  }

  /** The api kind, or {@code null} for UNSPECIFIED. */
  static dev.memsidecar.api.MemoryKind kind(MemoryKind kind, String field) {
    return switch (kind) {
      case MEMORY_KIND_UNSPECIFIED -> null;
      case MEMORY_KIND_SEMANTIC -> dev.memsidecar.api.MemoryKind.SEMANTIC;
      case MEMORY_KIND_EPISODIC -> dev.memsidecar.api.MemoryKind.EPISODIC;
      case MEMORY_KIND_PROCEDURAL -> dev.memsidecar.api.MemoryKind.PROCEDURAL;
      case UNRECOGNIZED ->
          throw MemoryException.invalidArgument(field, field + " is not a known kind");
    };
  }

  /** The api kinds; INVALID_ARGUMENT past {@link Limits#MAX_KINDS} or for an unknown kind. */
  static Set<dev.memsidecar.api.MemoryKind> kinds(List<MemoryKind> kinds) {
    Limits.checkCount("kinds", kinds.size(), Limits.MAX_KINDS);
    Set<dev.memsidecar.api.MemoryKind> out = EnumSet.noneOf(dev.memsidecar.api.MemoryKind.class);
    for (MemoryKind k : kinds) {
      dev.memsidecar.api.MemoryKind kind = kind(k, "kinds");
      if (kind != null) {
        out.add(kind);
      }
    }
    return out;
  }

  /** The api validity, or {@code null} for UNSPECIFIED. */
  static dev.memsidecar.api.Validity validity(Validity v) {
    return switch (v) {
      case VALIDITY_UNSPECIFIED -> null;
      case VALIDITY_LONG_TERM -> dev.memsidecar.api.Validity.LONG_TERM;
      case VALIDITY_SHORT_TERM -> dev.memsidecar.api.Validity.SHORT_TERM;
      case UNRECOGNIZED ->
          throw MemoryException.invalidArgument("validity", "validity is not known");
    };
  }

  static Memory memory(StoredMemory stored) {
    MemoryRecord r = stored.record();
    Memory.Builder b =
        Memory.newBuilder()
            .setId(r.id())
            .setNamespace(r.namespace().value())
            .setProfile(r.profile())
            .setKind(
                switch (r.kind()) {
                  case SEMANTIC -> MemoryKind.MEMORY_KIND_SEMANTIC;
                  case EPISODIC -> MemoryKind.MEMORY_KIND_EPISODIC;
                  case PROCEDURAL -> MemoryKind.MEMORY_KIND_PROCEDURAL;
                })
            .setContent(r.content())
            .setSummary(r.summary())
            .setConfidence(r.confidence())
            .addAllTags(r.tags())
            .setSensitivity(r.sensitivity())
            .putAllMetadata(r.metadata())
            .setCreateTime(timestamp(r.createTime()))
            .setUpdateTime(timestamp(r.updateTime()))
            .setGateScore(r.gateScore())
            .setStatus(
                switch (r.status()) {
                  case ACTIVE -> MemoryStatus.MEMORY_STATUS_ACTIVE;
                  case SUPERSEDED -> MemoryStatus.MEMORY_STATUS_SUPERSEDED;
                  case FORGOTTEN -> MemoryStatus.MEMORY_STATUS_FORGOTTEN;
                })
            .addAllSourceRefs(r.sourceRefs())
            .setValidity(
                switch (r.validity()) {
                  case LONG_TERM -> Validity.VALIDITY_LONG_TERM;
                  case SHORT_TERM -> Validity.VALIDITY_SHORT_TERM;
                })
            .setProvider(stored.provider());
    if (r.expireTime() != null) {
      b.setExpireTime(timestamp(r.expireTime()));
    }
    return b.build();
  }

  static SearchHit hit(MemoryHit hit) {
    return SearchHit.newBuilder().setMemory(memory(hit.memory())).setScore(hit.score()).build();
  }

  static dev.memsidecar.proto.v1.WriteDecision decision(WriteDecision d) {
    return dev.memsidecar.proto.v1.WriteDecision.newBuilder()
        .setOutcome(
            switch (d.outcome()) {
              case STORED -> WriteOutcome.WRITE_OUTCOME_STORED;
              case MERGED -> WriteOutcome.WRITE_OUTCOME_MERGED;
              case REJECTED -> WriteOutcome.WRITE_OUTCOME_REJECTED;
            })
        .setMemory(memory(d.memory()))
        .setGateScore(d.gateScore())
        .setScores(scores(d.scores()))
        .setReason(d.reason())
        .build();
  }

  /** The outcome a ListWriteDecisions filter names, or null for UNSPECIFIED (all). */
  static WriteDecision.Outcome outcome(WriteOutcome outcome) {
    return switch (outcome) {
      case WRITE_OUTCOME_UNSPECIFIED -> null;
      case WRITE_OUTCOME_STORED -> WriteDecision.Outcome.STORED;
      case WRITE_OUTCOME_MERGED -> WriteDecision.Outcome.MERGED;
      case WRITE_OUTCOME_REJECTED -> WriteDecision.Outcome.REJECTED;
      case UNRECOGNIZED ->
          throw MemoryException.invalidArgument("outcome", "outcome is not a WriteOutcome");
    };
  }

  static List<dev.memsidecar.api.ToolCall> toolCalls(List<ToolCall> calls) {
    return calls.stream()
        .map(
            c ->
                new dev.memsidecar.api.ToolCall(
                    c.getToolName(), c.getOk(), c.getErrorCategory(), c.getErrorMessage()))
        .toList();
  }

  static BeginRunResponse beginRun(RunSnapshot s) {
    BeginRunResponse.Builder b =
        BeginRunResponse.newBuilder()
            .setRunId(s.runId())
            .setSnapshotId(s.snapshotId())
            .addAllMemoryFilePaths(s.memoryFilePaths());
    for (RunSnapshot.Section section : s.sections()) {
      b.addSections(
          PromptSection.newBuilder()
              .setId(section.id())
              .setTitle(section.title())
              .setBody(section.body()));
    }
    s.recalled().forEach(h -> b.addRecalled(hit(h)));
    s.evidence().forEach(h -> b.addEvidence(SessionMapping.hit(h)));
    b.setCuratedHash(s.curatedHash());
    for (RunSnapshot.SkillRef k : s.skills()) {
      b.addSkills(
          dev.memsidecar.proto.v1.Skill.newBuilder()
              .setName(k.name())
              .setVersion(k.version())
              .setDescription(k.description())
              .setPath(k.path()));
    }
    return b.build();
  }

  static EndRunResponse endRun(EndRunResult r) {
    EndRunResponse.Builder b =
        EndRunResponse.newBuilder().setRunId(r.runId()).setWritten(r.written());
    r.decisions().forEach(d -> b.addDecisions(decision(d)));
    r.capturedRules().forEach(rule -> b.addCapturedRules(toolRule(rule)));
    return b.build();
  }

  /** The wire form of a tool rule (EndRun's captured rules, every ToolRuleService answer). */
  static dev.memsidecar.proto.v1.ToolRule toolRule(ToolRule r) {
    return dev.memsidecar.proto.v1.ToolRule.newBuilder()
        .setId(r.id())
        .setToolName(r.toolName())
        .setRule(r.rule())
        .setPriority(
            switch (r.priority()) {
              case CRITICAL -> ToolRulePriority.TOOL_RULE_PRIORITY_CRITICAL;
              case HIGH -> ToolRulePriority.TOOL_RULE_PRIORITY_HIGH;
              case NORMAL -> ToolRulePriority.TOOL_RULE_PRIORITY_NORMAL;
            })
        .setSource(
            switch (r.source()) {
              case USER_EXPLICIT -> ToolRuleSource.TOOL_RULE_SOURCE_USER_EXPLICIT;
              case POST_TURN -> ToolRuleSource.TOOL_RULE_SOURCE_POST_TURN;
              case PROGRAMMATIC -> ToolRuleSource.TOOL_RULE_SOURCE_PROGRAMMATIC;
            })
        .addAllTags(r.tags())
        .setCreateTime(timestamp(r.createTime()))
        .setUpdateTime(timestamp(r.updateTime()))
        .build();
  }

  /** UNSPECIFIED means normal. */
  static ToolRule.Priority priority(ToolRulePriority p) {
    return switch (p) {
      case TOOL_RULE_PRIORITY_CRITICAL -> ToolRule.Priority.CRITICAL;
      case TOOL_RULE_PRIORITY_HIGH -> ToolRule.Priority.HIGH;
      case TOOL_RULE_PRIORITY_NORMAL, TOOL_RULE_PRIORITY_UNSPECIFIED -> ToolRule.Priority.NORMAL;
      case UNRECOGNIZED ->
          throw MemoryException.invalidArgument("rule.priority", "rule.priority is unknown");
    };
  }

  /** UNSPECIFIED means programmatic. */
  static ToolRule.Source source(ToolRuleSource s) {
    return switch (s) {
      case TOOL_RULE_SOURCE_USER_EXPLICIT -> ToolRule.Source.USER_EXPLICIT;
      case TOOL_RULE_SOURCE_POST_TURN -> ToolRule.Source.POST_TURN;
      case TOOL_RULE_SOURCE_PROGRAMMATIC, TOOL_RULE_SOURCE_UNSPECIFIED ->
          ToolRule.Source.PROGRAMMATIC;
      case UNRECOGNIZED ->
          throw MemoryException.invalidArgument("rule.source", "rule.source is unknown");
    };
  }

  static Timestamp timestamp(Instant t) {
    return Timestamp.newBuilder().setSeconds(t.getEpochSecond()).setNanos(t.getNano()).build();
  }

  static com.google.protobuf.Duration duration(Duration d) {
    return com.google.protobuf.Duration.newBuilder()
        .setSeconds(d.getSeconds())
        .setNanos(d.getNano())
        .build();
  }
}
