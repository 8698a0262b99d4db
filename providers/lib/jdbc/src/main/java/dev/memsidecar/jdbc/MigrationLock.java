package dev.memsidecar.jdbc;

import java.sql.SQLException;

/**
 * A lock held while a schema is migrated ({@link Dialect#lockMigrations}), so that two processes
 * opening one database at once migrate it one after the other: the second finds the schema at its
 * version and does nothing. {@link #close} releases it.
 */
public interface MigrationLock extends AutoCloseable {

  /** No lock: the database cannot be opened by two processes at once (an embedded H2 file). */
  MigrationLock NONE = () -> {};

  /** Releases the lock. Idempotent. */
  @Override
  void close() throws SQLException;
}
