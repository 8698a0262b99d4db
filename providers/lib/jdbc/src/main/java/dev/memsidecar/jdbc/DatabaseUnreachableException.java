package dev.memsidecar.jdbc;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

/**
 * A {@link Database} cannot be reached: no connection could be opened to it (the server is down,
 * restarting, or refuses the login), or the connection a call was using was lost (the server ended
 * the session, the socket broke). Its SQLSTATE is the driver's ({@code 08xxx}, {@code 57P01} admin
 * shutdown, {@code 57P03} cannot connect now, ...), and its message names the database's URL and
 * quotes the first line of the driver's error; never a password. Transient: the same call may work
 * once the server is back, which the pool notices by itself.
 *
 * <p>When a connection was lost during a call, what that call wrote may or may not have been
 * committed: it is reported as failed either way ({@link #outcomeUnknown}).
 */
public final class DatabaseUnreachableException extends SQLTransientConnectionException {
  private static final long serialVersionUID = 1L;

  private final boolean outcomeUnknown;

  private DatabaseUnreachableException(
      String message, String sqlState, boolean outcomeUnknown, Throwable cause) {
    super(message, sqlState, cause);
    this.outcomeUnknown = outcomeUnknown;
  }

  /** No connection could be opened to {@code url} ({@code cause} is the last attempt's error). */
  static DatabaseUnreachableException cannotConnect(String name, String url, SQLException cause) {
    return new DatabaseUnreachableException(
        name + ": the database at " + url + " is unreachable: " + describe(cause),
        cause.getSQLState(),
        false,
        cause);
  }

  /** The connection to {@code url} broke during a call ({@code cause}). */
  static DatabaseUnreachableException lost(
      String name, String url, boolean duringCommit, SQLException cause) {
    return new DatabaseUnreachableException(
        name
            + ": lost the connection to the database at "
            + url
            + (duringCommit
                ? " during a commit, so whether the transaction was committed is unknown: "
                : ": ")
            + describe(cause),
        cause.getSQLState(),
        duringCommit,
        cause);
  }

  /**
   * Whether the connection was lost while a transaction was being committed: the server may have
   * committed it or not. The caller must not take it as done, nor as undone.
   */
  public boolean outcomeUnknown() {
    return outcomeUnknown;
  }

  /**
   * The driver's first line, what lies under it when the driver only says that something failed
   * ({@code The connection attempt failed.} over {@code java.io.EOFException}), and the SQLSTATE.
   */
  private static String describe(SQLException e) {
    StringBuilder out = new StringBuilder(SchemaMigrator.firstLine(e.getMessage()));
    Throwable cause = e.getCause();
    if (cause != null && !(cause instanceof SQLException)) {
      out.append(" (").append(cause.getClass().getName());
      if (cause.getMessage() != null) {
        out.append(": ").append(SchemaMigrator.firstLine(cause.getMessage()));
      }
      out.append(')');
    }
    return out.append(" (SQLSTATE ").append(e.getSQLState()).append(')').toString();
  }
}
