package dev.memsidecar.jdbc;

import dev.memsidecar.jdbc.h2.H2Dialect;
import dev.memsidecar.jdbc.postgresql.PostgresDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * What differs between the SQL databases the stores keep their tables in. Everything else they send
 * is plain JDBC and SQL that H2 2.x and PostgreSQL both accept ({@code BIGINT}, {@code LIMIT ?},
 * SQLSTATE {@code 23505} for a duplicate key), and identifiers are never quoted. Each dialect keeps
 * its own migration scripts ({@link VersionedSchema#location}), so a schema's DDL is written once
 * per database in that database's own SQL.
 *
 * <p>Two exist: {@link H2Dialect} and {@link PostgresDialect}. Another database adds a class, an
 * entry in {@link #KNOWN} and a folder of scripts beside each store's {@code h2} one.
 * Implementations are stateless and thread-safe.
 */
public interface Dialect {

  /** Every dialect, in the order {@link #forUrl} tries them. */
  List<Dialect> KNOWN = List.of(new H2Dialect(), new PostgresDialect());

  /**
   * The dialect of a JDBC URL.
   *
   * @throws IllegalArgumentException when no dialect takes it; the message names the URL's database
   *     and the URL prefixes that are supported
   */
  static Dialect forUrl(String url) {
    for (Dialect d : KNOWN) {
      if (url.regionMatches(true, 0, d.urlPrefix(), 0, d.urlPrefix().length())) {
        return d;
      }
    }
    int colon = url.indexOf(':', "jdbc:".length());
    String shown = colon < 0 ? url : url.substring(0, colon + 1);
    throw new IllegalArgumentException(
        "no SQL dialect for "
            + shown.toLowerCase(Locale.ROOT)
            + " URLs; supported: "
            + KNOWN.stream().map(Dialect::urlPrefix).collect(Collectors.joining(", ")));
  }

  /**
   * {@code url} with the value of every {@code password} parameter ({@code ?password=}, {@code
   * &password=}, H2's {@code ;PASSWORD=}) replaced by {@code ***}, for a message about a URL that
   * was refused before it could be checked for one.
   */
  static String withoutPasswords(String url) {
    return url.replaceAll("(?i)([?&;]\\s*password\\s*=)[^&;]*", "$1***");
  }

  /** A short name for messages and logs, and the folder of this dialect's migration scripts. */
  String name();

  /** The start of the JDBC URLs this dialect takes, lower case ({@code jdbc:h2:}). */
  String urlPrefix();

  /**
   * The URL to connect with: {@code url} plus whatever options this dialect needs for the stores'
   * guarantees (durable commits, one process per file).
   *
   * @param lockTimeout how long a writer waits for a row another transaction holds, unless the URL
   *     says; null for the database's own default
   * @throws IllegalArgumentException when {@code url} asks for an option that would break them; the
   *     message says which and why
   */
  String connectionUrl(String url, Duration lockTimeout);

  /**
   * A data source that opens a new connection on each call, to the {@link #connectionUrl} {@code
   * url} with the given credentials (either may be null). The pool ({@link Database}) keeps its
   * connections from it; schema migrations use it for theirs.
   */
  DataSource dataSource(String url, String user, String password);

  /**
   * Whether {@link Database} must hold one connection open from open to close, outside its pool: a
   * database that closes with its last connection (embedded H2), and whose {@link
   * #startHousekeeping housekeeping} runs on that connection. False by default: a server database
   * (PostgreSQL) stays up by itself, and a connection held apart would only break when the server
   * restarts.
   */
  default boolean needsHeldConnection() {
    return false;
  }

  /**
   * Starts what keeps the database behind {@code connection} in shape while it is written (the
   * {@link dev.memsidecar.jdbc.h2.H2Housekeeping} of an embedded H2 file); {@link
   * Housekeeping#NONE} where the database needs none. Called only when {@link
   * #needsHeldConnection}, with the connection held.
   *
   * @param name what log lines call the database
   */
  Housekeeping startHousekeeping(Connection connection, String name) throws SQLException;

  /** The column type for a byte string of any length this database allows in one row. */
  String binaryType();

  /**
   * A statement that inserts one row of {@code table}, or replaces the row with the same {@code
   * keyColumns}; its parameters are {@code columns} in order.
   */
  String upsert(String table, List<String> columns, List<String> keyColumns);

  /**
   * Why this database cannot store {@code text} in a text column as it is, naming the character and
   * its index, or null when it can. A store checks what it writes with it, so the caller hears
   * which field is at fault instead of a data exception or, worse, a silently changed value. Every
   * text by default (H2 keeps a Java string as it is).
   */
  default String unstorableText(String text) {
    return null;
  }

  /**
   * Takes the lock under which the schema {@code name} (its history table's name) is migrated,
   * waiting for another process that holds it ({@link SchemaMigrator}); {@link MigrationLock#NONE}
   * where only one process can open the database.
   *
   * @param source opens the lock's own connection
   * @param database what log lines call the database
   */
  default MigrationLock lockMigrations(DataSource source, String name, String database)
      throws SQLException {
    return MigrationLock.NONE;
  }

  /**
   * Makes the rest of {@code c}'s transaction wait for, then exclude, every other transaction that
   * called this with the same {@code name}, in any process, until it commits or rolls back: so rows
   * numbered on insert (an identity column) are committed in the order of their numbers, and a
   * reader that pages by number never skips one committed late. {@code c} must be in a transaction.
   * Nothing by default: where only one process can open the database, the caller's own lock does.
   */
  default void lockUntilCommit(Connection c, String name) throws SQLException {}

  /** Whether {@code e} says an insert met an existing primary or unique key. */
  default boolean isDuplicateKey(SQLException e) {
    return "23505".equals(e.getSQLState());
  }

  /**
   * Whether {@code e} says a value does not fit its column (SQL class 22, data exception: too long
   * for its limit, a NUL character in PostgreSQL text, ...): the input is at fault, not the store.
   */
  default boolean isDataException(SQLException e) {
    return e.getSQLState() != null && e.getSQLState().startsWith("22");
  }
}
