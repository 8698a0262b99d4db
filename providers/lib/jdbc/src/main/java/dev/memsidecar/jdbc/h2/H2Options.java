package dev.memsidecar.jdbc.h2;

import java.util.Locale;

/**
 * The options the sidecar's H2 stores (the control store in core, langmem-sqlite) open their
 * databases with ({@link H2Dialect#connectionUrl}). {@link #withStoreDefaults} adds each unless the
 * URL sets it:
 *
 * <ul>
 *   <li>{@code WRITE_DELAY=0}: H2's default (500 ms) commits a transaction in memory and writes it
 *       to the file later from a background thread, so a {@code kill -9} would lose the last half
 *       second of acknowledged writes. With 0, H2 2.3's {@code TransactionStore.endTransaction}
 *       calls {@code MVStore.commit()} on the committing thread, and with no background writer the
 *       chunk is written to the file (the OS page cache) before {@code Connection.commit()}
 *       returns. That survives the death of the process; it is not an fsync ({@link H2Housekeeping}
 *       forces the file to disk about four times a second). Any other {@code WRITE_DELAY} is
 *       rejected.
 *   <li>{@code FILE_LOCK=FS}: H2 2.x's default, stated so it stays: the database file is locked by
 *       the operating system, so a second process opening it fails instead of corrupting it, and
 *       the lock goes with the process that held it. ({@code FILE_LOCK=FILE}, a lock file with a
 *       watchdog thread, makes the next open after a {@code kill -9} wait about 4 s to be sure the
 *       lock file is stale.) {@code FILE_LOCK=NO} is rejected.
 *   <li>{@code DB_CLOSE_ON_EXIT=FALSE}: the store closes the database itself after draining
 *       requests; H2's own shutdown hook would close it under requests still in flight. Every write
 *       is already on file when it returns, so nothing depends on a clean close.
 *   <li>{@code MAX_COMPACT_TIME=0}: no compaction when the database closes. H2's (200 ms by
 *       default) is cut off by its time limit and can leave the file larger than before; {@link
 *       H2Housekeeping} compacts while the store is open.
 *   <li>{@code CACHE_SIZE=4096}: a page cache of 4 MiB ({@link #CACHE_SIZE_KB}), not H2's 16 MiB.
 * </ul>
 *
 * <p>The price of {@code WRITE_DELAY=0} is one MVStore chunk per commit and no background thread,
 * so H2 itself never compacts the file: each store runs {@link H2Housekeeping} on it.
 */
public final class H2Options {
  /**
   * The page cache, in KiB, of each database ({@code CACHE_SIZE}) unless its URL sets one: 4 MiB
   * instead of H2's 16 MiB. The stores answer searches from their own indexes, so the cache mostly
   * holds pages read once, and a sidecar has up to three such databases. (With the other trims of
   * the same release, the live heap after {@code bench footprint} went from ~110 MiB to ~72 MiB.)
   */
  public static final int CACHE_SIZE_KB = 4096;

  private H2Options() {}

  /**
   * {@code url} with the options of the class comment that it does not set appended, in that order.
   *
   * @throws IllegalArgumentException when the URL sets {@code WRITE_DELAY} other than 0 or {@code
   *     FILE_LOCK=NO}; the message says why
   */
  public static String withStoreDefaults(String url) {
    StringBuilder out = new StringBuilder(url);
    String writeDelay = option(url, "WRITE_DELAY");
    if (writeDelay == null) {
      out.append(";WRITE_DELAY=0");
    } else if (!writeDelay.trim().equals("0")) {
      throw new IllegalArgumentException(
          "H2 option WRITE_DELAY="
              + writeDelay
              + " would lose acknowledged writes on a crash; leave it out or set WRITE_DELAY=0");
    }
    String fileLock = option(url, "FILE_LOCK");
    if (fileLock == null) {
      out.append(";FILE_LOCK=FS");
    } else if (fileLock.trim().equalsIgnoreCase("NO")) {
      throw new IllegalArgumentException(
          "H2 option FILE_LOCK=NO would let two processes corrupt one database file");
    }
    if (option(url, "DB_CLOSE_ON_EXIT") == null) {
      out.append(";DB_CLOSE_ON_EXIT=FALSE");
    }
    if (option(url, "MAX_COMPACT_TIME") == null) {
      out.append(";MAX_COMPACT_TIME=0");
    }
    if (option(url, "CACHE_SIZE") == null) {
      out.append(";CACHE_SIZE=" + CACHE_SIZE_KB);
    }
    return out.toString();
  }

  /**
   * The value of {@code ;NAME=value} in an H2 URL ({@code name} upper case, matched ignoring case),
   * or null.
   */
  public static String option(String url, String name) {
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
