package dev.memsidecar.core.config;

/**
 * How sessions are kept ({@code memory.sessions}).
 *
 * @param retentionDays messages whose time is older than this many days are never returned and are
 *     deleted within the hour; 0 keeps them for ever (the default)
 */
public record SessionConfig(int retentionDays) {
  /** The longest retention: about a hundred years. */
  public static final int MAX_RETENTION_DAYS = 36_500;

  public static final SessionConfig DEFAULT = new SessionConfig(0);

  public SessionConfig {
    if (retentionDays < 0 || retentionDays > MAX_RETENTION_DAYS) {
      throw new IllegalArgumentException(
          "retentionDays must be 0.." + MAX_RETENTION_DAYS + ": " + retentionDays);
    }
  }
}
