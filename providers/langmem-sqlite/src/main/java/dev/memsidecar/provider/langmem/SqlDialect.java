package dev.memsidecar.provider.langmem;

import java.util.Collections;
import java.util.List;

/**
 * What differs between the SQL databases this provider can keep its tables in. Everything else the
 * store sends is plain JDBC and SQL that H2, PostgreSQL and SQLite all accept ({@code CREATE
 * TABLE/INDEX IF NOT EXISTS}, {@code BIGINT}, {@code REAL}, {@code LIMIT ?}, and for {@link Schema}
 * migrations {@code ALTER TABLE ... ADD/DROP COLUMN}, SQLite 3.35+), and identifiers are never
 * quoted so each database folds their case its own way. Implementations are stateless and
 * thread-safe.
 */
sealed interface SqlDialect permits H2Dialect, OnConflictDialect {

  /** H2 for {@code jdbc:h2:} URLs; {@link OnConflictDialect} (PostgreSQL, SQLite) otherwise. */
  static SqlDialect forUrl(String url) {
    return url.regionMatches(true, 0, H2Dialect.PREFIX, 0, H2Dialect.PREFIX.length())
        ? new H2Dialect()
        : new OnConflictDialect();
  }

  /** A short name for messages and logs. */
  String name();

  /**
   * The URL to connect with: {@code url} plus whatever options this dialect needs for the store's
   * guarantees (durable commits, one process per file). Fails with INVALID_ARGUMENT naming {@code
   * field} when {@code url} asks for an option that would break them.
   */
  String connectionUrl(String url, String field);

  /** The column type for text of any length this database allows in one row. */
  String textType();

  /**
   * The column type for a byte string of any length this database allows in one row (an embedding:
   * {@link VectorBytes}), read and written with {@code getBytes}/{@code setBytes}.
   */
  String binaryType();

  /**
   * A statement that inserts one row of {@code table}, or replaces the row with the same {@code
   * keyColumns}; its parameters are {@code columns} in order.
   */
  String upsert(String table, List<String> columns, List<String> keyColumns);

  /** {@code ?, ?, ?} for {@code n} parameters. */
  static String placeholders(int n) {
    return String.join(", ", Collections.nCopies(n, "?"));
  }
}
