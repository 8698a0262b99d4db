package dev.memsidecar.core.control;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;

/**
 * The control store's tables and their version.
 *
 * <p>{@code control_schema} holds one row with the version of the other tables. Opening a database
 * without it creates everything at {@link #VERSION}; one at an older version is migrated (the
 * tables it lacks are created, then the version is raised, so a crash in between only repeats the
 * idempotent {@code CREATE ... IF NOT EXISTS}); one at a newer version, written by a later release,
 * is refused rather than misread.
 *
 * <p>Versions: 1 (issue 7) has the run and audit tables; 2 (issue 8) adds the tool tables.
 *
 * <p>Ids are text of any length. Times are epoch nanoseconds in {@code BIGINT} columns ({@link
 * #nanos}); the values themselves are JSON text ({@link ControlJson}), which keeps their instants
 * exactly.
 *
 * <ul>
 *   <li>{@code run_snapshots}: one per run, primary key ({@code workspace_id, user_id, agent_id,
 *       session_id, run_id}): {@code snapshot_id}, {@code created_at}, {@code expire_at} (indexed,
 *       for {@code deleteExpiredSnapshots}), {@code snapshot_json}.
 *   <li>{@code run_results}: one per run that has ended, same primary key: {@code end_at}, {@code
 *       result_json}.
 *   <li>{@code write_decisions}: the audit, one row per decision, primary key {@code seq} (assigned
 *       on insert, increasing): the four scope ids, {@code run_id} (empty for Remember), {@code
 *       decided_at}, {@code outcome} (the enum name), {@code decision_json}. Indexed by ({@code
 *       workspace_id, seq}) and ({@code workspace_id, run_id, seq}) so a page of a workspace, or of
 *       one of its runs, is a range scan in order.
 *   <li>{@code tool_rules} (version 2): primary key ({@code workspace_id, tool_name, id}): {@code
 *       rule}, {@code rule_key} (the SHA-256 of the rule's normalised text, see {@link
 *       ToolRuleText}; unique per workspace and tool, so the same rule written twice, even by two
 *       writers at once, is one row), {@code priority} and {@code source} (enum names), {@code
 *       tags_json} and {@code objects_json} (JSON arrays of strings), {@code created_at}, {@code
 *       updated_at}.
 *   <li>{@code tool_stats} (version 2): one per tool used in a workspace, primary key ({@code
 *       workspace_id, tool_name}): {@code calls}, {@code failures}, {@code denials}, {@code
 *       last_failure_at} (null until a failure), {@code last_error} (at most {@value
 *       #MAX_ERROR_MESSAGE} characters).
 *   <li>{@code tool_failures} (version 2): failures by category, primary key ({@code workspace_id,
 *       tool_name, category}): {@code failures}.
 *   <li>{@code tool_denials} (version 2): the audit of enforcement, primary key {@code seq}: {@code
 *       workspace_id}, {@code tool_name}, {@code rule_id}, {@code matched_object} (at most {@value
 *       #MAX_MATCHED_OBJECT} characters), {@code run_id}, {@code denied_at}. Indexed by ({@code
 *       workspace_id, denied_at, seq}) and ({@code workspace_id, tool_name, denied_at, seq}), so
 *       the newest denials of a workspace, or of one of its tools, are a backward range scan.
 * </ul>
 */
final class ControlSchema {
  /** The version this code reads and writes. */
  static final int VERSION = 2;

  static final String SNAPSHOTS = "run_snapshots";
  static final String RESULTS = "run_results";
  static final String DECISIONS = "write_decisions";
  static final String TOOL_RULES = "tool_rules";
  static final String TOOL_STATS = "tool_stats";
  static final String TOOL_FAILURES = "tool_failures";
  static final String TOOL_DENIALS = "tool_denials";

  /** The longest last error message a tool's stats keep; a longer one is cut. */
  static final int MAX_ERROR_MESSAGE = 1024;

  /** The longest matched object a denial keeps; a longer one is cut. */
  static final int MAX_MATCHED_OBJECT = 256;

  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private ControlSchema() {}

  /**
   * {@code t} in epoch nanoseconds, exact from 1677-09-21 to 2262-04-11; an instant outside that
   * range becomes {@link Long#MIN_VALUE} or {@link Long#MAX_VALUE}, which keeps comparisons right
   * (an expiry time centuries away stays in the future).
   */
  static long nanos(Instant t) {
    try {
      return Math.addExact(Math.multiplyExact(t.getEpochSecond(), NANOS_PER_SECOND), t.getNano());
    } catch (ArithmeticException e) {
      return t.getEpochSecond() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  /** {@link #nanos}, but an instant outside its exact range fails with IllegalArgumentException. */
  static long exactNanos(Instant t, String what) {
    long n = nanos(t);
    if (n == Long.MIN_VALUE || n == Long.MAX_VALUE) {
      throw new IllegalArgumentException(what + " must be between 1677-09-21 and 2262-04-11: " + t);
    }
    return n;
  }

  /** The instant of {@link #nanos} {@code n}. */
  static Instant instant(long n) {
    return Instant.ofEpochSecond(
        Math.floorDiv(n, NANOS_PER_SECOND), Math.floorMod(n, NANOS_PER_SECOND));
  }

  /**
   * Creates the tables on {@code c} (in auto-commit mode before and after) if they are missing,
   * migrating an older version to {@link #VERSION}, and returns the version found before: 0 for a
   * new database. A result above {@link #VERSION} means the tables were left alone because this
   * code cannot read them.
   */
  static int ensure(Connection c, ControlDialect dialect) throws SQLException {
    c.setAutoCommit(false);
    try {
      int found;
      try (Statement st = c.createStatement()) {
        st.execute(
            "CREATE TABLE IF NOT EXISTS control_schema ("
                + "id INTEGER NOT NULL PRIMARY KEY, version INTEGER NOT NULL)");
        try (ResultSet rs = st.executeQuery("SELECT version FROM control_schema WHERE id = 1")) {
          found = rs.next() ? rs.getInt(1) : 0;
        }
      }
      if (found == 0) {
        createRunTables(c, dialect);
        createToolTables(c, dialect);
        try (PreparedStatement st =
            c.prepareStatement("INSERT INTO control_schema (id, version) VALUES (1, ?)")) {
          st.setInt(1, VERSION);
          st.executeUpdate();
        }
      } else if (found < VERSION) {
        // Each step creates what its version added; a step that was cut short repeats harmlessly.
        if (found < 2) {
          createToolTables(c, dialect);
        }
        try (PreparedStatement st =
            c.prepareStatement("UPDATE control_schema SET version = ? WHERE id = 1")) {
          st.setInt(1, VERSION);
          st.executeUpdate();
        }
      }
      c.commit();
      return found;
    } catch (SQLException | RuntimeException e) {
      try {
        c.rollback();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  /** The tables of version 1: BeginRun snapshots, EndRun results, the audit of decisions. */
  private static void createRunTables(Connection c, ControlDialect dialect) throws SQLException {
    String text = dialect.textType();
    String scopeKey =
        "workspace_id "
            + text
            + " NOT NULL, user_id "
            + text
            + " NOT NULL, agent_id "
            + text
            + " NOT NULL, session_id "
            + text
            + " NOT NULL, run_id "
            + text
            + " NOT NULL, ";
    String primaryKey = "PRIMARY KEY (workspace_id, user_id, agent_id, session_id, run_id)";
    // CREATE ... IF NOT EXISTS: a start-up that crashed before recording its version (H2 commits
    // each DDL statement on its own) left some of these behind.
    try (Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS "
              + SNAPSHOTS
              + " ("
              + scopeKey
              + "snapshot_id "
              + text
              + " NOT NULL, created_at BIGINT NOT NULL, expire_at BIGINT NOT NULL, snapshot_json "
              + text
              + " NOT NULL, "
              + primaryKey
              + ")");
      st.execute(
          "CREATE INDEX IF NOT EXISTS run_snapshots_by_expiry ON " + SNAPSHOTS + " (expire_at)");
      st.execute(
          "CREATE TABLE IF NOT EXISTS "
              + RESULTS
              + " ("
              + scopeKey
              + "end_at BIGINT NOT NULL, result_json "
              + text
              + " NOT NULL, "
              + primaryKey
              + ")");
      st.execute(
          "CREATE TABLE IF NOT EXISTS "
              + DECISIONS
              + " ("
              + dialect.sequenceColumn("seq")
              + ", "
              + scopeKey
              + "decided_at BIGINT NOT NULL, outcome VARCHAR(16) NOT NULL, decision_json "
              + text
              + " NOT NULL)");
      st.execute(
          "CREATE INDEX IF NOT EXISTS write_decisions_by_workspace ON "
              + DECISIONS
              + " (workspace_id, seq)");
      st.execute(
          "CREATE INDEX IF NOT EXISTS write_decisions_by_run ON "
              + DECISIONS
              + " (workspace_id, run_id, seq)");
    }
  }

  /** The tables version 2 added: tool rules, tool stats, the audit of enforcement. */
  private static void createToolTables(Connection c, ControlDialect dialect) throws SQLException {
    String text = dialect.textType();
    try (Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS "
              + TOOL_RULES
              + " (workspace_id "
              + text
              + " NOT NULL, tool_name "
              + text
              + " NOT NULL, id "
              + text
              + " NOT NULL, rule "
              + text
              + " NOT NULL, rule_key VARCHAR(64) NOT NULL, priority VARCHAR(16) NOT NULL,"
              + " source VARCHAR(32) NOT NULL, tags_json "
              + text
              + " NOT NULL, objects_json "
              + text
              + " NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,"
              + " PRIMARY KEY (workspace_id, tool_name, id),"
              + " CONSTRAINT tool_rules_by_text UNIQUE (workspace_id, tool_name, rule_key))");
      st.execute(
          "CREATE TABLE IF NOT EXISTS "
              + TOOL_STATS
              + " (workspace_id "
              + text
              + " NOT NULL, tool_name "
              + text
              + " NOT NULL, calls BIGINT NOT NULL, failures BIGINT NOT NULL,"
              + " denials BIGINT NOT NULL, last_failure_at BIGINT, last_error "
              + text
              + " NOT NULL, PRIMARY KEY (workspace_id, tool_name))");
      st.execute(
          "CREATE TABLE IF NOT EXISTS "
              + TOOL_FAILURES
              + " (workspace_id "
              + text
              + " NOT NULL, tool_name "
              + text
              + " NOT NULL, category "
              + text
              + " NOT NULL, failures BIGINT NOT NULL,"
              + " PRIMARY KEY (workspace_id, tool_name, category))");
      st.execute(
          "CREATE TABLE IF NOT EXISTS "
              + TOOL_DENIALS
              + " ("
              + dialect.sequenceColumn("seq")
              + ", workspace_id "
              + text
              + " NOT NULL, tool_name "
              + text
              + " NOT NULL, rule_id "
              + text
              + " NOT NULL, matched_object "
              + text
              + " NOT NULL, run_id "
              + text
              + " NOT NULL, denied_at BIGINT NOT NULL)");
      st.execute(
          "CREATE INDEX IF NOT EXISTS tool_denials_by_workspace ON "
              + TOOL_DENIALS
              + " (workspace_id, denied_at, seq)");
      st.execute(
          "CREATE INDEX IF NOT EXISTS tool_denials_by_tool ON "
              + TOOL_DENIALS
              + " (workspace_id, tool_name, denied_at, seq)");
    }
  }
}
