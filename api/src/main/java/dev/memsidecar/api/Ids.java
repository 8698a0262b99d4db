package dev.memsidecar.api;

import java.util.regex.Pattern;

/**
 * Checks for the ids that reach the engine from clients: workspace, user, agent, session, record.
 */
public final class Ids {
  /**
   * Every id a client sends matches this: letters, digits, dot, underscore, hyphen; 1..64. The ids
   * "." and ".." are refused too, so an id can never walk a file path.
   */
  public static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  /** The longest id. */
  public static final int MAX_LENGTH = 64;

  private Ids() {}

  public static boolean isValid(String id) {
    return id != null
        && id.length() <= MAX_LENGTH
        && ID.matcher(id).matches()
        && !id.equals(".")
        && !id.equals("..");
  }

  /**
   * Returns {@code id} when it is valid, or throws INVALID_ARGUMENT naming {@code field} and the
   * value (cut to 80 characters so a huge value cannot flood a log).
   */
  public static String require(String field, String id) {
    if (id == null || id.isEmpty()) {
      throw MemoryException.invalidArgument(field, field + " is required");
    }
    if (!isValid(id)) {
      throw MemoryException.invalidArgument(
          field, field + " " + quote(id) + " must match " + ID.pattern() + " and not be . or ..");
    }
    return id;
  }

  /**
   * {@code text} in single quotes for a message or a log line, cut to 80 characters (with its
   * length said) so a huge client value can never flood either.
   */
  public static String quote(String text) {
    if (text == null) {
      return "null";
    }
    if (text.length() <= 80) {
      return "'" + text + "'";
    }
    return "'" + text.substring(0, 80) + "...' (" + text.length() + " characters)";
  }
}
