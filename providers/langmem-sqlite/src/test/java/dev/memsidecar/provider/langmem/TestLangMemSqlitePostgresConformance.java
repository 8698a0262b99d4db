package dev.memsidecar.provider.langmem;

import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.conformance.MemoryStoreConformance;
import dev.memsidecar.jdbc.postgresql.PostgresCluster;
import java.nio.file.Path;
import java.util.Map;

/**
 * The provider conformance kit against {@code langmem-sqlite} on a real PostgreSQL 15 ({@link
 * PostgresCluster}, one server for the run), each test on a database of its own, with the password
 * given apart from the URL as a deployment gives it. Every test of the kit runs as it does on H2
 * ({@link TestLangMemSqliteConformance}), the crash test included (its child process writes to the
 * same database); only the lock on the data directory is H2's alone. What is specific to PostgreSQL
 * is in {@link TestLangMemSqliteOnPostgres}.
 */
class TestLangMemSqlitePostgresConformance extends MemoryStoreConformance {
  private String database;

  @Override
  protected MemoryProvider provider() {
    return new LangMemSqliteProvider();
  }

  /** The same database for every store of one test (reopen, the crash child). */
  @Override
  protected Map<String, String> settings(Path dataDirectory) {
    PostgresCluster cluster = PostgresCluster.shared();
    if (database == null) {
      database = cluster.createDatabase();
    }
    return Map.of(
        LangMemSqliteProvider.URL,
        cluster.url(database),
        LangMemSqliteProvider.USER,
        PostgresCluster.USER,
        LangMemSqliteProvider.PASSWORD,
        PostgresCluster.PASSWORD);
  }
}
