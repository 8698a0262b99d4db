package dev.memsidecar.jdbc;

import static java.util.Objects.requireNonNull;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.pool.HikariPool;
import java.io.PrintWriter;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * One open SQL database of a store: its connections (a HikariCP pool), its schema (migrated when it
 * opens, {@link VersionedSchema}) and its {@link Housekeeping}; the one place the stores borrow a
 * connection ({@link #call}) and run a transaction ({@link #inTransaction}).
 *
 * <p><b>Connections.</b> A fixed pool of {@code poolSize}, plus one connection {@link #open} opens
 * first, outside the pool: a database that cannot be opened (another process holds the H2 file:
 * "Database may be already in use"; a wrong password) fails there at once with the driver's own
 * error. Where the dialect {@linkplain Dialect#needsHeldConnection needs it} (H2), the housekeeping
 * starts on that connection and it holds the embedded database open until {@link #close} (H2 closes
 * one with its last connection), whatever the pool does; elsewhere (PostgreSQL) it is closed once
 * the database is open. The pool's connections open in the background, while the schema is
 * migrated, and live as long as the pool (no maximum lifetime, no idle eviction, no keep-alive
 * queries), so an idle store does no I/O. A caller waits at most {@value #BORROW_TIMEOUT_MILLIS} ms
 * for a free connection, then gets {@link NoFreeConnectionException}. After {@link #close} every
 * call fails ({@link #isClosed} tells why).
 *
 * <p><b>When the database goes away</b> (a server restarts, crashes, or refuses logins): a call
 * does not wait out the borrow timeout, and a connection that failed as broken is never handed out
 * again.
 *
 * <ul>
 *   <li>A call whose connection breaks under it (SQLSTATE class {@code 08}, which includes the
 *       driver's I/O errors, or {@code 57P01}-{@code 57P03}: the server ended the session) fails
 *       with {@link DatabaseUnreachableException} "lost the connection"; if that happened during a
 *       commit ({@link #inTransaction}), the exception says the outcome is unknown: it is an error,
 *       never a success. The broken connection leaves the pool and a new one is opened in its
 *       place. A pooled connection idle for more than half a second is checked before it is handed
 *       out ({@link Connection#isValid}, at most {@value #VALIDATION_TIMEOUT_MILLIS} ms), so the
 *       ones a restart broke while idle are replaced without a caller seeing them.
 *   <li>While the pool's last attempt to open a connection failed, a call that finds no free good
 *       connection fails at once with {@link DatabaseUnreachableException} "the database at URL is
 *       unreachable" and the driver's error (for PostgreSQL {@code Connection to host:port refused}
 *       (SQLSTATE {@code 08001}), or {@code the database system is starting up} ({@code 57P03})). A
 *       call already waiting notices within {@value #WAIT_SLICE_MILLIS} ms. So while the database
 *       is down every call fails within about {@value #WAIT_SLICE_MILLIS} ms plus the time to check
 *       the connections it broke.
 *   <li>The pool keeps trying to open connections in the background (after 10 ms, then backing off
 *       to one attempt every 5 s), so calls work again at most about 5 s after the database is
 *       back, without reopening anything.
 * </ul>
 *
 * <p>These bounds hold for a server that refuses or ends connections. A server that stops answering
 * without closing them (a network partition) holds a call as long as the driver waits: set the
 * driver's own timeouts in the URL for that (PostgreSQL: {@code connectTimeout}, {@code
 * socketTimeout}).
 *
 * <p>Thread-safe. Errors are {@link SQLException}s for the store to map to its callers' terms: this
 * library knows nothing of the sidecar's API.
 */
public final class Database implements AutoCloseable {
  /** How long a caller waits for a free connection. */
  public static final long BORROW_TIMEOUT_MILLIS = 30_000;

  /**
   * How long a waiting caller goes without looking whether the database became unreachable: the
   * longest a call waits for a connection once the pool failed to open one.
   */
  public static final long WAIT_SLICE_MILLIS = 500;

  /** How long checking that an idle pooled connection still works may take. */
  public static final long VALIDATION_TIMEOUT_MILLIS = 2_000;

  /** The SQLSTATEs besides class {@code 08} that say a session is gone: the server ended it. */
  private static final Set<String> SESSION_ENDED = Set.of("57P01", "57P02", "57P03");

  private static final System.Logger LOG = System.getLogger(Database.class.getName());

  /**
   * How to reach a database.
   *
   * @param name what messages, logs and the pool's threads call it; must hold no secret
   * @param dialect the database's dialect
   * @param url the URL to connect with ({@link Dialect#connectionUrl}); shown in messages, so it
   *     must hold no secret either
   * @param user the user, or null
   * @param password the password, or null; never shown
   * @param poolSize connections kept open, at least 1
   */
  public record Settings(
      String name, Dialect dialect, String url, String user, String password, int poolSize) {
    public Settings {
      requireNonNull(name, "name is null");
      requireNonNull(dialect, "dialect is null");
      requireNonNull(url, "url is null");
      if (poolSize < 1) {
        throw new IllegalArgumentException("poolSize must be at least 1: " + poolSize);
      }
    }

    /**
     * The settings of the database at the JDBC URL {@code url} as a store gives it: its {@link
     * Dialect#forUrl dialect}, and the {@link Dialect#connectionUrl URL to connect with}.
     *
     * @param lockTimeout how long a writer waits for a row another transaction holds; null for the
     *     database's default
     * @throws IllegalArgumentException if no dialect takes the URL or it asks for an option that
     *     would break the stores' guarantees; the message says which
     */
    public static Settings forUrl(
        String name, String url, Duration lockTimeout, String user, String password, int poolSize) {
      Dialect dialect = Dialect.forUrl(url);
      return new Settings(
          name, dialect, dialect.connectionUrl(url, lockTimeout), user, password, poolSize);
    }

    @Override
    public String toString() {
      return "Settings[name="
          + name
          + ", dialect="
          + dialect.name()
          + ", url="
          + url
          + ", poolSize="
          + poolSize
          + "]";
    }
  }

  /** Work done with one borrowed connection. */
  @FunctionalInterface
  public interface Work<T> {
    T run(Connection connection) throws SQLException;
  }

  /** Work done in one transaction ({@link #inTransaction}). */
  @FunctionalInterface
  public interface Transaction<T> {
    T run() throws SQLException;
  }

  private final Settings settings;
  private final DataSource unpooled;
  private final ConnectAttempts attempts;
  private final HikariPool pool;
  private final Connection keeper;
  private final Housekeeping housekeeping;
  private final int migratedFrom;
  private volatile boolean closed;

  private Database(
      Settings settings,
      DataSource unpooled,
      ConnectAttempts attempts,
      HikariPool pool,
      Connection keeper,
      Housekeeping housekeeping,
      int migratedFrom) {
    this.settings = settings;
    this.unpooled = unpooled;
    this.attempts = attempts;
    this.keeper = keeper;
    this.pool = pool;
    this.housekeeping = housekeeping;
    this.migratedFrom = migratedFrom;
  }

  /**
   * Opens the pool, migrates {@code schema} ({@link SchemaMigrator}) and starts the dialect's
   * housekeeping. On failure nothing stays open.
   *
   * @throws NewerSchemaException if a later release wrote the tables
   * @throws SQLException if the database cannot be opened (the driver's error) or migrated
   */
  public static Database open(Settings settings, VersionedSchema schema) throws SQLException {
    requireNonNull(settings, "settings is null");
    requireNonNull(schema, "schema is null");
    Dialect dialect = settings.dialect();
    DataSource unpooled = dialect.dataSource(settings.url(), settings.user(), settings.password());
    Connection keeper = unpooled.getConnection();
    ConnectAttempts attempts = new ConnectAttempts(unpooled);
    HikariPool pool = null;
    try {
      pool = pool(settings, attempts);
      int found = SchemaMigrator.migrate(unpooled, dialect, schema, settings.name());
      Housekeeping housekeeping;
      if (dialect.needsHeldConnection()) {
        housekeeping = dialect.startHousekeeping(keeper, settings.name());
      } else {
        housekeeping = Housekeeping.NONE;
        Connection first = keeper;
        keeper = null;
        first.close();
      }
      return new Database(settings, unpooled, attempts, pool, keeper, housekeeping, found);
    } catch (SQLException | RuntimeException | Error e) {
      if (pool != null) {
        shutDown(pool, settings.name());
      }
      if (keeper != null) {
        closeQuietly(keeper, e);
      }
      throw e;
    }
  }

  private static void closeQuietly(Connection c, Throwable cause) {
    try {
      c.close();
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
  }

  private static HikariPool pool(Settings settings, DataSource connections) {
    HikariConfig config = new HikariConfig();
    config.setPoolName(settings.name());
    config.setDataSource(connections);
    config.setMaximumPoolSize(settings.poolSize());
    config.setMinimumIdle(settings.poolSize());
    config.setConnectionTimeout(BORROW_TIMEOUT_MILLIS);
    // open() opened the first connection already; the pool fills itself in the background.
    config.setInitializationFailTimeout(-1);
    config.setMaxLifetime(0);
    config.setIdleTimeout(0);
    config.setKeepaliveTime(0);
    config.setValidationTimeout(VALIDATION_TIMEOUT_MILLIS);
    config.setAutoCommit(true);
    config.setRegisterMbeans(false);
    // The pool itself rather than HikariDataSource: borrow() waits in slices, which only
    // HikariPool.getConnection(timeout) offers.
    config.validate();
    return new HikariPool(config);
  }

  private static void shutDown(HikariPool pool, String name) {
    try {
      pool.shutdown();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      LOG.log(Level.WARNING, () -> name + ": interrupted while closing its connections");
    }
  }

  /** The dialect of this database. */
  /** How the database was reached; for {@link SharedLocks}, which opens connections of its own. */
  Settings settings() {
    return settings;
  }

  public Dialect dialect() {
    return settings.dialect();
  }

  /** The URL connections are opened with (no secret). */
  public String url() {
    return settings.url();
  }

  /** The schema version the tables had before {@link #open}: 0 for a new database. */
  public int migratedFrom() {
    return migratedFrom;
  }

  /**
   * Runs {@code work} with a connection of its own (in auto-commit mode) and returns its result.
   *
   * @throws NoFreeConnectionException if none was free within {@value #BORROW_TIMEOUT_MILLIS} ms
   * @throws DatabaseUnreachableException if the database cannot be reached, or the connection broke
   *     during {@code work}
   */
  public <T> T call(Work<T> work) throws SQLException {
    try (Connection c = borrow()) {
      try {
        return work.run(c);
      } catch (SQLException e) {
        throw lost(c, e);
      }
    }
  }

  /** {@code e}, or a {@link DatabaseUnreachableException} if it says {@code c} broke. */
  private SQLException lost(Connection c, SQLException e) {
    if (e instanceof DatabaseUnreachableException) {
      return e;
    }
    if (e instanceof CommitLostException commit) {
      return DatabaseUnreachableException.lost(
          settings.name(), settings.url(), true, commit.getCause());
    }
    SQLException broken = brokenConnection(e);
    if (broken == null && isClosed(c)) {
      // The pool took the connection away (it saw a broken-connection error that work caught).
      broken = e;
    }
    return broken == null
        ? e
        : DatabaseUnreachableException.lost(settings.name(), settings.url(), false, broken);
  }

  private static boolean isClosed(Connection c) {
    try {
      return c.isClosed();
    } catch (SQLException e) {
      return true;
    }
  }

  /**
   * The exception in {@code e}'s chain (its causes and next exceptions) that says the connection is
   * broken, or null: SQLSTATE class {@code 08} (connection exception; the PostgreSQL driver's I/O
   * errors are {@code 08006}) or {@code 57P01}-{@code 57P03} (the server ended the session).
   */
  static SQLException brokenConnection(SQLException e) {
    Throwable t = e;
    for (int depth = 0; t != null && depth < 10; depth++) {
      if (t instanceof SQLException sql) {
        String state = sql.getSQLState();
        if (state != null && (state.startsWith("08") || SESSION_ENDED.contains(state))) {
          return sql;
        }
        t = sql.getNextException() != null ? sql.getNextException() : sql.getCause();
      } else {
        t = t.getCause();
      }
    }
    return null;
  }

  /**
   * {@link #call} holding the dialect's {@linkplain Dialect#lockMigrations migration lock} named
   * {@code name}, for work at open that two processes must not do at once (re-embedding every
   * vector, say); it should look again at what is to do once it runs. The lock has a connection of
   * its own, not one of the pool's.
   */
  public <T> T callExclusively(String name, Work<T> work) throws SQLException {
    try (MigrationLock lock = settings.dialect().lockMigrations(unpooled, name, settings.name())) {
      return call(work);
    }
  }

  /** {@link #call} in one transaction: committed if {@code work} returns, else rolled back. */
  public <T> T transaction(Work<T> work) throws SQLException {
    return call(c -> inTransaction(c, () -> work.run(c)));
  }

  /**
   * Runs {@code work} in a transaction on {@code c} (in auto-commit mode before and after):
   * committed if it returns, else rolled back and its exception thrown. It returns only once the
   * commit succeeded. If the connection broke during the commit, whether the server committed is
   * unknown: that is an error too, which {@link #call} reports as a {@link
   * DatabaseUnreachableException} whose {@link DatabaseUnreachableException#outcomeUnknown} is set.
   */
  public static <T> T inTransaction(Connection c, Transaction<T> work) throws SQLException {
    c.setAutoCommit(false);
    T result;
    try {
      result = work.run();
    } catch (SQLException | RuntimeException | Error e) {
      undo(c, e);
      throw e;
    }
    try {
      c.commit();
    } catch (SQLException e) {
      SQLException thrown = brokenConnection(e) == null ? e : new CommitLostException(e);
      undo(c, thrown);
      throw thrown;
    }
    try {
      c.setAutoCommit(true);
    } catch (SQLException e) {
      // Committed: the answer is the result. A broken connection leaves the pool, and the pool
      // puts a connection it takes back into auto-commit mode.
      LOG.log(Level.DEBUG, "back to auto-commit after a commit failed", e);
    }
    return result;
  }

  /** Rolls back and goes back to auto-commit mode, adding what fails to {@code cause}. */
  private static void undo(Connection c, Throwable cause) {
    try {
      c.rollback();
    } catch (SQLException suppressed) {
      cause.addSuppressed(suppressed);
    }
    try {
      c.setAutoCommit(true);
    } catch (SQLException suppressed) {
      cause.addSuppressed(suppressed);
    }
  }

  /** A commit on a connection that broke: it may or may not have happened. */
  private static final class CommitLostException extends SQLTransientConnectionException {
    private static final long serialVersionUID = 1L;

    CommitLostException(SQLException cause) {
      super(
          "lost the connection during a commit, so whether the transaction was committed is"
              + " unknown: "
              + SchemaMigrator.firstLine(cause.getMessage()),
          cause.getSQLState(),
          cause);
    }

    @Override
    public synchronized SQLException getCause() {
      return (SQLException) super.getCause();
    }
  }

  /**
   * A pooled connection: waits for one in slices of {@value #WAIT_SLICE_MILLIS} ms, up to {@value
   * #BORROW_TIMEOUT_MILLIS} ms, and gives up at once when the pool's last attempt to open one
   * failed and none is free.
   */
  private Connection borrow() throws SQLException {
    long start = System.nanoTime();
    while (true) {
      if (closed) {
        throw new SQLException(settings.name() + " is closed");
      }
      SQLException down = attempts.lastFailure();
      long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      long wait = down != null ? 0 : Math.min(WAIT_SLICE_MILLIS, BORROW_TIMEOUT_MILLIS - waited);
      try {
        return pool.getConnection(Math.max(0, wait));
      } catch (SQLTransientConnectionException e) {
        if (closed) {
          throw new SQLException(settings.name() + " is closed", e);
        }
        down = attempts.lastFailure();
        if (down != null) {
          throw DatabaseUnreachableException.cannotConnect(settings.name(), settings.url(), down);
        }
        if (TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) >= BORROW_TIMEOUT_MILLIS) {
          throw new NoFreeConnectionException(settings.name(), BORROW_TIMEOUT_MILLIS, e);
        }
      }
    }
  }

  /**
   * The data source the pool opens its connections with: remembers whether the last attempt failed,
   * and with what, so that a caller need not wait for a connection that cannot come.
   */
  private static final class ConnectAttempts implements DataSource {
    private final DataSource source;
    private volatile SQLException lastFailure;

    ConnectAttempts(DataSource source) {
      this.source = source;
    }

    /** The error of the last attempt to open a connection if it failed, else null. */
    SQLException lastFailure() {
      return lastFailure;
    }

    @Override
    public Connection getConnection() throws SQLException {
      return remember(source::getConnection);
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
      return remember(() -> source.getConnection(username, password));
    }

    private Connection remember(Opening opening) throws SQLException {
      try {
        Connection c = opening.open();
        lastFailure = null;
        return c;
      } catch (SQLException e) {
        lastFailure = e;
        throw e;
      }
    }

    @FunctionalInterface
    private interface Opening {
      Connection open() throws SQLException;
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
      return source.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
      source.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
      source.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
      return source.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      return source.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
      return type.isInstance(source) ? type.cast(source) : source.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
      return type.isInstance(source) || source.isWrapperFor(type);
    }
  }

  /**
   * The first line of {@code e}'s message, for a message of the store's own: H2's go on with the
   * statement and the causes.
   */
  public static String firstLine(SQLException e) {
    return SchemaMigrator.firstLine(e.getMessage());
  }

  /** {@code SQLSTATE <state>, error <code>} of {@code e}, for messages that name what failed. */
  public static String errorCodes(SQLException e) {
    return "SQLSTATE " + e.getSQLState() + ", error " + e.getErrorCode();
  }

  /** Whether {@link #close} was called. */
  public boolean isClosed() {
    return closed;
  }

  /**
   * Stops the housekeeping and closes the connections (an embedded database closes with its last
   * one; a connection still in use is aborted). Idempotent.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    housekeeping.close();
    shutDown(pool, settings.name());
    if (keeper != null) {
      try {
        keeper.close();
      } catch (SQLException e) {
        LOG.log(Level.DEBUG, () -> settings.name() + ": closing its first connection failed", e);
      }
    }
    LOG.log(Level.DEBUG, () -> settings.name() + ": closed " + settings.url());
  }

  @Override
  public String toString() {
    return "Database[" + settings.name() + ", " + settings.dialect().name() + "]";
  }
}
