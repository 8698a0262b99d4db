package dev.memsidecar.core.control;

import dev.memsidecar.api.GateScores;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Validity;
import dev.memsidecar.core.MemoryHit;
import dev.memsidecar.core.StoredMemory;
import dev.memsidecar.core.WriteDecision;
import dev.memsidecar.core.run.EndRunResult;
import dev.memsidecar.core.run.RunSnapshot;
import dev.memsidecar.core.sessions.MessageRole;
import dev.memsidecar.core.sessions.SessionHit;
import dev.memsidecar.core.sessions.SessionKey;
import dev.memsidecar.core.sessions.SessionMessage;
import dev.memsidecar.core.sessions.SessionStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Fully populated values for the control store's tests, with text that is hard to keep. */
final class ControlFixtures {
  static final Instant T0 = Instant.parse("2025-03-01T10:15:30.123456789Z");

  /** A lone surrogate, an emoji, Chinese, quotes, a backslash, control characters. */
  static final String ODD_TEXT =
      "lone \uD800 high, lone \uDC00 low, 🚀, 用户喜欢简洁的回答, \"quoted\" \\ back\tslash\n"
          + "line\u0000nul\u2028sep";

  private ControlFixtures() {}

  static MemoryRecord record(String id, String content) {
    return MemoryRecord.builder()
        .id(id)
        .namespace(Namespace.of("acme:user:alice:user"))
        .profile("user")
        .kind(MemoryKind.PROCEDURAL)
        .content(content)
        .summary("summary " + ODD_TEXT)
        .context("context " + ODD_TEXT)
        .confidence(0.85f)
        .tags(List.of("deploy", "标签", "ops"))
        .sensitivity("pii")
        .metadata(Map.of("source", "chat", "zh", "记住", "odd", ODD_TEXT))
        .createTime(T0)
        .updateTime(T0.plusNanos(1))
        .gateScore(7.3f)
        .status(MemoryStatus.SUPERSEDED)
        .sourceRefs(List.of("run-1", "remember:req-7"))
        .validity(Validity.SHORT_TERM)
        .expireTime(T0.plus(Duration.ofDays(7)))
        .build();
  }

  static WriteDecision decision(WriteDecision.Outcome outcome, String content) {
    return new WriteDecision(
        outcome,
        new StoredMemory(record("m-" + Math.abs(content.hashCode()), content), "langmem-sqlite"),
        7.3f,
        new GateScores(9, 7.5f, 8, 6.1f, 5, 0.1f),
        "stored: 7.3 >= threshold 7.0 (scored) " + ODD_TEXT);
  }

  /** {@code n} decisions with outcomes STORED, MERGED, REJECTED in turn. */
  static List<WriteDecision> decisions(String prefix, int n) {
    List<WriteDecision> out = new ArrayList<>();
    WriteDecision.Outcome[] outcomes = WriteDecision.Outcome.values();
    for (int i = 0; i < n; i++) {
      out.add(decision(outcomes[i % outcomes.length], prefix + " fact " + i));
    }
    return out;
  }

  static EndRunResult result(String runId, int decisions) {
    return new EndRunResult(runId, T0, true, decisions(runId, decisions), List.of());
  }

  static RunSnapshot snapshot(String runId, String snapshotId, Instant created, Duration ttl) {
    return new RunSnapshot(
        runId,
        snapshotId,
        created,
        created.plus(ttl),
        List.of(
            new RunSnapshot.Section("runtime_context", "Runtime context", "UTC: " + created),
            new RunSnapshot.Section("tool_rules", "Tool rules", ""),
            new RunSnapshot.Section(
                "recalled_memory", "Relevant long-term memory", "- [user/procedural] " + ODD_TEXT)),
        List.of(
            new MemoryHit(new StoredMemory(record("r1", "npm run check:rules"), "lucene"), 0.93f),
            new MemoryHit(new StoredMemory(record("r2", ODD_TEXT), "langmem-sqlite"), 0.5f)),
        List.of("/memories/AGENTS.md", "/memories/用户.md"),
        List.of("send_email", "bash"),
        List.of(
            new SessionHit(
                new SessionMessage(
                    "m1",
                    "s1",
                    3,
                    MessageRole.USER,
                    "Caroline",
                    ODD_TEXT,
                    null,
                    null,
                    created.minusSeconds(60),
                    true,
                    0,
                    0,
                    "",
                    runId,
                    Map.of("k", "v")),
                4.25f,
                ODD_TEXT,
                SessionMessage.of(MessageRole.ASSISTANT, "Melanie", "What happened?", created)
                    .stored("m0", "s1", 2, created.minusSeconds(90)),
                null)));
  }

  /** The tables as schema version 1 (issue 7) created them in H2, for the migration tests. */
  static final List<String> VERSION_1_DDL =
      List.of(
          "CREATE TABLE control_schema (id INTEGER NOT NULL PRIMARY KEY,"
              + " version INTEGER NOT NULL)",
          "CREATE TABLE run_snapshots (workspace_id CHARACTER VARYING NOT NULL,"
              + " user_id CHARACTER VARYING NOT NULL, agent_id CHARACTER VARYING NOT NULL,"
              + " session_id CHARACTER VARYING NOT NULL, run_id CHARACTER VARYING NOT NULL,"
              + " snapshot_id CHARACTER VARYING NOT NULL, created_at BIGINT NOT NULL,"
              + " expire_at BIGINT NOT NULL, snapshot_json CHARACTER VARYING NOT NULL,"
              + " PRIMARY KEY (workspace_id, user_id, agent_id, session_id, run_id))",
          "CREATE INDEX run_snapshots_by_expiry ON run_snapshots (expire_at)",
          "CREATE TABLE run_results (workspace_id CHARACTER VARYING NOT NULL,"
              + " user_id CHARACTER VARYING NOT NULL, agent_id CHARACTER VARYING NOT NULL,"
              + " session_id CHARACTER VARYING NOT NULL, run_id CHARACTER VARYING NOT NULL,"
              + " end_at BIGINT NOT NULL, result_json CHARACTER VARYING NOT NULL,"
              + " PRIMARY KEY (workspace_id, user_id, agent_id, session_id, run_id))",
          "CREATE TABLE write_decisions (seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
              + " workspace_id CHARACTER VARYING NOT NULL, user_id CHARACTER VARYING NOT NULL,"
              + " agent_id CHARACTER VARYING NOT NULL, session_id CHARACTER VARYING NOT NULL,"
              + " run_id CHARACTER VARYING NOT NULL, decided_at BIGINT NOT NULL,"
              + " outcome VARCHAR(16) NOT NULL, decision_json CHARACTER VARYING NOT NULL)",
          "CREATE INDEX write_decisions_by_workspace ON write_decisions (workspace_id, seq)",
          "CREATE INDEX write_decisions_by_run ON write_decisions (workspace_id, run_id, seq)");

  /** The tables schema version 2 (issue 8) added, as it created them in H2. */
  static final List<String> VERSION_2_DDL =
      List.of(
          "CREATE TABLE tool_rules (workspace_id CHARACTER VARYING NOT NULL,"
              + " tool_name CHARACTER VARYING NOT NULL, id CHARACTER VARYING NOT NULL,"
              + " rule CHARACTER VARYING NOT NULL, rule_key VARCHAR(64) NOT NULL,"
              + " priority VARCHAR(16) NOT NULL, source VARCHAR(32) NOT NULL,"
              + " tags_json CHARACTER VARYING NOT NULL, objects_json CHARACTER VARYING NOT NULL,"
              + " created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,"
              + " PRIMARY KEY (workspace_id, tool_name, id),"
              + " CONSTRAINT tool_rules_by_text UNIQUE (workspace_id, tool_name, rule_key))",
          "CREATE TABLE tool_stats (workspace_id CHARACTER VARYING NOT NULL,"
              + " tool_name CHARACTER VARYING NOT NULL, calls BIGINT NOT NULL,"
              + " failures BIGINT NOT NULL, denials BIGINT NOT NULL, last_failure_at BIGINT,"
              + " last_error CHARACTER VARYING NOT NULL, PRIMARY KEY (workspace_id, tool_name))",
          "CREATE TABLE tool_failures (workspace_id CHARACTER VARYING NOT NULL,"
              + " tool_name CHARACTER VARYING NOT NULL, category CHARACTER VARYING NOT NULL,"
              + " failures BIGINT NOT NULL, PRIMARY KEY (workspace_id, tool_name, category))",
          "CREATE TABLE tool_denials (seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
              + " workspace_id CHARACTER VARYING NOT NULL, tool_name CHARACTER VARYING NOT NULL,"
              + " rule_id CHARACTER VARYING NOT NULL, matched_object CHARACTER VARYING NOT NULL,"
              + " run_id CHARACTER VARYING NOT NULL, denied_at BIGINT NOT NULL)",
          "CREATE INDEX tool_denials_by_workspace ON tool_denials (workspace_id, denied_at, seq)",
          "CREATE INDEX tool_denials_by_tool ON tool_denials"
              + " (workspace_id, tool_name, denied_at, seq)");

  /** Appends messages and writes their postings, as a session service does behind the append. */
  static void appendAndIndex(
      SqlControlStore store,
      SessionKey key,
      List<SessionMessage> messages,
      List<SessionStore.IndexTerms> terms,
      Instant now) {
    List<SessionMessage> stored = store.append(key, "", messages, terms, now);
    List<SessionStore.Unindexed> unindexed = new ArrayList<>();
    for (int i = 0; i < stored.size(); i++) {
      SessionMessage m = stored.get(i);
      unindexed.add(
          new SessionStore.Unindexed(key, m.sequence(), m.time(), m.role(), terms.get(i)));
    }
    store.index(unindexed);
  }
}
