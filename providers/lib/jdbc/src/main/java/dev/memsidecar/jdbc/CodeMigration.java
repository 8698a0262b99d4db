package dev.memsidecar.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A schema migration written in Java rather than SQL: one that converts rows (such as vectors from
 * JSON text to bytes), which SQL scripts cannot do. It runs in the order of its {@link #version}
 * among the scripts of its {@link VersionedSchema}.
 *
 * <p>Like every migration of the stores it must be idempotent and resumable: H2 commits each DDL
 * statement on its own, so a crash can stop it between any two statements, and the next open runs
 * it again from the start. It should therefore look at what the tables hold (is there such a
 * column, are there rows still to convert) rather than assume where it stands, and convert in
 * batches of one transaction each ({@link Database#inTransaction}).
 */
public interface CodeMigration {

  /** Its version in the schema's sequence (the scripts' {@code V<version>__} numbers). */
  int version();

  /** What it does, for the history table and logs. */
  String description();

  /**
   * Runs the migration on {@code connection} (in auto-commit mode before and after).
   *
   * @param dialect the database's dialect, for the types its DDL needs
   */
  void migrate(Connection connection, Dialect dialect) throws SQLException;
}
