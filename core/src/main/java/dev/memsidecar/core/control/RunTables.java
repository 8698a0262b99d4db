package dev.memsidecar.core.control;

import static dev.memsidecar.core.control.ControlDatabase.RUN_KEY;
import static dev.memsidecar.core.control.ControlDatabase.SAVE_ATTEMPTS;
import static dev.memsidecar.core.control.ControlDatabase.bindRunKey;
import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.learning.RunReceipt;
import dev.memsidecar.core.run.EndRunResult;
import dev.memsidecar.core.run.RunSnapshot;
import dev.memsidecar.jdbc.Database;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * BeginRun snapshots ({@code run_snapshots}) and EndRun results ({@code run_results}), one row per
 * run each, keyed by the scope's four ids and the run id ({@link ControlSchema}).
 *
 * <p>First writer wins: a snapshot is inserted under its run's key, and when the key exists the
 * stored snapshot is returned if still live, or replaced only if it is the same expired one that
 * was read (a compare-and-set on its snapshot id and expiry), so two concurrent BeginRuns of one
 * run get one snapshot. An EndRun result and its decisions are inserted in one transaction, in the
 * audit's order ({@link DecisionTables#append}), with the run's receipt ({@link
 * LearningTables#insertReceipt}); a retry that finds the result, or loses the insert race, returns
 * the stored one and appends nothing. Thread-safe.
 */
final class RunTables {
  private final ControlDatabase db;
  private final DecisionTables audit;

  RunTables(ControlDatabase db, DecisionTables audit) {
    this.db = db;
    this.audit = audit;
  }

  Optional<RunSnapshot> snapshot(Scope scope, String runId, Instant now) {
    requireNonNull(scope, "scope is null");
    requireNonNull(runId, "runId is null");
    requireNonNull(now, "now is null");
    return db.run(
        "read the snapshot of run " + runId,
        c -> readSnapshot(c, scope, runId).filter(s -> s.expireTime().isAfter(now)));
  }

  RunSnapshot saveSnapshot(Scope scope, RunSnapshot snapshot, Instant now) {
    requireNonNull(scope, "scope is null");
    requireNonNull(snapshot, "snapshot is null");
    requireNonNull(now, "now is null");
    String runId = snapshot.runId();
    String json = ControlJson.write(snapshot);
    return db.run(
        "save the snapshot of run " + runId,
        c -> {
          for (int attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
            Optional<RunSnapshot> stored = readSnapshot(c, scope, runId);
            if (stored.isEmpty()) {
              if (insertSnapshot(c, scope, snapshot, json)) {
                return snapshot;
              }
            } else if (stored.get().expireTime().isAfter(now)) {
              return stored.get();
            } else if (replaceSnapshot(c, scope, stored.get(), snapshot, json)) {
              return snapshot;
            }
            // Another writer got in between: read what it wrote.
          }
          throw MemoryException.aborted(
              "saving the snapshot of run " + runId + " lost " + SAVE_ATTEMPTS + " races; retry");
        });
  }

  int deleteExpiredSnapshots(Instant now) {
    requireNonNull(now, "now is null");
    return db.run(
        "delete expired snapshots",
        c -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  "DELETE FROM " + ControlSchema.SNAPSHOTS + " WHERE expire_at <= ?")) {
            st.setLong(1, ControlSchema.nanos(now));
            return st.executeUpdate();
          }
        });
  }

  Optional<EndRunResult> endRun(Scope scope, String runId) {
    requireNonNull(scope, "scope is null");
    requireNonNull(runId, "runId is null");
    return db.run("read the result of run " + runId, c -> readResult(c, scope, runId));
  }

  EndRunResult saveEndRun(Scope scope, EndRunResult result, RunReceipt receipt) {
    requireNonNull(scope, "scope is null");
    requireNonNull(result, "result is null");
    String runId = result.runId();
    if (receipt != null && (!receipt.scope().equals(scope) || !receipt.runId().equals(runId))) {
      throw new IllegalArgumentException("the receipt is of another run: " + receipt.runId());
    }
    long decidedAt = ControlSchema.exactNanos(result.endTime(), "endTime");
    String json = ControlJson.write(result);
    String receiptJson = receipt == null ? null : ControlJson.write(receipt);
    List<String> decisions = result.decisions().stream().map(ControlJson::write).toList();
    return audit.append(
        "save the result of run " + runId,
        c -> {
          for (int attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
            Optional<EndRunResult> stored = readResult(c, scope, runId);
            if (stored.isPresent()) {
              return stored.get();
            }
            try {
              Database.inTransaction(
                  c,
                  () -> {
                    // In turn with other processes' appends to the audit and the receipts; the
                    // loser of two ends of one run then meets the winner's committed result.
                    db.lockUntilCommit(c, ControlSchema.DECISIONS);
                    try (PreparedStatement st =
                        c.prepareStatement(
                            "INSERT INTO "
                                + ControlSchema.RESULTS
                                + " (workspace_id, user_id, agent_id, session_id, run_id, end_at,"
                                + " result_json) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                      bindRunKey(st, 1, scope, runId);
                      st.setLong(6, decidedAt);
                      st.setString(7, json);
                      st.executeUpdate();
                    }
                    DecisionTables.insert(
                        c, scope, runId, decidedAt, result.decisions(), decisions);
                    if (receipt != null) {
                      LearningTables.insertReceipt(c, receipt, receiptJson);
                    }
                    return null;
                  });
              return result;
            } catch (SQLException e) {
              if (!db.isDuplicateKey(e)) {
                throw e;
              }
              // Another process ended the run first (read its result), or began its task.
            }
          }
          throw MemoryException.aborted(
              "saving the result of run " + runId + " lost " + SAVE_ATTEMPTS + " races; retry");
        });
  }

  private static Optional<RunSnapshot> readSnapshot(Connection c, Scope scope, String runId)
      throws SQLException {
    return readJson(
        c,
        "SELECT snapshot_json FROM " + ControlSchema.SNAPSHOTS + " WHERE " + RUN_KEY,
        scope,
        runId,
        RunSnapshot.class,
        "the snapshot of run " + runId);
  }

  private static Optional<EndRunResult> readResult(Connection c, Scope scope, String runId)
      throws SQLException {
    return readJson(
        c,
        "SELECT result_json FROM " + ControlSchema.RESULTS + " WHERE " + RUN_KEY,
        scope,
        runId,
        EndRunResult.class,
        "the result of run " + runId);
  }

  /** The JSON value the one-column {@code select} reads from one run's row, if there is one. */
  private static <T> Optional<T> readJson(
      Connection c, String select, Scope scope, String runId, Class<T> type, String what)
      throws SQLException {
    try (PreparedStatement st = c.prepareStatement(select)) {
      bindRunKey(st, 1, scope, runId);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next()
            ? Optional.of(ControlJson.read(rs.getString(1), type, what))
            : Optional.empty();
      }
    }
  }

  /** Inserts {@code snapshot}; false if the run has a snapshot already. */
  private boolean insertSnapshot(Connection c, Scope scope, RunSnapshot snapshot, String json)
      throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO "
                + ControlSchema.SNAPSHOTS
                + " (workspace_id, user_id, agent_id, session_id, run_id, snapshot_id,"
                + " created_at, expire_at, snapshot_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      bindRunKey(st, 1, scope, snapshot.runId());
      st.setString(6, snapshot.snapshotId());
      st.setLong(7, ControlSchema.nanos(snapshot.createTime()));
      st.setLong(8, ControlSchema.nanos(snapshot.expireTime()));
      st.setString(9, json);
      return db.insertUnlessTaken(st);
    }
  }

  /** Replaces {@code expired} by {@code snapshot}; false if another writer replaced it first. */
  private static boolean replaceSnapshot(
      Connection c, Scope scope, RunSnapshot expired, RunSnapshot snapshot, String json)
      throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "UPDATE "
                + ControlSchema.SNAPSHOTS
                + " SET snapshot_id = ?, created_at = ?, expire_at = ?, snapshot_json = ? WHERE "
                + RUN_KEY
                + " AND snapshot_id = ? AND expire_at = ?")) {
      st.setString(1, snapshot.snapshotId());
      st.setLong(2, ControlSchema.nanos(snapshot.createTime()));
      st.setLong(3, ControlSchema.nanos(snapshot.expireTime()));
      st.setString(4, json);
      bindRunKey(st, 5, scope, snapshot.runId());
      st.setString(10, expired.snapshotId());
      st.setLong(11, ControlSchema.nanos(expired.expireTime()));
      return st.executeUpdate() == 1;
    }
  }
}
