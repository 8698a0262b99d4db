package dev.memsidecar.sidecar.config;

import dev.memsidecar.core.ConfigurationException;

/**
 * The configuration cannot be used; start-up stops (the process exits 2, where other start-up
 * failures exit 1). The message names where the problem is (a file relative to the workspace,
 * "environment" or "command line"), the dotted key path and the bad value, e.g. {@code
 * config/memory/user.yaml: unknown key 'spec.provder'}.
 */
public final class ConfigException extends ConfigurationException {
  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }

  public ConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}
