package dev.memsidecar.core.control;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryException;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A fixed number of JDBC connections to the control database, each used by one caller at a time.
 * They open eagerly, so a database that cannot be opened fails at start-up; a connection that fails
 * and no longer validates is reopened on its next use. A caller waits at most {@value
 * #BORROW_TIMEOUT_MILLIS} ms for a free one, then fails with UNAVAILABLE; after {@link #close()}
 * borrowing fails with FAILED_PRECONDITION, and a connection in use is closed when it comes back.
 * Thread-safe.
 */
final class ControlConnections implements AutoCloseable {
  static final long BORROW_TIMEOUT_MILLIS = 30_000;
  private static final System.Logger LOG = System.getLogger(ControlConnections.class.getName());

  /** Opens one connection. */
  @FunctionalInterface
  interface Opener {
    Connection open() throws SQLException;
  }

  /** Work done with one borrowed connection. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection connection) throws SQLException;
  }

  /** One place in the pool; its connection is null until (re)opened. */
  private static final class Slot {
    Connection connection;
  }

  private final Opener opener;
  private final ArrayBlockingQueue<Slot> idle;
  private volatile boolean closed;

  /** Opens {@code size} connections; if one fails, closes those already open and throws. */
  ControlConnections(Opener opener, int size) throws SQLException {
    this.opener = requireNonNull(opener, "opener is null");
    if (size < 1) {
      throw new IllegalArgumentException("size must be at least 1: " + size);
    }
    idle = new ArrayBlockingQueue<>(size);
    try {
      for (int i = 0; i < size; i++) {
        Slot slot = new Slot();
        slot.connection = opener.open();
        idle.add(slot);
      }
    } catch (SQLException | RuntimeException e) {
      closeIdle();
      throw e;
    }
  }

  /**
   * Runs {@code work} with a connection of its own (in auto-commit mode) and returns its result.
   */
  <T> T call(Work<T> work) throws SQLException {
    Slot slot = borrow();
    boolean healthy = true;
    try {
      if (slot.connection == null) {
        slot.connection = opener.open();
      }
      return work.run(slot.connection);
    } catch (SQLException | RuntimeException e) {
      healthy = isUsable(slot.connection);
      throw e;
    } finally {
      release(slot, healthy);
    }
  }

  boolean isClosed() {
    return closed;
  }

  /** Closes idle connections now and busy ones when they come back. Idempotent. */
  @Override
  public void close() {
    closed = true;
    closeIdle();
  }

  private Slot borrow() {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BORROW_TIMEOUT_MILLIS);
    while (true) {
      if (closed) {
        throw MemoryException.failedPrecondition("the control store is closed");
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw MemoryException.unavailable(
            "no free connection to the control store after " + BORROW_TIMEOUT_MILLIS + " ms", null);
      }
      try {
        // Short steps, so a waiter notices close() promptly.
        Slot slot =
            idle.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)), TimeUnit.NANOSECONDS);
        if (slot != null) {
          if (closed) {
            release(slot, true);
            continue;
          }
          return slot;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw MemoryException.unavailable("interrupted waiting for the control store", e);
      }
    }
  }

  private void release(Slot slot, boolean healthy) {
    if (!healthy && slot.connection != null) {
      closeQuietly(slot.connection);
      slot.connection = null;
    }
    idle.add(slot);
    if (closed) {
      closeIdle();
    }
  }

  private void closeIdle() {
    Slot slot;
    while ((slot = idle.poll()) != null) {
      if (slot.connection != null) {
        closeQuietly(slot.connection);
        slot.connection = null;
      }
    }
  }

  private static boolean isUsable(Connection c) {
    try {
      return c != null && c.isValid(2);
    } catch (SQLException e) {
      return false;
    }
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException e) {
      LOG.log(Level.DEBUG, "closing a control store connection failed", e);
    }
  }
}
