package dev.memsidecar.core.control;

import java.sql.SQLException;
import java.util.Locale;

/**
 * What differs between the SQL databases the control store can keep its tables in. Everything else
 * it sends is plain JDBC and SQL that H2 2.x and PostgreSQL both accept ({@code CREATE TABLE/INDEX
 * IF NOT EXISTS}, {@code BIGINT}, {@code LIMIT ?}, SQLSTATE {@code 23505} for a duplicate key), and
 * identifiers are never quoted. Only H2 exists today; a PostgreSQL dialect adds a class here and a
 * case in {@link #forUrl}. Implementations are stateless and thread-safe.
 */
sealed interface ControlDialect permits H2ControlDialect {

  /** The dialect of a JDBC URL; fails with IllegalArgumentException naming the supported ones. */
  static ControlDialect forUrl(String url) {
    if (url.regionMatches(true, 0, H2ControlDialect.PREFIX, 0, H2ControlDialect.PREFIX.length())) {
      return new H2ControlDialect();
    }
    int colon = url.indexOf(':', "jdbc:".length());
    String shown = colon < 0 ? url : url.substring(0, colon + 1);
    throw new IllegalArgumentException(
        "the control store has no SQL dialect for "
            + shown.toLowerCase(Locale.ROOT)
            + " URLs; supported: "
            + H2ControlDialect.PREFIX);
  }

  /** A short name for messages and logs. */
  String name();

  /**
   * The URL to connect with: {@code url} plus whatever options this dialect needs for the store's
   * guarantees (durable commits, one process per file). Fails with IllegalArgumentException when
   * {@code url} asks for an option that would break them.
   */
  String connectionUrl(String url);

  /** The column type for text of any length this database allows in one row. */
  String textType();

  /** The column definition of an increasing 64-bit key the database assigns on insert. */
  String sequenceColumn(String name);

  /** Whether {@code e} says an insert met an existing primary key. */
  default boolean isDuplicateKey(SQLException e) {
    return "23505".equals(e.getSQLState());
  }
}
