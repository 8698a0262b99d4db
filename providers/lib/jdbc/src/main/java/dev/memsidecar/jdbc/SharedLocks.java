package dev.memsidecar.jdbc;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.function.Supplier;

/**
 * Locks by name that every process on one database respects, for work that must not interleave
 * across the sidecars sharing it (deciding whether a fact is new and writing it). On PostgreSQL, a
 * session-level advisory lock ({@code pg_advisory_lock} on a 64-bit key from the name's SHA-256)
 * taken on one of {@code stripes} connections of its own, opened when first needed, outside the
 * pool (a pooled connection could be needed by the work itself); each stripe's connection is used
 * by one thread at a time, so names that fall on one stripe wait for each other in this process. A
 * process that dies, or a connection that breaks, releases its locks in the server. The wait is
 * bounded by the URL's {@code lock_timeout}. On H2, whose file one process opens, there is no one
 * else to exclude: the work just runs (the caller keeps its own in-process lock).
 *
 * <p>Thread-safe; {@link #close} closes the connections.
 */
public final class SharedLocks implements AutoCloseable {
  private final Database db;
  private final boolean advisory;
  private final Connection[] connections;
  private final Object[] stripes;
  private volatile boolean closed;

  private SharedLocks(Database db, boolean advisory, int stripes) {
    this.db = db;
    this.advisory = advisory;
    this.connections = new Connection[stripes];
    this.stripes = new Object[stripes];
    for (int i = 0; i < stripes; i++) {
      this.stripes[i] = new Object();
    }
  }

  /** The locks of {@code db}, with at most {@code stripes} connections of their own. */
  public static SharedLocks of(Database db, int stripes) {
    requireNonNull(db, "db is null");
    if (stripes < 1) {
      throw new IllegalArgumentException("stripes must be at least 1: " + stripes);
    }
    return new SharedLocks(db, !db.dialect().needsHeldConnection(), stripes);
  }

  /** Whether the locks exclude other processes (PostgreSQL), or only run the work (H2). */
  public boolean excludesOtherProcesses() {
    return advisory;
  }

  /**
   * Runs {@code work} holding the lock named {@code name}; waits while another process (or thread
   * of this one) holds it.
   *
   * @throws SQLException if the lock cannot be taken (the database unreachable, {@code
   *     lock_timeout} passed); {@code work} has not run then
   */
  public <T> T run(String name, Supplier<T> work) throws SQLException {
    requireNonNull(name, "name is null");
    requireNonNull(work, "work is null");
    if (!advisory) {
      return work.get();
    }
    long key = key(name);
    int stripe = (int) Math.floorMod(key, (long) stripes.length);
    synchronized (stripes[stripe]) {
      Connection c = connection(stripe);
      try {
        call(c, "SELECT pg_advisory_lock(?)", key);
      } catch (SQLException e) {
        drop(stripe);
        throw e;
      }
      try {
        return work.get();
      } finally {
        try {
          call(c, "SELECT pg_advisory_unlock(?)", key);
        } catch (SQLException e) {
          // The session ends with the connection, and its locks with it.
          drop(stripe);
        }
      }
    }
  }

  private Connection connection(int stripe) throws SQLException {
    if (closed) {
      throw new SQLException(db.url() + ": the locks are closed", "08003");
    }
    Connection c = connections[stripe];
    if (c == null || c.isClosed()) {
      Database.Settings s = db.settings();
      c = s.dialect().dataSource(s.url(), s.user(), s.password()).getConnection();
      connections[stripe] = c;
    }
    return c;
  }

  private void drop(int stripe) {
    Connection c = connections[stripe];
    connections[stripe] = null;
    if (c != null) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // Broken already.
      }
    }
  }

  private static void call(Connection c, String sql, long key) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql)) {
      st.setLong(1, key);
      st.executeQuery().close();
    }
  }

  /** The advisory lock key of {@code name}: the first 8 bytes of its SHA-256. */
  static long key(String name) {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256")
              .digest(("memsidecar lock " + name).getBytes(StandardCharsets.UTF_8));
      return ByteBuffer.wrap(hash).getLong();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from the JDK", e);
    }
  }

  @Override
  public void close() {
    closed = true;
    for (int i = 0; i < stripes.length; i++) {
      synchronized (stripes[i]) {
        drop(i);
      }
    }
  }
}
