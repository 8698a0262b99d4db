package dev.memsidecar.core.control;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.Scope;
import dev.memsidecar.core.learning.LearningStore;
import dev.memsidecar.core.learning.RunReceipt;
import dev.memsidecar.core.learning.SkillVersion;
import dev.memsidecar.core.learning.Task;
import dev.memsidecar.core.learning.TaskKey;
import dev.memsidecar.core.learning.TaskState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Run receipts ({@code run_receipts}), tasks ({@code tasks}), the skill versions their runs used
 * ({@code task_skills}) and skill effects ({@code skill_effects}), {@link ControlSchema}.
 *
 * <p>A receipt is inserted by {@link RunTables#saveEndRun} in the transaction of its run's result
 * ({@link #insertReceipt}): the run joins its task (created on its first run) and adds its skill
 * versions to the task's. A verdict ({@link #recordAcceptance}) locks the task's row, sets its
 * state, then counts the effects of its skill versions again. Skill effects are counted, not
 * incremented: each count takes the effect's row lock first (skill versions in {@link
 * SkillVersion#BY_NAME} order, after the task's row, so two writers never wait on each other in a
 * circle), and the last writer to take it counts what every writer before it committed. A race to
 * create a row restarts the transaction. Thread-safe.
 */
final class LearningTables {
  private static final String TASK_KEY = "workspace_id = ? AND user_id = ? AND task_id = ?";
  private static final String SKILL_KEY = "workspace_id = ? AND skill = ? AND version = ?";

  private final ControlDatabase db;

  LearningTables(ControlDatabase db) {
    this.db = db;
  }

  // ---------------------------------------------------------------- writes

  /**
   * Inserts {@code receipt} (its JSON {@code json}) on {@code c}, in the caller's transaction, and
   * joins its run to its task. A duplicate key (a concurrent first run of the task) fails the
   * transaction, which the caller restarts.
   */
  static void insertReceipt(Connection c, RunReceipt receipt, String json) throws SQLException {
    long endAt = ControlSchema.exactNanos(receipt.endTime(), "endTime");
    Scope scope = receipt.scope();
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO "
                + ControlSchema.RECEIPTS
                + " (workspace_id, user_id, agent_id, session_id, run_id, task_id, end_at,"
                + " receipt_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
      ControlDatabase.bindRunKey(st, 1, scope, receipt.runId());
      st.setString(6, receipt.taskId());
      st.setLong(7, endAt);
      st.setString(8, json);
      st.executeUpdate();
    }
    if (receipt.taskId().isEmpty()) {
      return;
    }
    TaskKey key = new TaskKey(scope.workspaceId(), scope.userId(), receipt.taskId());
    TaskState state = lockTask(c, key);
    if (state == null) {
      try (PreparedStatement st =
          c.prepareStatement(
              "INSERT INTO "
                  + ControlSchema.TASKS
                  + " (workspace_id, user_id, task_id, state, final_run_id, run_count, created_at,"
                  + " updated_at, accepted_at) VALUES (?, ?, ?, ?, '', 1, ?, ?, NULL)")) {
        int i = bindTask(st, 1, key);
        st.setString(i++, TaskState.OPEN.name());
        st.setLong(i++, endAt);
        st.setLong(i, endAt);
        st.executeUpdate(); // a duplicate key restarts the transaction
      }
    } else {
      try (PreparedStatement st =
          c.prepareStatement(
              "UPDATE "
                  + ControlSchema.TASKS
                  + " SET run_count = run_count + 1, updated_at = GREATEST(updated_at, ?) WHERE "
                  + TASK_KEY)) {
        st.setLong(1, endAt);
        bindTask(st, 2, key);
        st.executeUpdate();
      }
    }
    List<SkillVersion> added = new ArrayList<>();
    List<SkillVersion> skills = new ArrayList<>(receipt.skills());
    skills.sort(SkillVersion.BY_NAME);
    for (SkillVersion skill : skills) {
      if (addTaskSkill(c, key, skill)) {
        added.add(skill);
      }
    }
    if (state == TaskState.ACCEPTED || state == TaskState.ABANDONED) {
      // A decided task counts towards the effects of the skill versions it just gained.
      countEffects(c, key.workspaceId(), added, endAt);
    }
  }

  /**
   * Sets the task's state and final run, then counts its skill versions' effects again; see {@link
   * LearningStore#recordAcceptance}.
   */
  LearningStore.Verdict recordAcceptance(
      TaskKey key, TaskState state, String finalRunId, Instant now) {
    requireNonNull(key, "key is null");
    requireNonNull(state, "state is null");
    requireNonNull(finalRunId, "finalRunId is null");
    long at = ControlSchema.exactNanos(now, "now");
    return db.run(
        "record the acceptance of task " + key.taskId(),
        c ->
            db.inTransactionRetried(
                c,
                "recording the acceptance of task " + key.taskId(),
                () -> {
                  String stored;
                  TaskState current;
                  try (PreparedStatement st =
                      c.prepareStatement(
                          "SELECT state, final_run_id FROM "
                              + ControlSchema.TASKS
                              + " WHERE "
                              + TASK_KEY
                              + " FOR UPDATE")) {
                    bindTask(st, 1, key);
                    try (ResultSet rs = st.executeQuery()) {
                      if (!rs.next()) {
                        return LearningStore.Verdict.NO_TASK;
                      }
                      current = TaskState.valueOf(rs.getString(1));
                      stored = rs.getString(2);
                    }
                  }
                  if (current == state && stored.equals(finalRunId)) {
                    return LearningStore.Verdict.UNCHANGED;
                  }
                  try (PreparedStatement st =
                      c.prepareStatement(
                          "UPDATE "
                              + ControlSchema.TASKS
                              + " SET state = ?, final_run_id = ?, updated_at = ?, accepted_at = ?"
                              + " WHERE "
                              + TASK_KEY)) {
                    st.setString(1, state.name());
                    st.setString(2, finalRunId);
                    st.setLong(3, at);
                    st.setLong(4, at);
                    bindTask(st, 5, key);
                    st.executeUpdate();
                  }
                  countEffects(c, key.workspaceId(), taskSkills(c, key), at);
                  return LearningStore.Verdict.CHANGED;
                }));
  }

  /** The task's state, its row locked until the transaction ends; null when it does not exist. */
  private static TaskState lockTask(Connection c, TaskKey key) throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT state FROM " + ControlSchema.TASKS + " WHERE " + TASK_KEY + " FOR UPDATE")) {
      bindTask(st, 1, key);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? TaskState.valueOf(rs.getString(1)) : null;
      }
    }
  }

  /** Adds a skill version to the task's; false if it had it. */
  private static boolean addTaskSkill(Connection c, TaskKey key, SkillVersion skill)
      throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT 1 FROM "
                + ControlSchema.TASK_SKILLS
                + " WHERE "
                + TASK_KEY
                + " AND skill = ? AND version = ?")) {
      int i = bindTask(st, 1, key);
      st.setString(i++, skill.name());
      st.setString(i, skill.version());
      try (ResultSet rs = st.executeQuery()) {
        if (rs.next()) {
          return false;
        }
      }
    }
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO "
                + ControlSchema.TASK_SKILLS
                + " (workspace_id, user_id, task_id, skill, version) VALUES (?, ?, ?, ?, ?)")) {
      int i = bindTask(st, 1, key);
      st.setString(i++, skill.name());
      st.setString(i, skill.version());
      st.executeUpdate(); // the task's row is locked: no other writer adds to its skills
    }
    return true;
  }

  /** The task's skill versions, in {@link SkillVersion#BY_NAME} order. */
  private static List<SkillVersion> taskSkills(Connection c, TaskKey key) throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT skill, version FROM "
                + ControlSchema.TASK_SKILLS
                + " WHERE "
                + TASK_KEY
                + " ORDER BY skill, version")) {
      bindTask(st, 1, key);
      List<SkillVersion> out = new ArrayList<>();
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          out.add(new SkillVersion(rs.getString(1), rs.getString(2)));
        }
      }
      out.sort(SkillVersion.BY_NAME); // the database's collation may differ from Java's
      return out;
    }
  }

  /**
   * Counts again, for each skill version (in {@link SkillVersion#BY_NAME} order), the workspace's
   * accepted and abandoned tasks whose runs used it, holding its effect row's lock while counting.
   */
  private static void countEffects(
      Connection c, String workspaceId, List<SkillVersion> skills, long at) throws SQLException {
    for (SkillVersion skill : skills) {
      lockEffect(c, workspaceId, skill, at);
      long accepted = 0;
      long abandoned = 0;
      try (PreparedStatement st =
          c.prepareStatement(
              "SELECT t.state, COUNT(*) FROM "
                  + ControlSchema.TASK_SKILLS
                  + " s JOIN "
                  + ControlSchema.TASKS
                  + " t ON t.workspace_id = s.workspace_id AND t.user_id = s.user_id"
                  + " AND t.task_id = s.task_id WHERE s.workspace_id = ? AND s.skill = ?"
                  + " AND s.version = ? AND t.state IN (?, ?) GROUP BY t.state")) {
        bindSkill(st, 1, workspaceId, skill);
        st.setString(4, TaskState.ACCEPTED.name());
        st.setString(5, TaskState.ABANDONED.name());
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            if (TaskState.valueOf(rs.getString(1)) == TaskState.ACCEPTED) {
              accepted = rs.getLong(2);
            } else {
              abandoned = rs.getLong(2);
            }
          }
        }
      }
      try (PreparedStatement st =
          c.prepareStatement(
              "UPDATE "
                  + ControlSchema.SKILL_EFFECTS
                  + " SET accepted_tasks = ?, abandoned_tasks = ?, updated_at = ? WHERE "
                  + SKILL_KEY)) {
        st.setLong(1, accepted);
        st.setLong(2, abandoned);
        st.setLong(3, at);
        bindSkill(st, 4, workspaceId, skill);
        st.executeUpdate();
      }
    }
  }

  /** Locks the effect row of a skill version until the transaction ends, creating it. */
  private static void lockEffect(Connection c, String workspaceId, SkillVersion skill, long at)
      throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT accepted_tasks FROM "
                + ControlSchema.SKILL_EFFECTS
                + " WHERE "
                + SKILL_KEY
                + " FOR UPDATE")) {
      bindSkill(st, 1, workspaceId, skill);
      try (ResultSet rs = st.executeQuery()) {
        if (rs.next()) {
          return;
        }
      }
    }
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO "
                + ControlSchema.SKILL_EFFECTS
                + " (workspace_id, skill, version, accepted_tasks, abandoned_tasks, updated_at)"
                + " VALUES (?, ?, ?, 0, 0, ?)")) {
      bindSkill(st, 1, workspaceId, skill);
      st.setLong(4, at);
      st.executeUpdate(); // a duplicate key restarts the transaction
    }
  }

  // ---------------------------------------------------------------- reads

  Optional<RunReceipt> run(Scope scope, String runId) {
    requireNonNull(scope, "scope is null");
    requireNonNull(runId, "runId is null");
    StringBuilder sql =
        new StringBuilder(
            "SELECT seq, receipt_json FROM "
                + ControlSchema.RECEIPTS
                + " WHERE workspace_id = ? AND run_id = ?");
    List<String> args = new ArrayList<>(List.of(scope.workspaceId(), runId));
    narrowToScope(sql, args, scope);
    sql.append(" ORDER BY seq DESC LIMIT 1");
    return db.run(
        "read the receipt of run " + runId,
        c -> {
          List<LearningStore.ListedRun> found = receipts(c, sql.toString(), args);
          return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0).receipt());
        });
  }

  List<LearningStore.ListedRun> runs(LearningStore.RunQuery query) {
    requireNonNull(query, "query is null");
    Scope scope = query.scope();
    StringBuilder sql =
        new StringBuilder(
            "SELECT seq, receipt_json FROM " + ControlSchema.RECEIPTS + " WHERE workspace_id = ?");
    List<String> args = new ArrayList<>(List.of(scope.workspaceId()));
    narrowToScope(sql, args, scope);
    if (!query.taskId().isEmpty()) {
      sql.append(" AND task_id = ?");
      args.add(query.taskId());
    }
    sql.append(" AND seq < ? ORDER BY seq DESC LIMIT ?");
    return db.run(
        "list runs",
        c -> {
          try (PreparedStatement st = c.prepareStatement(sql.toString())) {
            int i = 1;
            for (String arg : args) {
              st.setString(i++, arg);
            }
            st.setLong(i++, query.beforeSequence());
            st.setInt(i, query.limit());
            return read(st);
          }
        });
  }

  Set<String> tasksOfRun(String workspaceId, String userId, String runId) {
    return db.run(
        "read the tasks of run " + runId,
        c -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  "SELECT task_id FROM "
                      + ControlSchema.RECEIPTS
                      + " WHERE workspace_id = ? AND run_id = ? AND user_id = ?")) {
            st.setString(1, workspaceId);
            st.setString(2, runId);
            st.setString(3, userId);
            Set<String> out = new HashSet<>();
            try (ResultSet rs = st.executeQuery()) {
              while (rs.next()) {
                out.add(rs.getString(1));
              }
            }
            return Set.copyOf(out);
          }
        });
  }

  Optional<Task> task(TaskKey key, int maxRunIds) {
    requireNonNull(key, "key is null");
    if (maxRunIds < 1) {
      throw new IllegalArgumentException("maxRunIds must be at least 1: " + maxRunIds);
    }
    return db.run(
        "read task " + key.taskId(),
        c -> {
          TaskState state;
          String finalRunId;
          long runCount;
          Instant created;
          Instant updated;
          Instant accepted;
          try (PreparedStatement st =
              c.prepareStatement(
                  "SELECT state, final_run_id, run_count, created_at, updated_at, accepted_at FROM "
                      + ControlSchema.TASKS
                      + " WHERE "
                      + TASK_KEY)) {
            bindTask(st, 1, key);
            try (ResultSet rs = st.executeQuery()) {
              if (!rs.next()) {
                return Optional.empty();
              }
              state = TaskState.valueOf(rs.getString(1));
              finalRunId = rs.getString(2);
              runCount = rs.getLong(3);
              created = ControlSchema.instant(rs.getLong(4));
              updated = ControlSchema.instant(rs.getLong(5));
              long acceptedAt = rs.getLong(6);
              accepted = rs.wasNull() ? null : ControlSchema.instant(acceptedAt);
            }
          }
          List<String> runIds = new ArrayList<>();
          try (PreparedStatement st =
              c.prepareStatement(
                  "SELECT run_id FROM "
                      + ControlSchema.RECEIPTS
                      + " WHERE "
                      + TASK_KEY
                      + " ORDER BY seq DESC LIMIT ?")) {
            int i = bindTask(st, 1, key);
            st.setInt(i, maxRunIds);
            try (ResultSet rs = st.executeQuery()) {
              while (rs.next()) {
                runIds.add(rs.getString(1));
              }
            }
          }
          Collections.reverse(runIds);
          List<Task.SkillEffect> effects = new ArrayList<>();
          try (PreparedStatement st =
              c.prepareStatement(
                  "SELECT s.skill, s.version, e.accepted_tasks, e.abandoned_tasks FROM "
                      + ControlSchema.TASK_SKILLS
                      + " s LEFT JOIN "
                      + ControlSchema.SKILL_EFFECTS
                      + " e ON e.workspace_id = s.workspace_id AND e.skill = s.skill"
                      + " AND e.version = s.version"
                      + " WHERE s.workspace_id = ? AND s.user_id = ? AND s.task_id = ?")) {
            bindTask(st, 1, key);
            try (ResultSet rs = st.executeQuery()) {
              while (rs.next()) {
                // A skill version no decided task used yet has no effect row: none counted.
                effects.add(
                    new Task.SkillEffect(
                        new SkillVersion(rs.getString(1), rs.getString(2)),
                        rs.getLong(3),
                        rs.getLong(4)));
              }
            }
          }
          effects.sort((a, b) -> SkillVersion.BY_NAME.compare(a.skill(), b.skill()));
          return Optional.of(
              new Task(
                  key.taskId(),
                  state,
                  finalRunId,
                  runIds,
                  runCount,
                  effects,
                  created,
                  updated,
                  accepted));
        });
  }

  // ---------------------------------------------------------------- helpers

  /** Adds " AND column = ?" for each id the scope gives besides its workspace. */
  private static void narrowToScope(StringBuilder sql, List<String> args, Scope scope) {
    narrow(sql, args, "user_id", scope.userId());
    narrow(sql, args, "agent_id", scope.agentId());
    narrow(sql, args, "session_id", scope.sessionId());
  }

  private static void narrow(StringBuilder sql, List<String> args, String column, String value) {
    if (!value.isEmpty()) {
      sql.append(" AND ").append(column).append(" = ?");
      args.add(value);
    }
  }

  /** The receipts {@code sql} selects ({@code seq, receipt_json}), its string parameters bound. */
  private static List<LearningStore.ListedRun> receipts(Connection c, String sql, List<String> args)
      throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql)) {
      for (int i = 0; i < args.size(); i++) {
        st.setString(i + 1, args.get(i));
      }
      return read(st);
    }
  }

  private static List<LearningStore.ListedRun> read(PreparedStatement st) throws SQLException {
    List<LearningStore.ListedRun> out = new ArrayList<>();
    try (ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        long seq = rs.getLong(1);
        out.add(
            new LearningStore.ListedRun(
                seq, ControlJson.read(rs.getString(2), RunReceipt.class, "run receipt " + seq)));
      }
    }
    return List.copyOf(out);
  }

  private static int bindTask(PreparedStatement st, int first, TaskKey key) throws SQLException {
    st.setString(first, key.workspaceId());
    st.setString(first + 1, key.userId());
    st.setString(first + 2, key.taskId());
    return first + 3;
  }

  private static void bindSkill(
      PreparedStatement st, int first, String workspaceId, SkillVersion skill) throws SQLException {
    st.setString(first, workspaceId);
    st.setString(first + 1, skill.name());
    st.setString(first + 2, skill.version());
  }
}
