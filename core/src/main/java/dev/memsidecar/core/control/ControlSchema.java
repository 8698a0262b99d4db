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
 * without it creates everything at {@link #VERSION}; one at a newer version, written by a later
 * release, is refused rather than misread. A later issue that adds tables (tool rules, stats,
 * sessions) raises the version and creates them in {@link #ensure}.
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
 * </ul>
 */
final class ControlSchema {
  /** The version this code reads and writes. */
  static final int VERSION = 1;

  static final String SNAPSHOTS = "run_snapshots";
  static final String RESULTS = "run_results";
  static final String DECISIONS = "write_decisions";

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
   * Creates the tables on {@code c} (in auto-commit mode before and after) if they are missing, and
   * returns the version found before: 0 for a new database. A result above {@link #VERSION} means
   * the tables were left alone because this code cannot read them.
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
        createTables(c, dialect);
        try (PreparedStatement st =
            c.prepareStatement("INSERT INTO control_schema (id, version) VALUES (1, ?)")) {
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

  private static void createTables(Connection c, ControlDialect dialect) throws SQLException {
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
}
