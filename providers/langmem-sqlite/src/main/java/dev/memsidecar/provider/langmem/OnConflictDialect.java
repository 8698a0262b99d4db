package dev.memsidecar.provider.langmem;

import java.util.ArrayList;
import java.util.List;

/**
 * Databases with {@code INSERT ... ON CONFLICT (...) DO UPDATE}: PostgreSQL 9.5+ and SQLite 3.24+.
 * Durability is the server's own setting there (PostgreSQL's {@code synchronous_commit}, SQLite's
 * {@code synchronous}); their defaults make a committed transaction survive a crash of this
 * process. The JDBC driver must be on the provider's class path.
 */
record OnConflictDialect() implements SqlDialect {

  @Override
  public String name() {
    return "on-conflict";
  }

  @Override
  public String connectionUrl(String url, String field) {
    return url;
  }

  @Override
  public String textType() {
    return "TEXT";
  }

  @Override
  public String binaryType() {
    // PostgreSQL's bytea; SQLite takes any type name and keeps a blob as it is given.
    return "BYTEA";
  }

  @Override
  public String upsert(String table, List<String> columns, List<String> keyColumns) {
    List<String> updates = new ArrayList<>();
    for (String c : columns) {
      if (!keyColumns.contains(c)) {
        updates.add(c + " = EXCLUDED." + c);
      }
    }
    return "INSERT INTO "
        + table
        + " ("
        + String.join(", ", columns)
        + ") VALUES ("
        + SqlDialect.placeholders(columns.size())
        + ") ON CONFLICT ("
        + String.join(", ", keyColumns)
        + ") DO UPDATE SET "
        + String.join(", ", updates);
  }
}
