package dev.memsidecar.provider.langmem;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Capability;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.jdbc.Database;
import dev.memsidecar.jdbc.postgresql.PostgresSchemas;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Set;

/**
 * The {@code langmem-sqlite} provider (alias {@code langmem}): records and their embeddings in two
 * SQL tables, after the LangMem SQLite service. By default an H2 file {@code langmem.mv.db} in the
 * profile's data directory; any H2 URL works, and so does a PostgreSQL one ({@code
 * jdbc:postgresql://host:5432/database}, tested on PostgreSQL 15). Each database comes with a
 * dialect of the JDBC base ({@link dev.memsidecar.jdbc.Dialect}); a URL of a database without one
 * fails {@link #open} with INVALID_ARGUMENT naming {@code jdbc.url}.
 *
 * <p>Settings ({@code spec.settings}), all optional:
 *
 * <ul>
 *   <li>{@code jdbc.url}: default {@code jdbc:h2:file:<dataDirectory>/langmem}. For H2 the store
 *       adds {@code WRITE_DELAY=0}, {@code FILE_LOCK=FS}, {@code DB_CLOSE_ON_EXIT=FALSE}, {@code
 *       MAX_COMPACT_TIME=0} and {@code CACHE_SIZE=4096} ({@link dev.memsidecar.jdbc.h2.H2Options}
 *       says why) and rejects a URL that sets the first two otherwise, or names no in-memory
 *       database ({@code jdbc:h2:mem:}: each pooled connection would get its own). Messages and
 *       logs show the URL as it is, so it must hold no credentials (a PostgreSQL URL with a {@code
 *       password} parameter is refused);
 *   <li>{@code jdbc.user}, {@code jdbc.password}: the credentials, handed to the driver apart from
 *       the URL. {@code jdbc.password} is {@linkplain #sensitiveSettings() sensitive}: the engine
 *       masks it and this provider never shows it;
 *   <li>{@code jdbc.passwordFile}: instead of {@code jdbc.password}, a file holding the password (a
 *       mounted Kubernetes Secret, say), read when the store opens; line breaks at its end are not
 *       part of the password. Setting both is INVALID_ARGUMENT;
 *   <li>{@code jdbc.schema}: PostgreSQL only, the schema of the profile's tables (lower case,
 *       digits and '_'), made at open unless it exists (the user then needs {@code CREATE} on the
 *       database) and added to the URL as {@code currentSchema}; the sidecar's shared store ({@code
 *       memory.store.url}) gives each profile {@code langmem_<profile>};
 *   <li>{@code pool.size}: connections kept open, 1..{@value #MAX_POOL_SIZE}, default {@value
 *       #DEFAULT_POOL_SIZE}.
 * </ul>
 *
 * Any other key fails {@link #open} with INVALID_ARGUMENT naming it. Stateless and thread-safe; see
 * {@link LangMemSqliteStore} for what the stores promise and {@link Schema} for the tables, which a
 * newer release migrates in place when it first opens them. A store opened with another embedder
 * than made its stored vectors embeds them again before it opens ({@link Reembedding}): a switch of
 * {@code memory.embedder} costs one pass over the records at the next start.
 */
public final class LangMemSqliteProvider implements MemoryProvider {
  public static final String NAME = "langmem-sqlite";
  public static final String URL = "jdbc.url";
  public static final String USER = "jdbc.user";
  public static final String PASSWORD = "jdbc.password";
  public static final String PASSWORD_FILE = "jdbc.passwordFile";
  public static final String POOL_SIZE = "pool.size";
  public static final String SCHEMA = "jdbc.schema";
  public static final int DEFAULT_POOL_SIZE = 4;
  public static final int MAX_POOL_SIZE = 64;

  private static final Set<String> KNOWN =
      Set.of(URL, USER, PASSWORD, PASSWORD_FILE, POOL_SIZE, SCHEMA);

  /** For {@link java.util.ServiceLoader}. */
  public LangMemSqliteProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Set<String> aliases() {
    return Set.of("langmem");
  }

  @Override
  public Set<Capability> capabilities() {
    return Set.of(Capability.RECORDS);
  }

  @Override
  public Set<String> sensitiveSettings() {
    return Set.of(PASSWORD);
  }

  @Override
  public MemoryStore open(ProviderContext context) {
    requireNonNull(context, "context is null");
    context.requireOnly(KNOWN);
    String url = context.stringSetting(URL, defaultUrl(context.dataDirectory()));
    if (!url.startsWith("jdbc:")) {
      throw MemoryException.invalidArgument(
          settingField(URL),
          "profile '" + context.profileId() + "': " + URL + " must start with 'jdbc:': " + url);
    }
    String user = context.stringSetting(USER, null);
    String password = password(context);
    String schema = context.stringSetting(SCHEMA, null);
    if (schema != null) {
      url = inSchema(context.profileId(), url, user, password, schema);
    }
    return LangMemSqliteStore.open(
        context.profileId(),
        url,
        settingField(URL),
        user,
        password,
        context.intSetting(POOL_SIZE, DEFAULT_POOL_SIZE, 1, MAX_POOL_SIZE),
        context.embedder());
  }

  /** {@code jdbc.password}, or the content of {@code jdbc.passwordFile}, or null. */
  private static String password(ProviderContext context) {
    String password = context.stringSetting(PASSWORD, null);
    String file = context.stringSetting(PASSWORD_FILE, null);
    if (file == null) {
      return password;
    }
    String field = settingField(PASSWORD_FILE);
    String profile = "profile '" + context.profileId() + "': ";
    if (password != null) {
      throw MemoryException.invalidArgument(
          field, profile + "set " + PASSWORD + " or " + PASSWORD_FILE + ", not both");
    }
    String read;
    try {
      read = Files.readString(Path.of(file), StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      throw MemoryException.invalidArgument(
          field,
          profile
              + "cannot read "
              + PASSWORD_FILE
              + " "
              + file
              + " ("
              + e.getClass().getSimpleName()
              + ")");
    }
    read = read.replaceAll("[\\r\\n]+$", "");
    if (read.isEmpty()) {
      throw MemoryException.invalidArgument(
          field, profile + PASSWORD_FILE + " " + file + " is empty");
    }
    return read;
  }

  /** {@code url} with {@code currentSchema=schema}, the schema made if missing. */
  private static String inSchema(
      String profileId, String url, String user, String password, String schema) {
    String profile = "profile '" + profileId + "': ";
    try {
      return PostgresSchemas.inSchema(url, user, password, schema);
    } catch (IllegalArgumentException e) {
      throw MemoryException.invalidArgument(
          settingField(SCHEMA), profile + SCHEMA + " " + e.getMessage());
    } catch (SQLException e) {
      throw MemoryException.unavailable(
          profile
              + "cannot make or find the schema "
              + schema
              + " at "
              + url
              + ": "
              + Database.firstLine(e),
          e);
    }
  }

  /** {@code jdbc:h2:file:<dataDirectory>/langmem}, the directory made absolute. */
  static String defaultUrl(Path dataDirectory) {
    return "jdbc:h2:file:" + dataDirectory.toAbsolutePath().resolve("langmem");
  }

  private static String settingField(String key) {
    return "spec.settings." + key;
  }
}
