package dev.memsidecar.provider.langmem;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.provider.h2.H2Housekeeping;
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
 *       survives the death of the process; it is not an fsync (the housekeeping below forces the
 *       file to disk about four times a second). A URL with any other {@code WRITE_DELAY} is
 *       rejected.
 *   <li>{@code FILE_LOCK=FS}: H2 2.x's default, stated so it stays: the database file is locked by
 *       the operating system, so a second process opening it fails instead of corrupting it, and
 *       the lock goes with the process that held it. ({@code FILE_LOCK=FILE}, a lock file with a
 *       watchdog thread, makes the next open after a {@code kill -9} wait about 4 s to be sure the
 *       lock file is stale.) {@code FILE_LOCK=NO} is rejected.
 *   <li>{@code DB_CLOSE_ON_EXIT=FALSE}: the engine closes the store itself after draining requests;
 *       H2's own shutdown hook would close the database under requests still in flight. Every write
 *       is already on file when it returns, so nothing depends on a clean close.
 *   <li>{@code MAX_COMPACT_TIME=0}: no compaction when the database closes. H2's (200 ms by
 *       default) is cut off by its time limit and can leave the file larger than before; {@link
 *       dev.memsidecar.provider.h2.H2Housekeeping} compacts while the store is open.
 *   <li>{@code CACHE_SIZE=4096}: a page cache of 4 MiB ({@link H2Housekeeping#CACHE_SIZE_KB}), not
 *       H2's 16 MiB. Searches run on the in-memory index; the cache serves reads by id and pages of
 *       listings, read from the listing index in order.
 * </ul>
 *
 * <p>The price of {@code WRITE_DELAY=0} is one MVStore chunk per commit (about 20-30 KB for a
 * commit of one record) and no background thread, so H2 itself never compacts the file. {@link
 * LangMemSqliteStore} commits the writes that arrive together in one transaction ({@link
 * GroupCommitter}), which cuts the chunks and the CPU time per write under concurrent load, and
 * runs {@link dev.memsidecar.provider.h2.H2Housekeeping} on the file: an fsync and a bounded
 * compaction four times a second while it is written, which keeps it near the size of its data
 * (measured with {@code bench crash}, see the README).
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
      out.append(";FILE_LOCK=FS");
    } else if (fileLock.trim().equalsIgnoreCase("NO")) {
      throw MemoryException.invalidArgument(
          field, "H2 option FILE_LOCK=NO would let two processes corrupt one database file");
    }
    if (option(url, "DB_CLOSE_ON_EXIT") == null) {
      out.append(";DB_CLOSE_ON_EXIT=FALSE");
    }
    if (option(url, "MAX_COMPACT_TIME") == null) {
      out.append(";MAX_COMPACT_TIME=0");
    }
    if (option(url, "CACHE_SIZE") == null) {
      out.append(";CACHE_SIZE=" + H2Housekeeping.CACHE_SIZE_KB);
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
