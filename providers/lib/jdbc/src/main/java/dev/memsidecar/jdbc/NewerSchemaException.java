package dev.memsidecar.jdbc;

/**
 * The database's tables are at a schema version written by a later release than this one: they are
 * left alone rather than misread.
 */
public final class NewerSchemaException extends java.sql.SQLException {
  private static final long serialVersionUID = 1L;

  private final String found;
  private final int supported;

  NewerSchemaException(String found, int supported) {
    super(
        "its tables are at schema version "
            + found
            + ", written by a later release; this one reads up to "
            + supported);
    this.found = found;
    this.supported = supported;
  }

  /** The version found. */
  public String found() {
    return found;
  }

  /** The latest version this release reads. */
  public int supported() {
    return supported;
  }
}
