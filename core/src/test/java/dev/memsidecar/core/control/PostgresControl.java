package dev.memsidecar.core.control;

import dev.memsidecar.jdbc.postgresql.PostgresCluster;
import java.util.Properties;

/**
 * A new, empty database on the tests' PostgreSQL 15 server ({@link PostgresCluster#shared()}) for
 * control stores to open: one per test, several stores per database for the tests of sidecars
 * sharing one.
 */
final class PostgresControl {
  private final PostgresCluster cluster = PostgresCluster.shared();
  private final String database = cluster.createDatabase();

  /** The database's JDBC URL (no credentials). */
  String url() {
    return cluster.url(database);
  }

  /** The test server's user and password. */
  static Properties credentials() {
    Properties p = new Properties();
    p.setProperty("user", PostgresCluster.USER);
    p.setProperty("password", PostgresCluster.PASSWORD);
    return p;
  }

  /** A new control store on the database, as another sidecar would open it. */
  SqlControlStore open() {
    return SqlControlStore.open(url(), credentials());
  }

  /** A superuser connection to the database, for looking at its tables. */
  java.sql.Connection connect() throws java.sql.SQLException {
    return cluster.connect(database);
  }
}
