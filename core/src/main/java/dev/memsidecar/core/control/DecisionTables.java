package dev.memsidecar.core.control;

import static dev.memsidecar.core.control.ControlDatabase.bindRunKey;
import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.Scope;
import dev.memsidecar.core.WriteDecision;
import dev.memsidecar.core.run.DecisionEntry;
import dev.memsidecar.core.run.DecisionQuery;
import dev.memsidecar.jdbc.Database;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The audit of write decisions ({@code write_decisions}): one row per decision, its sequence
 * assigned on insert ({@link ControlSchema}).
 *
 * <p>Audit order: appends are serialized in this process ({@link #append}), so the sequence order
 * is the commit order and a reader paging with {@code afterSequence} never skips a decision
 * committed later with a smaller sequence; processes sharing one database (PostgreSQL) append in
 * turn under a lock of the database held to commit ({@link ControlDatabase#lockUntilCommit}). Group
 * commit: the decisions of callers that arrive while another caller writes share the next
 * transaction ({@link #record}). H2 has no such lock: open one store per H2 database in a process.
 * Thread-safe.
 */
final class DecisionTables {
  private static final String INSERT =
      "INSERT INTO "
          + ControlSchema.DECISIONS
          + " (workspace_id, user_id, agent_id, session_id, run_id, decided_at, outcome,"
          + " decision_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";

  private final ControlDatabase db;
  private final ReentrantLock lock = new ReentrantLock();
  private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();

  DecisionTables(ControlDatabase db) {
    this.db = db;
  }

  /** One caller's decisions waiting for the audit's next transaction. */
  private record Pending(
      Scope scope,
      String runId,
      long decidedAt,
      List<WriteDecision> all,
      List<String> json,
      CompletableFuture<Void> written) {}

  /** Adds decisions made outside a run (Remember) to the audit, durably before it returns. */
  void record(Scope scope, String runId, List<WriteDecision> decisions, Instant time) {
    requireNonNull(scope, "scope is null");
    requireNonNull(runId, "runId is null");
    requireNonNull(decisions, "decisions is null");
    requireNonNull(time, "time is null");
    long decidedAt = ControlSchema.exactNanos(time, "time");
    List<WriteDecision> all = List.copyOf(decisions);
    if (all.isEmpty()) {
      return;
    }
    List<String> json = all.stream().map(ControlJson::write).toList();
    Pending mine = new Pending(scope, runId, decidedAt, all, json, new CompletableFuture<>());
    pending.add(mine);
    lock.lock();
    try {
      if (!mine.written().isDone()) {
        // Group commit: whoever holds the lock writes every waiting caller's decisions in one
        // transaction; the others find theirs written when they get the lock.
        List<Pending> batch = new ArrayList<>();
        for (Pending p; (p = pending.poll()) != null; ) {
          batch.add(p);
        }
        try {
          db.run(
              "record " + batch.size() + " callers' decisions",
              c ->
                  Database.inTransaction(
                      c,
                      () -> {
                        // Other processes on the same database append in turn too.
                        db.lockUntilCommit(c, ControlSchema.DECISIONS);
                        for (Pending p : batch) {
                          insert(c, p.scope(), p.runId(), p.decidedAt(), p.all(), p.json());
                        }
                        return true;
                      }));
          batch.forEach(p -> p.written().complete(null));
        } catch (RuntimeException | Error e) {
          batch.forEach(p -> p.written().completeExceptionally(e));
        }
      }
    } finally {
      lock.unlock();
    }
    try {
      mine.written().join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw (RuntimeException) e.getCause();
    }
  }

  /** One page of the audit, oldest first. */
  /**
   * The scopes found in the audit, runs, sessions and tool rules ({@link
   * dev.memsidecar.core.run.RunStore#scopesSeen}).
   */
  List<Scope> scopesSeen(int limit) {
    String sql =
        "SELECT workspace_id, user_id, agent_id FROM "
            + ControlSchema.DECISIONS
            + " UNION SELECT workspace_id, user_id, agent_id FROM "
            + ControlSchema.SNAPSHOTS
            + " UNION SELECT workspace_id, user_id, agent_id FROM "
            + ControlSchema.SESSIONS
            + " UNION SELECT workspace_id, '', '' FROM "
            + ControlSchema.TOOL_RULES
            + " ORDER BY 1, 2, 3 LIMIT ?";
    return db.run(
        "list the scopes seen",
        c -> {
          try (PreparedStatement st = c.prepareStatement(sql)) {
            st.setInt(1, limit);
            List<Scope> out = new ArrayList<>();
            try (ResultSet rs = st.executeQuery()) {
              while (rs.next()) {
                out.add(new Scope(rs.getString(1), rs.getString(2), rs.getString(3), ""));
              }
            }
            return List.copyOf(out);
          }
        });
  }

  List<DecisionEntry> page(DecisionQuery query) {
    requireNonNull(query, "query is null");
    Scope scope = query.scope();
    StringBuilder sql =
        new StringBuilder(
            "SELECT seq, workspace_id, user_id, agent_id, session_id, run_id, decided_at,"
                + " decision_json FROM "
                + ControlSchema.DECISIONS
                + " WHERE workspace_id = ? AND seq > ?");
    List<String> args = new ArrayList<>();
    narrow(sql, args, "user_id", scope.userId());
    narrow(sql, args, "agent_id", scope.agentId());
    narrow(sql, args, "session_id", scope.sessionId());
    narrow(sql, args, "run_id", query.runId());
    if (query.outcome() != null) {
      narrow(sql, args, "outcome", query.outcome().name());
    }
    sql.append(" ORDER BY seq LIMIT ?");
    return db.run(
        "list write decisions",
        c -> {
          try (PreparedStatement st = c.prepareStatement(sql.toString())) {
            int i = 1;
            st.setString(i++, scope.workspaceId());
            st.setLong(i++, query.afterSequence());
            for (String arg : args) {
              st.setString(i++, arg);
            }
            st.setInt(i, query.pageSize());
            List<DecisionEntry> page = new ArrayList<>();
            try (ResultSet rs = st.executeQuery()) {
              while (rs.next()) {
                long seq = rs.getLong(1);
                page.add(
                    new DecisionEntry(
                        seq,
                        rs.getString(6),
                        ControlSchema.instant(rs.getLong(7)),
                        new Scope(
                            rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5)),
                        ControlJson.read(
                            rs.getString(8), WriteDecision.class, "write decision " + seq)));
              }
            }
            return List.copyOf(page);
          }
        });
  }

  /**
   * {@link ControlDatabase#run}, holding the audit's lock, for work that appends to the audit: so
   * sequences are committed in order.
   */
  <T> T append(String operation, Database.Work<T> work) {
    lock.lock();
    try {
      return db.run(operation, work);
    } finally {
      lock.unlock();
    }
  }

  /** Inserts one run's decisions (with their JSON) on {@code c}, in the caller's transaction. */
  static void insert(
      Connection c,
      Scope scope,
      String runId,
      long decidedAt,
      List<WriteDecision> decisions,
      List<String> json)
      throws SQLException {
    if (decisions.isEmpty()) {
      return;
    }
    try (PreparedStatement st = c.prepareStatement(INSERT)) {
      for (int i = 0; i < decisions.size(); i++) {
        bindRunKey(st, 1, scope, runId);
        st.setLong(6, decidedAt);
        st.setString(7, decisions.get(i).outcome().name());
        st.setString(8, json.get(i));
        st.addBatch();
      }
      st.executeBatch();
    }
  }

  private static void narrow(StringBuilder sql, List<String> args, String column, String value) {
    if (!value.isEmpty()) {
      sql.append(" AND ").append(column).append(" = ?");
      args.add(value);
    }
  }
}
