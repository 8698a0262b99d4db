package dev.memsidecar.jdbc;

import java.sql.SQLTransientConnectionException;

/**
 * Every connection of a {@link Database} stayed in use for {@link Database#BORROW_TIMEOUT_MILLIS}:
 * the database is overloaded or its pool too small. The message names the database and the wait.
 */
public final class NoFreeConnectionException extends SQLTransientConnectionException {
  private static final long serialVersionUID = 1L;

  NoFreeConnectionException(String database, long millis, Throwable cause) {
    super("no free connection to " + database + " after " + millis + " ms", cause);
  }
}
