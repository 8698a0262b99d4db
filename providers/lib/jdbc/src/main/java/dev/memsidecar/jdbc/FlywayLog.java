package dev.memsidecar.jdbc;

import java.lang.System.Logger.Level;
import org.flywaydb.core.api.logging.Log;
import org.flywaydb.core.api.logging.LogCreator;

/**
 * Flyway's log lines, to {@link System.Logger} like the rest of the sidecar's: its routine INFO
 * lines (its edition, the database, "up to date", each script applied) and notices at DEBUG,
 * warnings and errors as they are. {@link SchemaMigrator} logs at INFO what a migration changed.
 * Flyway instantiates this class by name ({@code loggers}); thread-safe.
 */
public final class FlywayLog implements LogCreator {

  /** For Flyway, which instantiates it by name. */
  public FlywayLog() {}

  @Override
  public Log createLogger(Class<?> type) {
    System.Logger logger = System.getLogger(type.getName());
    return new Log() {
      @Override
      public boolean isDebugEnabled() {
        return logger.isLoggable(Level.TRACE);
      }

      @Override
      public void debug(String message) {
        logger.log(Level.TRACE, message);
      }

      @Override
      public void info(String message) {
        logger.log(Level.DEBUG, message);
      }

      @Override
      public void warn(String message) {
        logger.log(Level.WARNING, message);
      }

      @Override
      public void error(String message) {
        logger.log(Level.ERROR, message);
      }

      @Override
      public void error(String message, Exception e) {
        logger.log(Level.ERROR, message, e);
      }

      @Override
      public void notice(String message) {
        logger.log(Level.DEBUG, message);
      }
    };
  }
}
