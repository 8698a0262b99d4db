package dev.memsidecar.core.config;

import java.util.Arrays;
import java.util.Locale;

/** Which part of a client's scope a profile's namespace is keyed by. */
public enum ScopeKind {
  WORKSPACE,
  USER,
  AGENT,
  SESSION;

  /** The lower-case name used in YAML and on the wire: "workspace", "user", ... */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses "workspace", "user", "agent" or "session"; fails naming the allowed values. */
  public static ScopeKind parse(String value) {
    for (ScopeKind kind : values()) {
      if (kind.id().equals(value)) {
        return kind;
      }
    }
    throw new IllegalArgumentException(
        "unknown scope '"
            + value
            + "'; expected one of "
            + Arrays.stream(values()).map(ScopeKind::id).toList());
  }
}
