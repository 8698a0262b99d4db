package dev.memsidecar.core;

/**
 * A {@link StartupException} caused by the configuration itself (a key with a value that cannot be
 * used); the process exits 2 for these, 1 for other start-up failures. The message names the file
 * and key.
 */
public class ConfigurationException extends StartupException {
  private static final long serialVersionUID = 1L;

  public ConfigurationException(String message) {
    super(message);
  }

  public ConfigurationException(String message, Throwable cause) {
    super(message, cause);
  }
}
