package dev.memsidecar.core.control;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.StartupException;
import dev.memsidecar.core.WriteDecision;
import dev.memsidecar.core.run.EndRunResult;
import dev.memsidecar.core.run.RunSnapshot;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The {@link ControlStore} in an SQL database over plain JDBC: an embedded H2 file under the data
 * directory by default ({@link #open(Path)}), any H2 URL with {@link #open(String, Properties)}.
 * What differs between databases is behind {@link ControlDialect}; the tables are described in
 * {@link ControlSchema}, the JSON they hold in {@link ControlJson}.
 *
 * <p>Every write is committed before its method returns, with H2's {@code WRITE_DELAY=0}: a {@code
 * kill -9} of the process loses nothing acknowledged (a power cut may: there is no fsync). H2's
 * {@code FILE_LOCK=FILE} keeps a second process out of the same database.
 *
 * <p>First writer wins: a snapshot is inserted under its run's primary key, and when the key exists
 * the stored snapshot is returned if still live, or replaced only if it is the same expired one
 * that was read (a compare-and-set on its snapshot id), so two concurrent BeginRuns of one run get
 * one snapshot. An EndRun result and its decisions are inserted in one transaction; a retry that
 * finds the result, or loses the insert race, returns the stored one and appends nothing.
 *
 * <p>Audit order: appends to the audit are serialized in this process, so the sequence order is the
 * commit order and a reader paging with {@code afterSequence} never skips a decision committed
 * later with a smaller sequence.
 *
 * <p>Open one store per database in a process: H2 lets a second {@code open} of the same file in
 * the same JVM share the database, but the two stores would not share the audit's ordering.
 *
 * <p>Thread-safe: each call borrows one of {@value #POOL_SIZE} connections. After {@link #close()}
 * every method fails with FAILED_PRECONDITION; a database error is UNAVAILABLE (naming the
 * operation and SQLSTATE).
 */
public final class H2ControlStore implements ControlStore {
  /** Connections kept open. */
  static final int POOL_SIZE = 4;

  /** How often a save re-reads and retries after losing a race, before it gives up (ABORTED). */
  private static final int SAVE_ATTEMPTS = 8;

  private static final System.Logger LOG = System.getLogger(H2ControlStore.class.getName());

  private static final String KEY =
      "workspace_id = ? AND user_id = ? AND agent_id = ? AND session_id = ? AND run_id = ?";
  private static final String INSERT_DECISION =
      "INSERT INTO "
          + ControlSchema.DECISIONS
          + " (workspace_id, user_id, agent_id, session_id, run_id, decided_at, outcome,"
          + " decision_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";

  private final String url;
  private final ControlDialect dialect;
  private final ControlConnections connections;
  private final ReentrantLock auditLock = new ReentrantLock();

  private H2ControlStore(String url, ControlDialect dialect, ControlConnections connections) {
    this.url = url;
    this.dialect = dialect;
    this.connections = connections;
  }

  /**
   * Opens (creating if needed) the embedded H2 database {@code <dataDir>/control/control.mv.db}.
   *
   * @throws StartupException if it cannot be opened (another process holds it, a newer release
   *     wrote it, the directory cannot be made); the message names the path
   */
  public static H2ControlStore open(Path dataDir) {
    requireNonNull(dataDir, "dataDir is null");
    Path dir = dataDir.resolve("control").toAbsolutePath();
    if (dir.toString().indexOf(';') >= 0) {
      throw new StartupException(
          "the control store cannot live in " + dir + ": H2 URLs cannot hold a ';'");
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new StartupException("cannot create the control store directory " + dir + ": " + e, e);
    }
    return open("jdbc:h2:file:" + dir.resolve("control"), new Properties());
  }

  /**
   * Opens the control store at a JDBC URL ({@code jdbc:h2:} only, until another dialect exists),
   * creating its tables if needed. H2 options that would break durability ({@code WRITE_DELAY}
   * other than 0, {@code FILE_LOCK=NO}) are refused; the ones the store needs are added.
   *
   * @param credentials given to the driver as they are ({@code user}, {@code password}); never
   *     shown, so a password belongs here and not in the URL, which messages show
   * @throws StartupException if the URL is refused or the database cannot be opened
   */
  public static H2ControlStore open(String jdbcUrl, Properties credentials) {
    requireNonNull(jdbcUrl, "jdbcUrl is null");
    requireNonNull(credentials, "credentials is null");
    ControlDialect dialect;
    String url;
    try {
      dialect = ControlDialect.forUrl(jdbcUrl);
      url = dialect.connectionUrl(jdbcUrl);
    } catch (IllegalArgumentException e) {
      throw new StartupException(
          "cannot open the control store at " + jdbcUrl + ": " + e.getMessage());
    }
    Properties props = new Properties();
    props.putAll(credentials);
    ControlConnections connections = null;
    try {
      connections =
          new ControlConnections(() -> DriverManager.getConnection(url, props), POOL_SIZE);
      int found = connections.call(c -> ControlSchema.ensure(c, dialect));
      if (found > ControlSchema.VERSION) {
        throw new StartupException(
            "cannot open the control store at "
                + url
                + ": its tables are at schema version "
                + found
                + ", written by a later release; this one reads up to "
                + ControlSchema.VERSION);
      }
    } catch (SQLException e) {
      closeQuietly(connections);
      throw new StartupException(
          "cannot open the control store at " + url + ": " + firstLine(e.getMessage()), e);
    } catch (RuntimeException e) {
      closeQuietly(connections);
      throw e;
    }
    LOG.log(Level.INFO, () -> "control store opened at " + url + " (" + dialect.name() + ")");
    return new H2ControlStore(url, dialect, connections);
  }

  @Override
  public Optional<RunSnapshot> snapshot(Scope scope, String runId, Instant now) {
    requireNonNull(scope, "scope is null");
    requireNonNull(runId, "runId is null");
    requireNonNull(now, "now is null");
    return run(
        "read the snapshot of run " + runId,
        c -> readSnapshot(c, scope, runId).filter(s -> s.expireTime().isAfter(now)));
  }

  @Override
  public RunSnapshot saveSnapshot(Scope scope, RunSnapshot snapshot, Instant now) {
    requireNonNull(scope, "scope is null");
    requireNonNull(snapshot, "snapshot is null");
    requireNonNull(now, "now is null");
    String runId = snapshot.runId();
    String json = ControlJson.write(snapshot);
    return run(
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

  @Override
  public int deleteExpiredSnapshots(Instant now) {
    requireNonNull(now, "now is null");
    return run(
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

  @Override
  public Optional<EndRunResult> endRun(Scope scope, String runId) {
    requireNonNull(scope, "scope is null");
    requireNonNull(runId, "runId is null");
    return run("read the result of run " + runId, c -> readResult(c, scope, runId));
  }

  @Override
  public EndRunResult saveEndRun(Scope scope, EndRunResult result) {
    requireNonNull(scope, "scope is null");
    requireNonNull(result, "result is null");
    String runId = result.runId();
    long decidedAt = ControlSchema.exactNanos(result.endTime(), "endTime");
    String json = ControlJson.write(result);
    List<String> decisions = result.decisions().stream().map(ControlJson::write).toList();
    return appendToAudit(
        "save the result of run " + runId,
        c -> {
          for (int attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
            Optional<EndRunResult> stored = readResult(c, scope, runId);
            if (stored.isPresent()) {
              return stored.get();
            }
            try {
              inTransaction(
                  c,
                  () -> {
                    try (PreparedStatement st =
                        c.prepareStatement(
                            "INSERT INTO "
                                + ControlSchema.RESULTS
                                + " (workspace_id, user_id, agent_id, session_id, run_id, end_at,"
                                + " result_json) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                      bindKey(st, scope, runId);
                      st.setLong(6, decidedAt);
                      st.setString(7, json);
                      st.executeUpdate();
                    }
                    insertDecisions(c, scope, runId, decidedAt, result.decisions(), decisions);
                    return null;
                  });
              return result;
            } catch (SQLException e) {
              if (!dialect.isDuplicateKey(e)) {
                throw e;
              }
              // Another process ended the run first: read its result.
            }
          }
          throw MemoryException.aborted(
              "saving the result of run " + runId + " lost " + SAVE_ATTEMPTS + " races; retry");
        });
  }

  @Override
  public void recordDecisions(
      Scope scope, String runId, List<WriteDecision> decisions, Instant time) {
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
    appendToAudit(
        "record " + all.size() + " decisions",
        c ->
            inTransaction(
                c,
                () -> {
                  insertDecisions(c, scope, runId, decidedAt, all, json);
                  return true;
                }));
  }

  @Override
  public List<DecisionEntry> decisions(DecisionQuery query) {
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
    return run(
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

  /** Closes the connections; the database file stays. Idempotent. */
  @Override
  public void close() {
    if (!connections.isClosed()) {
      connections.close();
      LOG.log(Level.DEBUG, () -> "control store at " + url + " closed");
    }
  }

  private static void narrow(StringBuilder sql, List<String> args, String column, String value) {
    if (!value.isEmpty()) {
      sql.append(" AND ").append(column).append(" = ?");
      args.add(value);
    }
  }

  private static Optional<RunSnapshot> readSnapshot(Connection c, Scope scope, String runId)
      throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT snapshot_json FROM " + ControlSchema.SNAPSHOTS + " WHERE " + KEY)) {
      bindKey(st, scope, runId);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next()
            ? Optional.of(
                ControlJson.read(
                    rs.getString(1), RunSnapshot.class, "the snapshot of run " + runId))
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
      bindKey(st, scope, snapshot.runId());
      st.setString(6, snapshot.snapshotId());
      st.setLong(7, ControlSchema.nanos(snapshot.createTime()));
      st.setLong(8, ControlSchema.nanos(snapshot.expireTime()));
      st.setString(9, json);
      st.executeUpdate();
      return true;
    } catch (SQLException e) {
      if (dialect.isDuplicateKey(e)) {
        return false;
      }
      throw e;
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
                + KEY
                + " AND snapshot_id = ? AND expire_at = ?")) {
      st.setString(1, snapshot.snapshotId());
      st.setLong(2, ControlSchema.nanos(snapshot.createTime()));
      st.setLong(3, ControlSchema.nanos(snapshot.expireTime()));
      st.setString(4, json);
      bindKey(st, 5, scope, snapshot.runId());
      st.setString(10, expired.snapshotId());
      st.setLong(11, ControlSchema.nanos(expired.expireTime()));
      return st.executeUpdate() == 1;
    }
  }

  private static Optional<EndRunResult> readResult(Connection c, Scope scope, String runId)
      throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement("SELECT result_json FROM " + ControlSchema.RESULTS + " WHERE " + KEY)) {
      bindKey(st, scope, runId);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next()
            ? Optional.of(
                ControlJson.read(rs.getString(1), EndRunResult.class, "the result of run " + runId))
            : Optional.empty();
      }
    }
  }

  private static void insertDecisions(
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
    try (PreparedStatement st = c.prepareStatement(INSERT_DECISION)) {
      for (int i = 0; i < decisions.size(); i++) {
        bindKey(st, scope, runId);
        st.setLong(6, decidedAt);
        st.setString(7, decisions.get(i).outcome().name());
        st.setString(8, json.get(i));
        st.addBatch();
      }
      st.executeBatch();
    }
  }

  private static void bindKey(PreparedStatement st, Scope scope, String runId) throws SQLException {
    bindKey(st, 1, scope, runId);
  }

  private static void bindKey(PreparedStatement st, int first, Scope scope, String runId)
      throws SQLException {
    st.setString(first, scope.workspaceId());
    st.setString(first + 1, scope.userId());
    st.setString(first + 2, scope.agentId());
    st.setString(first + 3, scope.sessionId());
    st.setString(first + 4, runId);
  }

  /** Work done in one transaction. */
  @FunctionalInterface
  private interface Transaction<T> {
    T run() throws SQLException;
  }

  /** Runs {@code work} in a transaction on {@code c}: committed if it returns, else rolled back. */
  private static <T> T inTransaction(Connection c, Transaction<T> work) throws SQLException {
    c.setAutoCommit(false);
    try {
      T result = work.run();
      c.commit();
      return result;
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

  /** {@link #run}, holding the audit lock, so sequences are committed in order. */
  private <T> T appendToAudit(String operation, ControlConnections.Work<T> work) {
    auditLock.lock();
    try {
      return run(operation, work);
    } finally {
      auditLock.unlock();
    }
  }

  private <T> T run(String operation, ControlConnections.Work<T> work) {
    try {
      return connections.call(work);
    } catch (SQLException e) {
      if (connections.isClosed()) {
        throw MemoryException.failedPrecondition("the control store is closed");
      }
      LOG.log(Level.WARNING, () -> "control store: cannot " + operation + " at " + url, e);
      throw MemoryException.unavailable(
          "control store: cannot "
              + operation
              + " (SQLSTATE "
              + e.getSQLState()
              + ", error "
              + e.getErrorCode()
              + ")",
          e);
    }
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }

  private static void closeQuietly(ControlConnections connections) {
    if (connections != null) {
      connections.close();
    }
  }
}
