package dev.memsidecar.provider.langmem;

import dev.memsidecar.api.MemoryException;
import java.util.List;
import java.util.Locale;

/**
 * H2 2.x. Its URLs carry the database options this store depends on, which {@link #connectionUrl}
 * adds unless the URL sets them already:
 *
 * <ul>
 *   <li>{@code WRITE_DELAY=0}: H2's default (500 ms) commits a transaction in memory and writes it
 *       to the file later from a background thread, so a {@code kill -9} loses the last half second
 *       of acknowledged writes. With 0, H2 2.3's {@code TransactionStore.endTransaction} calls
 *       {@code MVStore.commit()} on the committing thread, and with no background writer the chunk
 *       is written to the file (the OS page cache) before {@code Connection.commit()} returns. That
 *       survives the death of the process; it is not an fsync, so it does not promise survival of a
 *       power cut. A URL with any other {@code WRITE_DELAY} is rejected.
 *   <li>{@code FILE_LOCK=FILE}: H2's default, stated so it stays: a second process opening the same
 *       file fails instead of corrupting it. {@code FILE_LOCK=NO} is rejected.
 *   <li>{@code DB_CLOSE_ON_EXIT=FALSE}: the engine closes the store itself after draining requests;
 *       H2's own shutdown hook would close the database under requests still in flight. Every write
 *       is already on file when it returns, so nothing depends on a clean close.
 * </ul>
 *
 * <p>The price of {@code WRITE_DELAY=0} is one MVStore chunk per commit (about 30 KB measured for a
 * commit of one record, block aligned) instead of one per half second, and no background
 * compaction. {@link LangMemSqliteStore} commits the writes that arrive together in one transaction
 * ({@link GroupCommitter}), which cuts both the chunks and the CPU time per write under concurrent
 * load (4 writer threads, in process: ~3.8 writes per commit, ~10 KB of file per write instead of
 * ~35 KB). H2 reuses the space of chunks dead for longer than its {@code RETENTION_TIME} (45 s), so
 * under a burst the file grows to about 45 s worth of commits and then barely grows; it does not
 * shrink by itself. Lowering {@code RETENTION_TIME} would bound it tighter but weakens H2's crash
 * recovery, so it is left at H2's default.
 */
record H2Dialect() implements SqlDialect {
  static final String PREFIX = "jdbc:h2:";

  @Override
  public String name() {
    return "h2";
  }

  @Override
  public String connectionUrl(String url, String field) {
    StringBuilder out = new StringBuilder(url);
    String writeDelay = option(url, "WRITE_DELAY");
    if (writeDelay == null) {
      out.append(";WRITE_DELAY=0");
    } else if (!writeDelay.trim().equals("0")) {
      throw MemoryException.invalidArgument(
          field,
          "H2 option WRITE_DELAY="
              + writeDelay
              + " would lose acknowledged writes on a crash; leave it out or set WRITE_DELAY=0");
    }
    String fileLock = option(url, "FILE_LOCK");
    if (fileLock == null) {
      out.append(";FILE_LOCK=FILE");
    } else if (fileLock.trim().equalsIgnoreCase("NO")) {
      throw MemoryException.invalidArgument(
          field, "H2 option FILE_LOCK=NO would let two processes corrupt one database file");
    }
    if (option(url, "DB_CLOSE_ON_EXIT") == null) {
      out.append(";DB_CLOSE_ON_EXIT=FALSE");
    }
    return out.toString();
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

  /** The value of {@code ;NAME=value} in an H2 URL (name case-insensitive), or null. */
  static String option(String url, String name) {
    String[] parts = url.split(";");
    for (int i = 1; i < parts.length; i++) {
      int eq = parts[i].indexOf('=');
      if (eq > 0 && parts[i].substring(0, eq).trim().toUpperCase(Locale.ROOT).equals(name)) {
        return parts[i].substring(eq + 1);
      }
    }
    return null;
  }
}
