package dev.memsidecar.core.config;

import static java.util.Objects.requireNonNull;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * One database for everything a sidecar persists ({@code memory.store.*}, or the environment's
 * {@code MEMSIDECAR_STORE_URL}, {@code MEMSIDECAR_STORE_USER}, {@code MEMSIDECAR_STORE_PASSWORD}):
 * the control store's tables, and the records of every {@code langmem-sqlite} profile that names no
 * database of its own, each profile in a schema of its own ({@link #schemaOf}). Several sidecars
 * may share it.
 *
 * @param url a PostgreSQL JDBC URL ({@code jdbc:postgresql://host:5432/database}); holds no secret
 * @param user the database user, or null
 * @param password the password, or null; never shown ({@link #toString} masks it)
 */
public record SharedStore(String url, String user, String password) {
  /** The JDBC URL prefix the shared store takes. */
  public static final String URL_PREFIX = "jdbc:postgresql:";

  /** The providers whose profiles keep their records in the shared store (name and alias). */
  public static final List<String> SQL_PROVIDERS = List.of("langmem-sqlite", "langmem");

  /** The prefix of a profile's schema: {@code langmem_<profile>}. */
  public static final String SCHEMA_PREFIX = "langmem_";

  /** A profile's own credentials, which the store's replace. */
  private static final List<String> CREDENTIALS =
      List.of("jdbc.user", "jdbc.password", "jdbc.passwordFile");

  /** PostgreSQL's longest identifier, in bytes. */
  private static final int MAX_IDENTIFIER = 63;

  public SharedStore {
    requireNonNull(url, "url is null");
  }

  /** {@code user} and {@code password} as the JDBC driver takes them. */
  public Properties credentials() {
    Properties p = new Properties();
    if (user != null) {
      p.setProperty("user", user);
    }
    if (password != null) {
      p.setProperty("password", password);
    }
    return p;
  }

  /**
   * The schema of {@code profileId}'s records: {@code langmem_} and the id in lower case, with each
   * character other than a-z, 0-9 and '_' as '_'.
   *
   * @throws IllegalArgumentException if the name would be longer than PostgreSQL allows
   */
  public static String schemaOf(String profileId) {
    StringBuilder name = new StringBuilder(SCHEMA_PREFIX);
    for (char c : profileId.toLowerCase(Locale.ROOT).toCharArray()) {
      name.append((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '_');
    }
    if (name.length() > MAX_IDENTIFIER) {
      throw new IllegalArgumentException(
          "profile id '"
              + profileId
              + "' is too long for a schema name (at most "
              + (MAX_IDENTIFIER - SCHEMA_PREFIX.length())
              + " characters); give the profile its own spec.settings.jdbc.url");
    }
    return name.toString();
  }

  /**
   * {@code profiles}, each {@code langmem-sqlite} profile without a {@code jdbc.url} of its own
   * given this store: {@code jdbc.url}, {@code jdbc.schema} ({@link #schemaOf}), and this store's
   * {@code jdbc.user} and {@code jdbc.password} in place of the profile's own credentials (which
   * were for its embedded default). Other profiles are returned as they are.
   *
   * @throws IllegalArgumentException if two profiles would share a schema
   */
  public List<ProfileSpec> applyTo(List<ProfileSpec> profiles) {
    Map<String, String> schemas = new HashMap<>();
    return profiles.stream()
        .map(
            p -> {
              if (!SQL_PROVIDERS.contains(p.provider()) || p.settings().containsKey("jdbc.url")) {
                return p;
              }
              String schema = schemaOf(p.id());
              String other = schemas.putIfAbsent(schema, p.id());
              if (other != null) {
                throw new IllegalArgumentException(
                    "profiles '"
                        + other
                        + "' and '"
                        + p.id()
                        + "' would share the schema "
                        + schema
                        + "; give one of them its own spec.settings.jdbc.url");
              }
              // The store's credentials go with its URL: the profile's own were for its default
              // (embedded) database.
              Map<String, String> settings = new HashMap<>(p.settings());
              settings.keySet().removeAll(CREDENTIALS);
              settings.put("jdbc.url", url);
              settings.put("jdbc.schema", schema);
              if (user != null) {
                settings.put("jdbc.user", user);
              }
              if (password != null) {
                settings.put("jdbc.password", password);
              }
              return new ProfileSpec(
                  p.id(),
                  p.scopeKind(),
                  p.provider(),
                  p.enabled(),
                  p.description(),
                  p.prompts(),
                  settings);
            })
        .toList();
  }

  @Override
  public String toString() {
    return "SharedStore[url="
        + url
        + ", user="
        + user
        + ", password="
        + (password == null ? "none" : "***")
        + "]";
  }
}
