package dev.memsidecar.jdbc.postgresql;

import static java.util.Objects.requireNonNull;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Pattern;

/**
 * A store's own schema in a shared PostgreSQL database: made when missing, then named in the URL
 * ({@code currentSchema}), so the store's tables are created and found there. Several processes may
 * make the same schema at once.
 */
public final class PostgresSchemas {
  /** A schema name this class takes: lower case, digits and '_', at most 63 characters. */
  public static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  private PostgresSchemas() {}

  /**
   * Makes {@code schema} in the database at {@code url} unless it exists, and returns {@code url}
   * with {@code currentSchema=schema} added.
   *
   * @throws IllegalArgumentException if {@code schema} is not a {@link #NAME}, or {@code url} is
   *     not PostgreSQL's or names a {@code currentSchema} already
   * @throws SQLException if the database cannot be reached or the schema cannot be made (the user
   *     needs {@code CREATE} on the database to make it)
   */
  public static String inSchema(String url, String user, String password, String schema)
      throws SQLException {
    requireNonNull(url, "url is null");
    requireNonNull(schema, "schema is null");
    if (!NAME.matcher(schema).matches()) {
      throw new IllegalArgumentException("schema '" + schema + "' must match " + NAME.pattern());
    }
    if (!url.startsWith(PostgresDialect.PREFIX)) {
      throw new IllegalArgumentException("a schema needs a PostgreSQL URL (jdbc:postgresql:)");
    }
    if (PostgresDialect.parameterNames(url).contains("currentschema")) {
      throw new IllegalArgumentException(
          "the URL names a currentSchema already; give the schema in one place");
    }
    String connect = new PostgresDialect().connectionUrl(url, null);
    try (Connection c = new PostgresDialect().dataSource(connect, user, password).getConnection()) {
      if (!exists(c, schema)) {
        try (Statement st = c.createStatement()) {
          st.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
        } catch (SQLException e) {
          // Another process made it between the look and the CREATE (a unique violation).
          if (!exists(c, schema)) {
            throw e;
          }
        }
      }
    }
    return url + (url.indexOf('?') < 0 ? "?" : "&") + "currentSchema=" + schema;
  }

  private static boolean exists(Connection c, String schema) throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement("SELECT 1 FROM pg_namespace WHERE nspname = ?")) {
      st.setString(1, schema);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next();
      }
    }
  }
}
