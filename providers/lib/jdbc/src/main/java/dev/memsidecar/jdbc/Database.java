package dev.memsidecar.jdbc;

import static java.util.Objects.requireNonNull;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * One open SQL database of a store: its connections (a HikariCP pool), its schema (migrated when it
 * opens, {@link VersionedSchema}) and its {@link Housekeeping}; the one place the stores borrow a
 * connection ({@link #call}) and run a transaction ({@link #inTransaction}).
 *
 * <p><b>Connections.</b> A fixed pool of {@code poolSize}, plus one connection {@link #open} opens
 * first, outside the pool: a database that cannot be opened (another process holds the H2 file:
 * "Database may be already in use"; a wrong password) fails there at once with the driver's own
 * error; the housekeeping starts on it; and it holds an embedded database open until {@link #close}
 * (H2 closes one with its last connection), whatever the pool does. The pool's connections open in
 * the background, while the schema is migrated, and live as long as the pool (no maximum lifetime,
 * no idle eviction, no keep-alive queries), so an idle store does no I/O. A caller waits at most
 * {@value #BORROW_TIMEOUT_MILLIS} ms for a free connection, then gets {@link
 * NoFreeConnectionException}. A connection that failed with a broken-connection error is replaced.
 * After {@link #close} every call fails ({@link #isClosed} tells why).
 *
 * <p>Thread-safe. Errors are {@link SQLException}s for the store to map to its callers' terms: this
 * library knows nothing of the sidecar's API.
 */
public final class Database implements AutoCloseable {
  /** How long a caller waits for a free connection. */
  public static final long BORROW_TIMEOUT_MILLIS = 30_000;

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
  private final HikariDataSource pool;
  private final Connection keeper;
  private final Housekeeping housekeeping;
  private final int migratedFrom;

  private Database(
      Settings settings,
      DataSource unpooled,
      HikariDataSource pool,
      Connection keeper,
      Housekeeping housekeeping,
      int migratedFrom) {
    this.settings = settings;
    this.unpooled = unpooled;
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
    HikariDataSource pool = null;
    try {
      pool = pool(settings, unpooled);
      int found = SchemaMigrator.migrate(unpooled, dialect, schema, settings.name());
      Housekeeping housekeeping = dialect.startHousekeeping(keeper, settings.name());
      return new Database(settings, unpooled, pool, keeper, housekeeping, found);
    } catch (SQLException | RuntimeException | Error e) {
      if (pool != null) {
        pool.close();
      }
      closeQuietly(keeper, e);
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

  private static HikariDataSource pool(Settings settings, DataSource unpooled) {
    HikariConfig config = new HikariConfig();
    config.setPoolName(settings.name());
    config.setDataSource(unpooled);
    config.setMaximumPoolSize(settings.poolSize());
    config.setMinimumIdle(settings.poolSize());
    config.setConnectionTimeout(BORROW_TIMEOUT_MILLIS);
    // open() opened the first connection already; the pool fills itself in the background.
    config.setInitializationFailTimeout(-1);
    config.setMaxLifetime(0);
    config.setIdleTimeout(0);
    config.setKeepaliveTime(0);
    config.setAutoCommit(true);
    config.setRegisterMbeans(false);
    return new HikariDataSource(config);
  }

  /** The dialect of this database. */
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
   */
  public <T> T call(Work<T> work) throws SQLException {
    try (Connection c = borrow()) {
      return work.run(c);
    }
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
   * committed if it returns, else rolled back and its exception thrown.
   */
  public static <T> T inTransaction(Connection c, Transaction<T> work) throws SQLException {
    c.setAutoCommit(false);
    try {
      T result = work.run();
      c.commit();
      return result;
    } catch (SQLException | RuntimeException | Error e) {
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

  private Connection borrow() throws SQLException {
    try {
      return pool.getConnection();
    } catch (SQLTransientConnectionException e) {
      if (pool.isClosed()) {
        throw e;
      }
      throw new NoFreeConnectionException(settings.name(), BORROW_TIMEOUT_MILLIS, e);
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
    return pool.isClosed();
  }

  /**
   * Stops the housekeeping and closes the connections (an embedded database closes with its last
   * one; a connection still in use is aborted). Idempotent.
   */
  @Override
  public void close() {
    if (pool.isClosed()) {
      return;
    }
    housekeeping.close();
    pool.close();
    try {
      keeper.close();
    } catch (SQLException e) {
      LOG.log(Level.DEBUG, () -> settings.name() + ": closing its first connection failed", e);
    }
    LOG.log(Level.DEBUG, () -> settings.name() + ": closed " + settings.url());
  }

  @Override
  public String toString() {
    return "Database[" + settings.name() + ", " + settings.dialect().name() + "]";
  }
}
