package dev.memsidecar.jdbc.h2;

import dev.memsidecar.jdbc.Dialect;
import dev.memsidecar.jdbc.Housekeeping;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/**
 * H2 2.x. {@link #connectionUrl} adds the options the stores depend on unless the URL sets them,
 * and rejects a URL that would lose acknowledged writes or let two processes share the file ({@link
 * H2Options} lists them and says why), plus {@code LOCK_TIMEOUT} when the store asks for one (the
 * control store: a writer waits up to 10 s, not H2's 1 s, for a row another transaction holds, such
 * as the key of a run two retries insert at once).
 *
 * <p>An unnamed in-memory database ({@code jdbc:h2:mem:}) is rejected: each connection of the pool
 * would get a database of its own. Every embedded file database gets {@link H2Housekeeping} (an
 * fsync and a bounded compaction four times a second while it is written), which keeps it near the
 * size of its data. Text columns are {@code CHARACTER VARYING} and byte columns {@code BINARY
 * VARYING} without a length: up to 1,000,000,000 characters or bytes, read as a plain String or
 * byte[] (a CLOB or BLOB would be streamed and slower to read back).
 */
public record H2Dialect() implements Dialect {
  static final String PREFIX = "jdbc:h2:";

  @Override
  public String name() {
    return "h2";
  }

  @Override
  public String urlPrefix() {
    return PREFIX;
  }

  @Override
  public String connectionUrl(String url, Duration lockTimeout) {
    String database = url.substring(PREFIX.length()).split(";", 2)[0];
    if (database.equalsIgnoreCase("mem:")) {
      throw new IllegalArgumentException(
          "an unnamed H2 in-memory database is private to one connection; name it"
              + " (jdbc:h2:mem:name)");
    }
    String out = H2Options.withStoreDefaults(url);
    if (lockTimeout != null && H2Options.option(url, "LOCK_TIMEOUT") == null) {
      out += ";LOCK_TIMEOUT=" + lockTimeout.toMillis();
    }
    return out;
  }

  @Override
  public DataSource dataSource(String url, String user, String password) {
    JdbcDataSource source = new JdbcDataSource();
    source.setURL(url);
    if (user != null) {
      source.setUser(user);
    }
    if (password != null) {
      source.setPassword(password);
    }
    return source;
  }

  /** An embedded H2 database closes with its last connection, and its housekeeping runs on one. */
  @Override
  public boolean needsHeldConnection() {
    return true;
  }

  @Override
  public Housekeeping startHousekeeping(Connection connection, String name) throws SQLException {
    return H2Housekeeping.start(connection, name);
  }

  @Override
  public String binaryType() {
    return "BINARY VARYING";
  }

  @Override
  public String upsert(String table, List<String> columns, List<String> keyColumns) {
    return "MERGE INTO "
        + table
        + " ("
        + String.join(", ", columns)
        + ") KEY ("
        + String.join(", ", keyColumns)
        + ") VALUES ("
        + String.join(", ", Collections.nCopies(columns.size(), "?"))
        + ")";
  }
}
