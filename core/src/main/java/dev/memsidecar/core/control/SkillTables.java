package dev.memsidecar.core.control;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.learning.SkillVersion;
import dev.memsidecar.core.learning.Task;
import dev.memsidecar.core.learning.TaskKey;
import dev.memsidecar.core.learning.TaskState;
import dev.memsidecar.core.sessions.SessionKey;
import dev.memsidecar.core.sessions.SessionMessage;
import dev.memsidecar.core.skills.Approval;
import dev.memsidecar.core.skills.CandidateEvidence;
import dev.memsidecar.core.skills.CandidateStatus;
import dev.memsidecar.core.skills.PublishedSkill;
import dev.memsidecar.core.skills.SkillCandidate;
import dev.memsidecar.core.skills.SkillStore;
import dev.memsidecar.jdbc.Database;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Skill candidates ({@code skill_candidates}), their evidence ({@code skill_candidate_evidence}),
 * approvals ({@code approvals}) and published skill versions ({@code skill_versions}), {@link
 * ControlSchema}; and what the miner reads of receipts, tasks and session messages.
 *
 * <p>A candidate is written whole, in one transaction: its row (the JSON of everything but its
 * approval and evidence), its approval's row, and its evidence rows (deleted and inserted again, in
 * order). An update names the status it expects and locks the row first, so a miner and a reviewer
 * never both win. A publish inserts the version's row (its key is the version: two publishes of one
 * version cannot both succeed) with the candidate's update. Thread-safe.
 */
final class SkillTables {
  private static final String CANDIDATE_KEY = "workspace_id = ? AND candidate_id = ?";

  private final ControlDatabase db;

  SkillTables(ControlDatabase db) {
    this.db = db;
  }

  /** What {@code candidate_json} holds: a candidate without its approval and evidence. */
  private record CandidateRow(
      String name,
      String description,
      CandidateStatus status,
      String draft,
      String synthesizer,
      SkillVersion published,
      Instant createTime,
      Instant updateTime) {}

  // ---------------------------------------------------------------- what mining reads

  List<String> learningWorkspaces(int limit) {
    return db.run(
        "list the workspaces with runs",
        c -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  "SELECT DISTINCT workspace_id FROM "
                      + ControlSchema.RECEIPTS
                      + " ORDER BY workspace_id LIMIT ?")) {
            st.setInt(1, limit);
            List<String> out = new ArrayList<>();
            try (ResultSet rs = st.executeQuery()) {
              while (rs.next()) {
                out.add(rs.getString(1));
              }
            }
            return List.copyOf(out);
          }
        });
  }

  Map<String, String> sessionsOfRuns(String workspaceId, Collection<String> runIds) {
    if (runIds.isEmpty()) {
      return Map.of();
    }
    return db.run(
        "read the sessions of runs",
        c -> {
          Map<String, String> out = new HashMap<>();
          // One lookup per run: H2 walks an index for an IN list only on its first column.
          try (PreparedStatement st =
              c.prepareStatement(
                  "SELECT user_id, session_id FROM "
                      + ControlSchema.RECEIPTS
                      + " WHERE workspace_id = ? AND run_id = ? ORDER BY seq DESC LIMIT 1")) {
            for (String run : new LinkedHashSet<>(runIds)) {
              st.setString(1, workspaceId);
              st.setString(2, run);
              try (ResultSet rs = st.executeQuery()) {
                if (rs.next()) {
                  out.put(run, SkillStore.sessionRef(rs.getString(1), rs.getString(2)));
                }
              }
            }
          }
          return Map.copyOf(out);
        });
  }

  List<SessionMessage> runMessages(SessionKey session, Collection<String> runIds, int limit) {
    if (runIds.isEmpty()) {
      return List.of();
    }
    return db.run(
        "read the messages of runs",
        c -> {
          List<SessionMessage> out = new ArrayList<>();
          try (PreparedStatement st =
              c.prepareStatement(
                  "SELECT "
                      + SessionTables.MESSAGE_COLUMNS
                      + " FROM "
                      + ControlSchema.SESSION_MESSAGES
                      + " WHERE "
                      + SessionTables.KEY
                      + " AND run_id = ? AND visible = TRUE ORDER BY seq LIMIT ?")) {
            for (String run : new LinkedHashSet<>(runIds)) {
              int i = SessionTables.bindKey(st, 1, session);
              st.setString(i++, run);
              st.setInt(i, limit);
              try (ResultSet rs = st.executeQuery()) {
                while (rs.next() && out.size() < limit) {
                  out.add(SessionTables.message(rs, 0));
                }
              }
            }
          }
          out.sort((a, b) -> Long.compare(a.sequence(), b.sequence()));
          return List.copyOf(out);
        });
  }

  List<TaskKey> acceptedTasksWithoutCandidate(String workspaceId, int limit) {
    return db.run(
        "list accepted tasks without a skill candidate",
        c -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  "SELECT t.user_id, t.task_id FROM "
                      + ControlSchema.TASKS
                      + " t WHERE t.workspace_id = ? AND t.state = ? AND NOT EXISTS (SELECT 1 FROM "
                      + ControlSchema.SKILL_EVIDENCE
                      + " e WHERE e.workspace_id = t.workspace_id"
                      + " AND e.subject = CONCAT('task:', t.user_id, '/', t.task_id))"
                      + " ORDER BY t.accepted_at DESC, t.user_id, t.task_id LIMIT ?")) {
            st.setString(1, workspaceId);
            st.setString(2, TaskState.ACCEPTED.name());
            st.setInt(3, limit);
            List<TaskKey> out = new ArrayList<>();
            try (ResultSet rs = st.executeQuery()) {
              while (rs.next()) {
                out.add(new TaskKey(workspaceId, rs.getString(1), rs.getString(2)));
              }
            }
            return List.copyOf(out);
          }
        });
  }

  // ---------------------------------------------------------------- candidates

  List<SkillCandidate> candidatesHolding(String workspaceId, Collection<String> subjects) {
    if (subjects.isEmpty()) {
      return List.of();
    }
    return db.run(
        "find the skill candidates holding evidence",
        c -> {
          LinkedHashSet<String> ids = new LinkedHashSet<>();
          try (PreparedStatement st =
              c.prepareStatement(
                  "SELECT candidate_id FROM "
                      + ControlSchema.SKILL_EVIDENCE
                      + " WHERE workspace_id = ? AND subject = ?")) {
            for (String subject : new LinkedHashSet<>(subjects)) {
              st.setString(1, workspaceId);
              st.setString(2, subject);
              try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                  ids.add(rs.getString(1));
                }
              }
            }
          }
          List<SkillCandidate> out = new ArrayList<>();
          for (String id : ids) {
            read(c, workspaceId, id).ifPresent(out::add);
          }
          return List.copyOf(out);
        });
  }

  Optional<SkillCandidate> candidate(String workspaceId, String candidateId) {
    return db.run("read skill candidate " + candidateId, c -> read(c, workspaceId, candidateId));
  }

  List<SkillCandidate> candidates(SkillStore.CandidateQuery q) {
    requireNonNull(q, "q is null");
    StringBuilder sql =
        new StringBuilder(
            "SELECT candidate_id FROM "
                + ControlSchema.SKILL_CANDIDATES
                + " WHERE workspace_id = ?");
    if (q.status() != null) {
      sql.append(" AND status = ?");
    }
    if (q.after() != null) {
      sql.append(" AND (updated_at < ? OR (updated_at = ? AND candidate_id < ?))");
    }
    sql.append(" ORDER BY updated_at DESC, candidate_id DESC LIMIT ?");
    return db.run(
        "list skill candidates",
        c -> {
          List<String> ids = new ArrayList<>();
          try (PreparedStatement st = c.prepareStatement(sql.toString())) {
            int i = 1;
            st.setString(i++, q.workspaceId());
            if (q.status() != null) {
              st.setString(i++, q.status().name());
            }
            if (q.after() != null) {
              long at = ControlSchema.nanos(q.after().updateTime());
              st.setLong(i++, at);
              st.setLong(i++, at);
              st.setString(i++, q.after().candidateId());
            }
            st.setInt(i, q.limit());
            try (ResultSet rs = st.executeQuery()) {
              while (rs.next()) {
                ids.add(rs.getString(1));
              }
            }
          }
          List<SkillCandidate> out = new ArrayList<>();
          for (String id : ids) {
            read(c, q.workspaceId(), id).ifPresent(out::add);
          }
          return List.copyOf(out);
        });
  }

  void insertCandidate(SkillCandidate candidate) {
    requireNonNull(candidate, "candidate is null");
    db.run(
        "keep skill candidate " + candidate.candidateId(),
        c ->
            Database.inTransaction(
                c,
                () -> {
                  try (PreparedStatement st =
                      c.prepareStatement(
                          "INSERT INTO "
                              + ControlSchema.SKILL_CANDIDATES
                              + " (workspace_id, candidate_id, name, status, created_at,"
                              + " updated_at, candidate_json) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                    st.setString(1, candidate.workspaceId());
                    st.setString(2, candidate.candidateId());
                    st.setString(3, candidate.name());
                    st.setString(4, candidate.status().name());
                    st.setLong(5, ControlSchema.exactNanos(candidate.createTime(), "createTime"));
                    st.setLong(6, ControlSchema.exactNanos(candidate.updateTime(), "updateTime"));
                    st.setString(7, ControlJson.write(row(candidate)));
                    st.executeUpdate();
                  }
                  try (PreparedStatement st =
                      c.prepareStatement(
                          "INSERT INTO "
                              + ControlSchema.APPROVALS
                              + " (approval_id, workspace_id, kind, subject_id, state, reason,"
                              + " decided_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
                    Approval a = candidate.approval();
                    st.setString(1, a.approvalId());
                    st.setString(2, candidate.workspaceId());
                    st.setString(3, a.kind());
                    st.setString(4, candidate.candidateId());
                    bindDecision(st, 5, a);
                    st.setLong(8, ControlSchema.exactNanos(a.createTime(), "createTime"));
                    st.executeUpdate();
                  }
                  writeEvidence(c, candidate);
                  return null;
                }));
  }

  boolean updateCandidate(SkillCandidate candidate, CandidateStatus expected) {
    requireNonNull(candidate, "candidate is null");
    requireNonNull(expected, "expected is null");
    return db.run(
        "update skill candidate " + candidate.candidateId(),
        c -> Database.inTransaction(c, () -> update(c, candidate, expected)));
  }

  /** Locks the candidate's row and replaces it if its status is {@code expected}. */
  private static boolean update(Connection c, SkillCandidate candidate, CandidateStatus expected)
      throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT status FROM "
                + ControlSchema.SKILL_CANDIDATES
                + " WHERE "
                + CANDIDATE_KEY
                + " FOR UPDATE")) {
      st.setString(1, candidate.workspaceId());
      st.setString(2, candidate.candidateId());
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next() || !rs.getString(1).equals(expected.name())) {
          return false;
        }
      }
    }
    try (PreparedStatement st =
        c.prepareStatement(
            "UPDATE "
                + ControlSchema.SKILL_CANDIDATES
                + " SET name = ?, status = ?, updated_at = ?, candidate_json = ? WHERE "
                + CANDIDATE_KEY)) {
      st.setString(1, candidate.name());
      st.setString(2, candidate.status().name());
      st.setLong(3, ControlSchema.exactNanos(candidate.updateTime(), "updateTime"));
      st.setString(4, ControlJson.write(row(candidate)));
      st.setString(5, candidate.workspaceId());
      st.setString(6, candidate.candidateId());
      st.executeUpdate();
    }
    try (PreparedStatement st =
        c.prepareStatement(
            "UPDATE "
                + ControlSchema.APPROVALS
                + " SET state = ?, reason = ?, decided_at = ? WHERE approval_id = ?")) {
      bindDecision(st, 1, candidate.approval());
      st.setString(4, candidate.approval().approvalId());
      st.executeUpdate();
    }
    try (PreparedStatement st =
        c.prepareStatement(
            "DELETE FROM " + ControlSchema.SKILL_EVIDENCE + " WHERE " + CANDIDATE_KEY)) {
      st.setString(1, candidate.workspaceId());
      st.setString(2, candidate.candidateId());
      st.executeUpdate();
    }
    writeEvidence(c, candidate);
    return true;
  }

  private static void writeEvidence(Connection c, SkillCandidate candidate) throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO "
                + ControlSchema.SKILL_EVIDENCE
                + " (workspace_id, candidate_id, subject, position, kind, evidence_json)"
                + " VALUES (?, ?, ?, ?, ?, ?)")) {
      int position = 0;
      for (CandidateEvidence e : candidate.evidence()) {
        st.setString(1, candidate.workspaceId());
        st.setString(2, candidate.candidateId());
        st.setString(3, e.subject());
        st.setInt(4, position++);
        st.setString(5, e.kind().name());
        st.setString(6, ControlJson.write(e));
        st.addBatch();
      }
      st.executeBatch();
    }
  }

  /** Binds state, reason, then decided_at at {@code first + 2}. */
  private static void bindDecision(PreparedStatement st, int first, Approval a)
      throws SQLException {
    st.setString(first, a.state().name());
    st.setString(first + 1, a.reason());
    if (a.decideTime() == null) {
      st.setNull(first + 2, Types.BIGINT);
    } else {
      st.setLong(first + 2, ControlSchema.exactNanos(a.decideTime(), "decideTime"));
    }
  }

  private static CandidateRow row(SkillCandidate s) {
    return new CandidateRow(
        s.name(),
        s.description(),
        s.status(),
        s.draft(),
        s.synthesizer(),
        s.published(),
        s.createTime(),
        s.updateTime());
  }

  /** The candidate with its approval and evidence. */
  private static Optional<SkillCandidate> read(Connection c, String workspaceId, String id)
      throws SQLException {
    CandidateRow row;
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT candidate_json FROM "
                + ControlSchema.SKILL_CANDIDATES
                + " WHERE "
                + CANDIDATE_KEY)) {
      st.setString(1, workspaceId);
      st.setString(2, id);
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        row = ControlJson.read(rs.getString(1), CandidateRow.class, "skill candidate " + id);
      }
    }
    Approval approval;
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT approval_id, kind, state, reason, created_at, decided_at FROM "
                + ControlSchema.APPROVALS
                + " WHERE workspace_id = ? AND kind = ? AND subject_id = ?")) {
      st.setString(1, workspaceId);
      st.setString(2, Approval.SKILL_CANDIDATE);
      st.setString(3, id);
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("skill candidate " + id + " has no approval");
        }
        long decided = rs.getLong(6);
        Instant decideTime = rs.wasNull() ? null : ControlSchema.instant(decided);
        approval =
            new Approval(
                rs.getString(1),
                rs.getString(2),
                Approval.State.valueOf(rs.getString(3)),
                rs.getString(4),
                ControlSchema.instant(rs.getLong(5)),
                decideTime);
      }
    }
    List<CandidateEvidence> evidence = new ArrayList<>();
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT evidence_json FROM "
                + ControlSchema.SKILL_EVIDENCE
                + " WHERE "
                + CANDIDATE_KEY
                + " ORDER BY position")) {
      st.setString(1, workspaceId);
      st.setString(2, id);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          evidence.add(
              ControlJson.read(
                  rs.getString(1), CandidateEvidence.class, "evidence of skill candidate " + id));
        }
      }
    }
    return Optional.of(
        new SkillCandidate(
            id,
            workspaceId,
            row.name(),
            row.description(),
            row.status(),
            row.draft(),
            row.synthesizer(),
            evidence,
            approval,
            row.published(),
            row.createTime(),
            row.updateTime()));
  }

  // ---------------------------------------------------------------- published skills

  int latestVersion(String workspaceId, String name) {
    return db.run(
        "read the latest version of skill " + name,
        c -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  "SELECT MAX(version) FROM "
                      + ControlSchema.SKILL_VERSIONS
                      + " WHERE workspace_id = ? AND name = ?")) {
            st.setString(1, workspaceId);
            st.setString(2, name);
            try (ResultSet rs = st.executeQuery()) {
              return rs.next() ? rs.getInt(1) : 0;
            }
          }
        });
  }

  boolean recordPublish(
      String workspaceId,
      PublishedSkill version,
      SkillCandidate candidate,
      CandidateStatus expected) {
    return db.run(
        "record version " + version.version() + " of skill " + version.name(),
        c ->
            Database.inTransaction(
                c,
                () -> {
                  if (!update(c, candidate, expected)) {
                    return false;
                  }
                  try (PreparedStatement st =
                      c.prepareStatement(
                          "INSERT INTO "
                              + ControlSchema.SKILL_VERSIONS
                              + " (workspace_id, name, version, candidate_id, description, etag,"
                              + " published_at) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                    st.setString(1, workspaceId);
                    st.setString(2, version.name());
                    st.setInt(3, version.version());
                    st.setString(4, version.candidateId());
                    st.setString(5, version.description());
                    st.setString(6, version.etag());
                    st.setLong(7, ControlSchema.exactNanos(version.publishTime(), "publishTime"));
                    if (!db.insertUnlessTaken(st)) {
                      c.rollback();
                      return false;
                    }
                  }
                  return true;
                }));
  }

  private static final String VERSION_COLUMNS =
      "name, version, description, candidate_id, etag, published_at";

  List<PublishedSkill> skills(String workspaceId, String afterName, String onlyName, int limit) {
    StringBuilder sql =
        new StringBuilder(
            "SELECT "
                + VERSION_COLUMNS
                + " FROM "
                + ControlSchema.SKILL_VERSIONS
                + " v WHERE workspace_id = ? AND version = (SELECT MAX(version) FROM "
                + ControlSchema.SKILL_VERSIONS
                + " w WHERE w.workspace_id = v.workspace_id AND w.name = v.name)");
    if (!afterName.isEmpty()) {
      sql.append(" AND name > ?");
    }
    if (!onlyName.isEmpty()) {
      sql.append(" AND name = ?");
    }
    sql.append(" ORDER BY name LIMIT ?");
    return db.run(
        "list published skills",
        c -> {
          try (PreparedStatement st = c.prepareStatement(sql.toString())) {
            int i = 1;
            st.setString(i++, workspaceId);
            if (!afterName.isEmpty()) {
              st.setString(i++, afterName);
            }
            if (!onlyName.isEmpty()) {
              st.setString(i++, onlyName);
            }
            st.setInt(i, limit);
            return versions(st);
          }
        });
  }

  List<PublishedSkill> versions(String workspaceId, String name) {
    return db.run(
        "list the versions of skill " + name,
        c -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  "SELECT "
                      + VERSION_COLUMNS
                      + " FROM "
                      + ControlSchema.SKILL_VERSIONS
                      + " WHERE workspace_id = ? AND name = ? ORDER BY version DESC")) {
            st.setString(1, workspaceId);
            st.setString(2, name);
            return versions(st);
          }
        });
  }

  private static List<PublishedSkill> versions(PreparedStatement st) throws SQLException {
    List<PublishedSkill> out = new ArrayList<>();
    try (ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        out.add(
            new PublishedSkill(
                rs.getString(1),
                rs.getInt(2),
                rs.getString(3),
                rs.getString(4),
                rs.getString(5),
                ControlSchema.instant(rs.getLong(6))));
      }
    }
    return List.copyOf(out);
  }

  List<Task.SkillEffect> effects(String workspaceId, List<SkillVersion> versions) {
    if (versions.isEmpty()) {
      return List.of();
    }
    return db.run(
        "read skill effects",
        c -> {
          Map<SkillVersion, Task.SkillEffect> out = new LinkedHashMap<>();
          try (PreparedStatement st =
              c.prepareStatement(
                  "SELECT accepted_tasks, abandoned_tasks FROM "
                      + ControlSchema.SKILL_EFFECTS
                      + " WHERE workspace_id = ? AND skill = ? AND version = ?")) {
            for (SkillVersion v : versions) {
              st.setString(1, workspaceId);
              st.setString(2, v.name());
              st.setString(3, v.version());
              try (ResultSet rs = st.executeQuery()) {
                out.put(
                    v,
                    rs.next()
                        ? new Task.SkillEffect(v, rs.getLong(1), rs.getLong(2))
                        : new Task.SkillEffect(v, 0, 0));
              }
            }
          }
          return List.copyOf(out.values());
        });
  }
}
