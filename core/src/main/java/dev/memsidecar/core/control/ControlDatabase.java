package dev.memsidecar.core.control;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.StartupException;
import dev.memsidecar.jdbc.Database;
import dev.memsidecar.jdbc.DatabaseUnreachableException;
import dev.memsidecar.jdbc.Dialect;
import dev.memsidecar.jdbc.NoFreeConnectionException;
import dev.memsidecar.jdbc.SharedLocks;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.function.Supplier;

/**
 * The control store's database ({@link Database}: pool, migrations, housekeeping) and what every
 * table family does with it: run an operation and say what failed in the callers' terms ({@link
 * #run}), retry a transaction that lost a race ({@link #inTransactionRetried}), insert unless the
 * key is taken, bind a run's key. Thread-safe.
 */
final class ControlDatabase implements AutoCloseable {
  /** Connections kept open. */
  static final int POOL_SIZE = 4;

  /** How often a save re-reads and retries after losing a race, before it gives up (ABORTED). */
  static final int SAVE_ATTEMPTS = 8;

  /** How long a writer waits for a row another transaction holds (H2's default is 1 s). */
  static final Duration LOCK_TIMEOUT = Duration.ofSeconds(10);

  /** The {@code WHERE} clause of one run's row: its scope's four ids and the run id. */
  static final String RUN_KEY =
      "workspace_id = ? AND user_id = ? AND agent_id = ? AND session_id = ? AND run_id = ?";

  private static final String NAME = "the control store";
  private static final System.Logger LOG = System.getLogger(ControlDatabase.class.getName());

  /** Connections of the cross-process locks ({@link #underSharedLock}), at most. */
  static final int LOCK_STRIPES = 4;

  private final Database db;
  private final SharedLocks locks;

  private ControlDatabase(Database db) {
    this.db = db;
    this.locks = SharedLocks.of(db, LOCK_STRIPES);
  }

  /**
   * Runs {@code work} holding the lock {@code name} of every process on this database ({@link
   * SharedLocks}); UNAVAILABLE if it cannot be taken.
   */
  <T> T underSharedLock(String name, Supplier<T> work) {
    try {
      return locks.run(name, work);
    } catch (SQLException e) {
      if (db.isClosed()) {
        throw MemoryException.failedPrecondition("the control store is closed");
      }
      throw MemoryException.unavailable(
          "control store: cannot take the lock '"
              + name
              + "' at "
              + db.url()
              + ": "
              + Database.firstLine(e)
              + " ("
              + Database.errorCodes(e)
              + ")",
          e);
    }
  }

  /**
   * Opens the control store's database at a JDBC URL, creating or migrating its tables.
   *
   * @param credentials {@code user} and {@code password}, given to the driver apart from the URL
   * @throws StartupException if the URL is refused or the database cannot be opened; the message
   *     names the URL
   */
  static ControlDatabase open(String jdbcUrl, Properties credentials) {
    requireNonNull(jdbcUrl, "jdbcUrl is null");
    requireNonNull(credentials, "credentials is null");
    Database.Settings settings;
    try {
      settings =
          Database.Settings.forUrl(
              NAME,
              jdbcUrl,
              LOCK_TIMEOUT,
              credentials.getProperty("user"),
              credentials.getProperty("password"),
              POOL_SIZE);
    } catch (IllegalArgumentException e) {
      throw new StartupException(
          "cannot open the control store at " + jdbcUrl + ": " + e.getMessage());
    }
    try {
      Database db = Database.open(settings, ControlSchema.SCHEMA);
      LOG.log(
          Level.INFO,
          () -> "control store opened at " + db.url() + " (" + db.dialect().name() + ")");
      return new ControlDatabase(db);
    } catch (SQLException e) {
      throw new StartupException(
          "cannot open the control store at " + settings.url() + ": " + Database.firstLine(e), e);
    }
  }

  /**
   * Runs {@code work} with a connection of its own. A database error is UNAVAILABLE (naming the
   * operation and SQLSTATE), or FAILED_PRECONDITION once the store is closed.
   *
   * @param operation what the caller was doing, for messages ("read the snapshot of run x")
   */
  <T> T run(String operation, Database.Work<T> work) {
    try {
      return db.call(work);
    } catch (NoFreeConnectionException e) {
      throw MemoryException.unavailable(e.getMessage(), e);
    } catch (DatabaseUnreachableException e) {
      throw MemoryException.unavailable(
          "control store: cannot " + operation + ": " + e.getMessage(), e);
    } catch (SQLException e) {
      if (db.isClosed()) {
        throw MemoryException.failedPrecondition("the control store is closed");
      }
      LOG.log(Level.WARNING, () -> "control store: cannot " + operation + " at " + db.url(), e);
      throw MemoryException.unavailable(
          "control store: cannot " + operation + " (" + Database.errorCodes(e) + ")", e);
    }
  }

  /**
   * {@link Database#inTransaction}, run again from the start when it fails on a duplicate key (a
   * concurrent writer created a row it meant to create), at most {@value #SAVE_ATTEMPTS} times;
   * then ABORTED naming {@code what}.
   */
  <T> T inTransactionRetried(Connection c, String what, Database.Transaction<T> work)
      throws SQLException {
    for (int attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
      try {
        return Database.inTransaction(c, work);
      } catch (SQLException e) {
        if (!isDuplicateKey(e)) {
          throw e;
        }
      }
    }
    throw MemoryException.aborted(what + " lost " + SAVE_ATTEMPTS + " races; retry");
  }

  /** Whether {@code e} says an insert met an existing primary or unique key. */
  boolean isDuplicateKey(SQLException e) {
    return db.dialect().isDuplicateKey(e);
  }

  /**
   * Runs the prepared insert {@code st}; false if it met an existing key. Inside a transaction the
   * failed insert is rolled back to a savepoint, so the transaction goes on (PostgreSQL would
   * otherwise refuse every later statement of it).
   */
  boolean insertUnlessTaken(PreparedStatement st) throws SQLException {
    Connection c = st.getConnection();
    Savepoint before = c.getAutoCommit() ? null : c.setSavepoint();
    try {
      st.executeUpdate();
      return true;
    } catch (SQLException e) {
      if (isDuplicateKey(e)) {
        if (before != null) {
          c.rollback(before);
        }
        return false;
      }
      throw e;
    } finally {
      if (before != null) {
        try {
          c.releaseSavepoint(before);
        } catch (SQLException ignored) {
          // rolled back to, or the transaction is failing anyway
        }
      }
    }
  }

  /**
   * {@link Dialect#lockUntilCommit}: the rest of {@code c}'s transaction excludes every other one,
   * in any process, that locks {@code table} too; for tables whose readers page by a number given
   * on insert.
   */
  void lockUntilCommit(Connection c, String table) throws SQLException {
    db.dialect().lockUntilCommit(c, table);
  }

  /** {@link Dialect#upsert}. */
  String upsert(String table, List<String> columns, List<String> keyColumns) {
    return db.dialect().upsert(table, columns, keyColumns);
  }

  /**
   * INVALID_ARGUMENT naming {@code field} if this database cannot store {@code text} as it is (a
   * NUL character or an unpaired surrogate in PostgreSQL text); {@code what} says whose field it
   * is.
   */
  void checkText(String field, String what, String text) {
    String problem = text == null ? null : db.dialect().unstorableText(text);
    if (problem != null) {
      throw MemoryException.invalidArgument(field, what + ": " + field + " holds " + problem);
    }
  }

  /**
   * {@code text} with each character this database cannot store replaced by U+FFFD, for what the
   * store keeps as a note rather than as data (a tool's last error, a matched object).
   */
  String storable(String text) {
    if (text == null || db.dialect().unstorableText(text) == null) {
      return text;
    }
    StringBuilder b = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char ch = text.charAt(i);
      if (Character.isHighSurrogate(ch)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        b.append(ch).append(text.charAt(++i));
      } else if (ch == 0 || Character.isSurrogate(ch)) {
        b.append('\uFFFD');
      } else {
        b.append(ch);
      }
    }
    return b.toString();
  }

  /** The dialect's name ({@code h2}, {@code postgresql}). */
  String dialectName() {
    return db.dialect().name();
  }

  /** Binds {@link #RUN_KEY}'s five parameters from {@code first} on. */
  static void bindRunKey(PreparedStatement st, int first, Scope scope, String runId)
      throws SQLException {
    st.setString(first, scope.workspaceId());
    st.setString(first + 1, scope.userId());
    st.setString(first + 2, scope.agentId());
    st.setString(first + 3, scope.sessionId());
    st.setString(first + 4, runId);
  }

  /** The URL the database was opened with (no secret). */
  String url() {
    return db.url();
  }

  boolean isClosed() {
    return db.isClosed();
  }

  /** Closes the database; idempotent. */
  @Override
  public void close() {
    locks.close();
    db.close();
  }
}
