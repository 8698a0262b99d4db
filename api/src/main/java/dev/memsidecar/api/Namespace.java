package dev.memsidecar.api;

import java.util.regex.Pattern;

/**
 * Where a record lives: a string such as {@code acme:user:alice:user}. Namespaces are made by the
 * engine from a client's scope and a profile, never taken from a client string. A store must never
 * return a record of one namespace to a call made with another.
 *
 * @param value 1..300 characters of {@code [A-Za-z0-9._:/-]}
 */
public record Namespace(String value) {
  /** The longest namespace. */
  public static final int MAX_LENGTH = 300;

  private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._:/-]{1,300}");

  public Namespace {
    if (value == null || !VALID.matcher(value).matches()) {
      throw MemoryException.invalidArgument(
          "namespace", "namespace " + Ids.quote(value) + " must match " + VALID.pattern());
    }
  }

  public static Namespace of(String value) {
    return new Namespace(value);
  }

  @Override
  public String toString() {
    return value;
  }
}
