package dev.memsidecar.api;

import java.util.regex.Pattern;

/** Checks for the ids that reach the engine from clients: workspace, user, agent, session, record. */
public final class Ids {
  /**
   * Every id a client sends matches this: letters, digits, dot, underscore, hyphen; 1..64. The ids
   * "." and ".." are refused too, so an id can never walk a file path.
   */
  public static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  private Ids() {}

  public static boolean isValid(String id) {
    return id != null && ID.matcher(id).matches() && !id.equals(".") && !id.equals("..");
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
      String shown = id.length() > 80 ? id.substring(0, 80) + "..." : id;
      throw MemoryException.invalidArgument(
          field, field + " '" + shown + "' must match " + ID.pattern() + " and not be . or ..");
    }
    return id;
  }
}
