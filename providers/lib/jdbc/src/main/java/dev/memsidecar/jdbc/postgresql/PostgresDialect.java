package dev.memsidecar.jdbc.postgresql;

import dev.memsidecar.jdbc.Dialect;
import dev.memsidecar.jdbc.Housekeeping;
import dev.memsidecar.jdbc.MigrationLock;
import java.lang.System.Logger.Level;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32;
import javax.sql.DataSource;
import org.postgresql.Driver;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * PostgreSQL (tested on 15) through its JDBC driver ({@code org.postgresql}).
 *
 * <p>{@link #connectionUrl} checks the URL with the driver's own parser and refuses one that holds
 * a {@code password} parameter: the stores show their URL in messages and logs, so the password
 * goes apart ({@link #dataSource}). When a store asks for a lock timeout and the URL sets no {@code
 * options}, it adds {@code options=-c lock_timeout=<ms>} (PostgreSQL's default is to wait forever;
 * deadlocks are still detected after its {@code deadlock_timeout}).
 *
 * <p>Durability is the server's: a commit returns once its WAL is flushed, as long as the server
 * keeps {@code synchronous_commit} and {@code fsync} on (their defaults). The server also keeps its
 * files in shape itself (autovacuum, checkpoints), so {@link #startHousekeeping} starts nothing,
 * and no connection is held open apart from the pool ({@link #needsHeldConnection} is false): the
 * pool replaces connections a server restart broke. Several processes may open one database at
 * once; their schema migrations take turns under a session-level advisory lock ({@link
 * #lockMigrations}).
 *
 * <p>Text columns are {@code TEXT} and byte columns {@code BYTEA}; key columns that the stores
 * order by are declared {@code COLLATE "C"} in the scripts, so they sort by code point whatever the
 * database's locale, as on H2 and in Java. PostgreSQL text holds neither NUL characters nor
 * unpaired surrogates (the driver would turn those into {@code ?}): {@link #unstorableText} says so
 * before a write. Stateless and thread-safe.
 */
public record PostgresDialect() implements Dialect {
  static final String PREFIX = "jdbc:postgresql:";

  private static final System.Logger LOG = System.getLogger(PostgresDialect.class.getName());

  @Override
  public String name() {
    return "postgresql";
  }

  @Override
  public String urlPrefix() {
    return PREFIX;
  }

  @Override
  public String connectionUrl(String url, Duration lockTimeout) {
    List<String> names = parameterNames(url);
    if (names.contains("password")) {
      throw new IllegalArgumentException(
          "a PostgreSQL URL must not hold the password (its password parameter): the URL is shown"
              + " in messages and logs; give the password apart");
    }
    if (Driver.parseURL(url, null) == null) {
      throw new IllegalArgumentException(
          "not a PostgreSQL JDBC URL (jdbc:postgresql://host:port/database)");
    }
    if (lockTimeout == null || names.contains("options")) {
      return url;
    }
    String option =
        URLEncoder.encode("-c lock_timeout=" + lockTimeout.toMillis(), StandardCharsets.UTF_8)
            .replace("+", "%20");
    return url + (url.indexOf('?') < 0 ? "?" : "&") + "options=" + option;
  }

  /** The names of the URL's parameters ({@code ?a=1&b=2}), lower case. */
  static List<String> parameterNames(String url) {
    int q = url.indexOf('?');
    List<String> out = new ArrayList<>();
    if (q < 0) {
      return out;
    }
    for (String pair : url.substring(q + 1).split("&")) {
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      out.add(URLDecoder.decode(name, StandardCharsets.UTF_8).trim().toLowerCase(Locale.ROOT));
    }
    return out;
  }

  @Override
  public DataSource dataSource(String url, String user, String password) {
    PGSimpleDataSource source = new PGSimpleDataSource();
    source.setURL(url);
    if (user != null) {
      source.setUser(user);
    }
    if (password != null) {
      source.setPassword(password);
    }
    return source;
  }

  /** None: the server vacuums and checkpoints its files itself. */
  @Override
  public Housekeeping startHousekeeping(Connection connection, String name) {
    return Housekeeping.NONE;
  }

  @Override
  public String binaryType() {
    return "BYTEA";
  }

  /** {@code INSERT ... ON CONFLICT (keys) DO UPDATE SET c = EXCLUDED.c, ...}. */
  @Override
  public String upsert(String table, List<String> columns, List<String> keyColumns) {
    StringBuilder sql =
        new StringBuilder("INSERT INTO ")
            .append(table)
            .append(" (")
            .append(String.join(", ", columns))
            .append(") VALUES (")
            .append(String.join(", ", Collections.nCopies(columns.size(), "?")))
            .append(") ON CONFLICT (")
            .append(String.join(", ", keyColumns))
            .append(") DO ");
    List<String> set = new ArrayList<>();
    for (String c : columns) {
      if (!keyColumns.contains(c)) {
        set.add(c + " = EXCLUDED." + c);
      }
    }
    if (set.isEmpty()) {
      return sql.append("NOTHING").toString();
    }
    return sql.append("UPDATE SET ").append(String.join(", ", set)).toString();
  }

  /**
   * A NUL character (PostgreSQL text cannot hold one: SQLSTATE 22021) or an unpaired surrogate (not
   * UTF-8: the driver would store {@code ?} instead).
   */
  @Override
  public String unstorableText(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == 0) {
        return "a NUL character (U+0000) at index " + i + ", which PostgreSQL text cannot hold";
      }
      if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c)
            && i + 1 < text.length()
            && Character.isLowSurrogate(text.charAt(i + 1))) {
          i++;
          continue;
        }
        return String.format(
            Locale.ROOT,
            "an unpaired surrogate (U+%04X) at index %d, which UTF-8 cannot encode",
            (int) c,
            i);
      }
    }
    return null;
  }

  /**
   * A session-level advisory lock on a connection of its own, keyed by {@code name}: held until
   * closed, or until that connection ends (a killed process releases it). Another process waits for
   * it, saying so in the log.
   */
  @Override
  public MigrationLock lockMigrations(DataSource source, String name, String database)
      throws SQLException {
    long key = lockKey(name);
    Connection c = source.getConnection();
    try {
      if (!tryAdvisoryLock(c, key)) {
        LOG.log(
            Level.INFO,
            () -> database + ": waiting for another process to finish migrating the tables");
        try (PreparedStatement st = c.prepareStatement("SELECT 1 FROM pg_advisory_lock(?)")) {
          st.setLong(1, key);
          st.executeQuery().close();
        }
      }
    } catch (SQLException | RuntimeException e) {
      try {
        c.close();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    return c::close;
  }

  /** A transaction-level advisory lock keyed by {@code name}, released at commit or rollback. */
  @Override
  public void lockUntilCommit(Connection c, String name) throws SQLException {
    if (c.getAutoCommit()) {
      throw new IllegalStateException("lockUntilCommit needs a transaction: " + name);
    }
    CRC32 crc = new CRC32();
    crc.update(("memsidecar appends " + name).getBytes(StandardCharsets.UTF_8));
    try (PreparedStatement st = c.prepareStatement("SELECT 1 FROM pg_advisory_xact_lock(?)")) {
      st.setLong(1, crc.getValue());
      st.executeQuery().close();
    }
  }

  private static boolean tryAdvisoryLock(Connection c, long key) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
      st.setLong(1, key);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  /** The advisory lock key of {@code name}: its CRC-32, under a prefix of our own. */
  static long lockKey(String name) {
    CRC32 crc = new CRC32();
    crc.update(("memsidecar migrations " + name).getBytes(StandardCharsets.UTF_8));
    return crc.getValue();
  }
}
