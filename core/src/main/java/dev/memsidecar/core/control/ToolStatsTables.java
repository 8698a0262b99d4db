package dev.memsidecar.core.control;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.ToolCall;
import dev.memsidecar.core.toolrules.ToolDenial;
import dev.memsidecar.core.toolrules.ToolStats;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What is known of each tool a workspace uses ({@code tool_stats}, failures by category in {@code
 * tool_failures}) and the audit of enforcement ({@code tool_denials}), {@link ControlSchema}.
 *
 * <p>Tool stats and a denial with its count are each written in one transaction; two writers of one
 * tool's stats wait for each other on its row, and one that loses the race to create it starts its
 * transaction again ({@link ControlDatabase#inTransactionRetried}). Rows are locked in (tool,
 * category) order, so two runs recording at once cannot deadlock. Thread-safe.
 */
final class ToolStatsTables {
  /** The failure category of a failed call that names none. */
  static final String UNKNOWN_CATEGORY = "unknown";

  private final ControlDatabase db;

  ToolStatsTables(ControlDatabase db) {
    this.db = db;
  }

  void recordCalls(String workspaceId, List<ToolCall> calls, Instant time) {
    requireNonNull(workspaceId, "workspaceId is null");
    requireNonNull(calls, "calls is null");
    requireNonNull(time, "time is null");
    long at = ControlSchema.exactNanos(time, "time");
    Map<String, CallTally> byTool = new TreeMap<>();
    for (ToolCall call : calls) {
      requireNonNull(call, "calls holds a null");
      if (!call.toolName().isEmpty()) {
        // Stats are notes: what PostgreSQL text cannot hold becomes U+FFFD rather than failing.
        byTool.computeIfAbsent(db.storable(call.toolName()), t -> new CallTally()).add(call, db);
      }
    }
    if (byTool.isEmpty()) {
      return;
    }
    db.run(
        "record " + calls.size() + " tool calls",
        c ->
            db.inTransactionRetried(
                c,
                "recording tool calls",
                () -> {
                  for (Map.Entry<String, CallTally> e : byTool.entrySet()) {
                    CallTally tally = e.getValue();
                    addToStats(c, workspaceId, e.getKey(), tally, 0, at);
                    for (Map.Entry<String, Long> f : tally.byCategory.entrySet()) {
                      addFailures(c, workspaceId, e.getKey(), f.getKey(), f.getValue());
                    }
                  }
                  return null;
                }));
  }

  void recordDenial(String workspaceId, ToolDenial denial) {
    requireNonNull(workspaceId, "workspaceId is null");
    requireNonNull(denial, "denial is null");
    String tool = denial.toolName();
    if (tool.isEmpty()) {
      throw MemoryException.invalidArgument("denial.tool_name", "a denial needs a tool name");
    }
    long at = ControlSchema.exactNanos(denial.time(), "time");
    String matched =
        db.storable(ToolRuleText.cut(denial.matchedObject(), ControlSchema.MAX_MATCHED_OBJECT));
    db.run(
        "record a denial of tool " + tool,
        c ->
            db.inTransactionRetried(
                c,
                "recording a denial",
                () -> {
                  try (PreparedStatement st =
                      c.prepareStatement(
                          "INSERT INTO "
                              + ControlSchema.TOOL_DENIALS
                              + " (workspace_id, tool_name, rule_id, matched_object, run_id,"
                              + " denied_at) VALUES (?, ?, ?, ?, ?, ?)")) {
                    st.setString(1, workspaceId);
                    st.setString(2, tool);
                    st.setString(3, denial.ruleId());
                    st.setString(4, matched);
                    st.setString(5, denial.runId());
                    st.setLong(6, at);
                    st.executeUpdate();
                  }
                  addToStats(c, workspaceId, tool, new CallTally(), 1, at);
                  return null;
                }));
  }

  List<ToolDenial> denials(String workspaceId, String toolName, int limit) {
    requireNonNull(workspaceId, "workspaceId is null");
    requireNonNull(toolName, "toolName is null");
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1: " + limit);
    }
    String sql =
        "SELECT rule_id, tool_name, matched_object, run_id, denied_at FROM "
            + ControlSchema.TOOL_DENIALS
            + " WHERE workspace_id = ?"
            + (toolName.isEmpty() ? "" : " AND tool_name = ?")
            + " ORDER BY denied_at DESC, seq DESC LIMIT ?";
    return db.run(
        toolName.isEmpty() ? "list denials" : "list the denials of tool " + toolName,
        c -> {
          try (PreparedStatement st = c.prepareStatement(sql)) {
            int i = 1;
            st.setString(i++, workspaceId);
            if (!toolName.isEmpty()) {
              st.setString(i++, toolName);
            }
            st.setInt(i, limit);
            List<ToolDenial> out = new ArrayList<>();
            try (ResultSet rs = st.executeQuery()) {
              while (rs.next()) {
                out.add(
                    new ToolDenial(
                        rs.getString(1),
                        rs.getString(2),
                        rs.getString(3),
                        rs.getString(4),
                        ControlSchema.instant(rs.getLong(5))));
              }
            }
            return List.copyOf(out);
          }
        });
  }

  ToolStats stats(String workspaceId, String toolName) {
    requireNonNull(workspaceId, "workspaceId is null");
    requireNonNull(toolName, "toolName is null");
    return db.run(
        "read the stats of tool " + toolName,
        c -> {
          // One statement, so the counts and the categories come from one committed state.
          try (PreparedStatement st =
              c.prepareStatement(
                  "SELECT s.calls, s.failures, s.last_failure_at, s.last_error, s.denials,"
                      + " f.category, f.failures FROM "
                      + ControlSchema.TOOL_STATS
                      + " s LEFT JOIN "
                      + ControlSchema.TOOL_FAILURES
                      + " f ON f.workspace_id = s.workspace_id AND f.tool_name = s.tool_name"
                      + " WHERE s.workspace_id = ? AND s.tool_name = ?")) {
            st.setString(1, workspaceId);
            st.setString(2, toolName);
            try (ResultSet rs = st.executeQuery()) {
              if (!rs.next()) {
                return ToolStats.none(toolName);
              }
              long calls = rs.getLong(1);
              long failures = rs.getLong(2);
              long lastFailure = rs.getLong(3);
              Instant lastFailureTime = rs.wasNull() ? null : ControlSchema.instant(lastFailure);
              String lastError = rs.getString(4);
              long denials = rs.getLong(5);
              Map<String, Long> byCategory = new TreeMap<>();
              do {
                String category = rs.getString(6);
                if (category != null) {
                  byCategory.put(category, rs.getLong(7));
                }
              } while (rs.next());
              return new ToolStats(
                  toolName, calls, failures, byCategory, lastFailureTime, lastError, denials);
            }
          }
        });
  }

  /** What one run's calls add to one tool's stats. */
  private static final class CallTally {
    long calls;
    long failures;
    final Map<String, Long> byCategory = new TreeMap<>();
    String lastError = "";

    void add(ToolCall call, ControlDatabase db) {
      calls++;
      if (!call.ok()) {
        failures++;
        String category =
            call.errorCategory().isEmpty() ? UNKNOWN_CATEGORY : db.storable(call.errorCategory());
        byCategory.merge(category, 1L, Long::sum);
        lastError =
            db.storable(ToolRuleText.cut(call.errorMessage(), ControlSchema.MAX_ERROR_MESSAGE));
      }
    }
  }

  /**
   * Adds {@code tally} and {@code denials} to the stats of {@code tool}, creating its row if
   * needed; a duplicate key (another writer created it first) is left to the caller's retry. The
   * last failure moves only forward in time.
   */
  private static void addToStats(
      Connection c, String workspaceId, String tool, CallTally tally, long denials, long at)
      throws SQLException {
    boolean failed = tally.failures > 0;
    String newer = "last_failure_at IS NULL OR last_failure_at <= ?";
    try (PreparedStatement st =
        c.prepareStatement(
            "UPDATE "
                + ControlSchema.TOOL_STATS
                + " SET calls = calls + ?, failures = failures + ?, denials = denials + ?"
                + (failed
                    ? ", last_error = CASE WHEN "
                        + newer
                        + " THEN ? ELSE last_error END, last_failure_at = CASE WHEN "
                        + newer
                        + " THEN ? ELSE last_failure_at END"
                    : "")
                + " WHERE workspace_id = ? AND tool_name = ?")) {
      int i = 1;
      st.setLong(i++, tally.calls);
      st.setLong(i++, tally.failures);
      st.setLong(i++, denials);
      if (failed) {
        st.setLong(i++, at);
        st.setString(i++, tally.lastError);
        st.setLong(i++, at);
        st.setLong(i++, at);
      }
      st.setString(i++, workspaceId);
      st.setString(i, tool);
      if (st.executeUpdate() > 0) {
        return;
      }
    }
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO "
                + ControlSchema.TOOL_STATS
                + " (workspace_id, tool_name, calls, failures, denials, last_failure_at,"
                + " last_error) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
      st.setString(1, workspaceId);
      st.setString(2, tool);
      st.setLong(3, tally.calls);
      st.setLong(4, tally.failures);
      st.setLong(5, denials);
      if (failed) {
        st.setLong(6, at);
      } else {
        st.setNull(6, Types.BIGINT);
      }
      st.setString(7, failed ? tally.lastError : "");
      st.executeUpdate();
    }
  }

  /** Adds {@code n} failures of {@code category} to {@code tool}; see {@link #addToStats}. */
  private static void addFailures(
      Connection c, String workspaceId, String tool, String category, long n) throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "UPDATE "
                + ControlSchema.TOOL_FAILURES
                + " SET failures = failures + ? WHERE workspace_id = ? AND tool_name = ?"
                + " AND category = ?")) {
      st.setLong(1, n);
      st.setString(2, workspaceId);
      st.setString(3, tool);
      st.setString(4, category);
      if (st.executeUpdate() > 0) {
        return;
      }
    }
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO "
                + ControlSchema.TOOL_FAILURES
                + " (workspace_id, tool_name, category, failures) VALUES (?, ?, ?, ?)")) {
      st.setString(1, workspaceId);
      st.setString(2, tool);
      st.setString(3, category);
      st.setLong(4, n);
      st.executeUpdate();
    }
  }
}
