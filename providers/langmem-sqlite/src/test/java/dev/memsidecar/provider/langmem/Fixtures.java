package dev.memsidecar.provider.langmem;

import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.toolkit.HashEmbedder;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;

/** Shared helpers for this module's tests. */
final class Fixtures {
  static final Instant T0 = Instant.parse("2025-03-01T08:00:00.123456789Z");

  private Fixtures() {}

  static MemoryStore open(Path dir) {
    return open(dir, Map.of());
  }

  static MemoryStore open(Path dir, Map<String, String> settings) {
    return new LangMemSqliteProvider()
        .open(new ProviderContext("workspace", dir, settings, new HashEmbedder()));
  }

  /** A plain JDBC connection to the default database in {@code dir}, as the store opens it. */
  static Connection connect(Path dir) throws SQLException {
    return DriverManager.getConnection(
        new H2Dialect().connectionUrl(LangMemSqliteProvider.defaultUrl(dir), "url"));
  }

  /** An active semantic record created and updated at {@code time}. */
  static MemoryRecord record(Namespace ns, String id, String content, Instant time) {
    return MemoryRecord.builder()
        .namespace(ns)
        .id(id)
        .profile("workspace")
        .content(content)
        .times(time)
        .build();
  }

  static MemoryRecord record(Namespace ns, String id, String content) {
    return record(ns, id, content, T0);
  }
}
