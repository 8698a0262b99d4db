package dev.memsidecar.jdbc;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * A store's tables and their numbered versions, migrated with Flyway when the store opens ({@link
 * Database#open}).
 *
 * <p>Version {@code n} is the script {@code V<n>__<description>.sql} under {@link #location} (per
 * dialect: {@code db/migration/<name>/<dialect>/}), or a {@link CodeMigration} of that version.
 * Flyway keeps what ran in {@code historyTable}. Scripts must be idempotent ({@code CREATE TABLE IF
 * NOT EXISTS}, {@code ADD COLUMN IF NOT EXISTS}, ...): H2 commits each DDL statement on its own, so
 * a crash can stop a script half way, and the next open runs it again from the start.
 *
 * <p>{@code legacyVersionTable} is the one-row version table ({@code id} 1, {@code version}) of the
 * releases before Flyway. A database that has it and no history is taken over at that version (a
 * Flyway baseline), then migrated. After every open it holds {@link #version} again, so a release
 * from before Flyway refuses a database that moved past it instead of misreading it.
 *
 * @param name the store's name: the folder of its scripts and what messages call it
 * @param version the latest version this code reads and writes; the highest script or code
 *     migration must have it
 * @param historyTable Flyway's schema history table
 * @param legacyVersionTable the version table of the releases before Flyway
 * @param codeMigrations the migrations written in Java, with their versions
 * @param loader the class loader that finds the scripts
 */
public record VersionedSchema(
    String name,
    int version,
    String historyTable,
    String legacyVersionTable,
    List<CodeMigration> codeMigrations,
    ClassLoader loader) {
  public VersionedSchema {
    requireNonNull(name, "name is null");
    requireNonNull(historyTable, "historyTable is null");
    requireNonNull(legacyVersionTable, "legacyVersionTable is null");
    requireNonNull(loader, "loader is null");
    codeMigrations = List.copyOf(codeMigrations);
    if (version < 1) {
      throw new IllegalArgumentException("version must be at least 1: " + version);
    }
  }

  /** Where the scripts of {@code dialect} are, a class path folder. */
  public String location(Dialect dialect) {
    return "db/migration/" + name + "/" + dialect.name();
  }
}
