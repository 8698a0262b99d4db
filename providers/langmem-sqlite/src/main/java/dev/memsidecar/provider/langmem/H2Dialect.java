package dev.memsidecar.provider.langmem;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.jdbc.h2.H2Options;
import java.util.List;

/**
 * H2 2.x. {@link #connectionUrl} adds the options this store depends on unless the URL sets them,
 * and rejects a URL that would lose acknowledged writes or let two processes share the file ({@link
 * H2Options} lists them and says why). {@link LangMemSqliteStore} commits the writes that arrive
 * together in one transaction ({@link GroupCommitter}), which cuts the MVStore chunks and the CPU
 * time per write under concurrent load, and runs {@link dev.memsidecar.jdbc.h2.H2Housekeeping} on
 * the file: an fsync and a bounded compaction four times a second while it is written, which keeps
 * it near the size of its data (measured with {@code bench crash}, see the README).
 */
record H2Dialect() implements SqlDialect {
  static final String PREFIX = "jdbc:h2:";

  @Override
  public String name() {
    return "h2";
  }

  @Override
  public String connectionUrl(String url, String field) {
    try {
      return H2Options.withStoreDefaults(url);
    } catch (IllegalArgumentException e) {
      throw MemoryException.invalidArgument(field, e.getMessage());
    }
  }

  @Override
  public String textType() {
    // Without a length H2 2.x allows up to 1,000,000,000 characters, read as a plain String
    // (a CLOB would be streamed and slower to read back).
    return "CHARACTER VARYING";
  }

  @Override
  public String binaryType() {
    // Like CHARACTER VARYING: without a length up to 1,000,000,000 bytes, read as a byte[].
    return "BINARY VARYING";
  }

  @Override
  public String upsert(String table, List<String> columns, List<String> keyColumns) {
    return "MERGE INTO "
        + table
        + " ("
        + String.join(", ", columns)
        + ") KEY ("
        + String.join(", ", keyColumns)
        + ") VALUES ("
        + SqlDialect.placeholders(columns.size())
        + ")";
  }
}
