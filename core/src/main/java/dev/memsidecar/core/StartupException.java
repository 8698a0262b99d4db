package dev.memsidecar.core;

/**
 * The sidecar cannot start as configured: a provider or embedder that does not exist, two that
 * claim one name, a provider that cannot open its store, an unreadable plugins folder, a bad
 * configuration. Every start-up failure is one of these, and its message alone says what to fix (it
 * names the profile, setting, file or name at fault and what exists instead); the process prints it
 * and exits.
 */
public class StartupException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public StartupException(String message) {
    super(message);
  }

  public StartupException(String message, Throwable cause) {
    super(message, cause);
  }
}
