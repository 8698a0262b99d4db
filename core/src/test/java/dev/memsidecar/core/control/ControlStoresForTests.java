package dev.memsidecar.core.control;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The control store the engine-level tests open for a data folder: the embedded H2 file under it,
 * or, with {@code -Dmemsidecar.test.control=postgresql}, a database of its own on the tests'
 * PostgreSQL server (the same one each time the folder is opened again), so the same tests run the
 * control store's SQL on PostgreSQL.
 */
public final class ControlStoresForTests {
  /** The system property that picks the database: {@code h2} (default) or {@code postgresql}. */
  public static final String PROPERTY = "memsidecar.test.control";

  private static final Map<Path, PostgresControl> DATABASES = new ConcurrentHashMap<>();

  private ControlStoresForTests() {}

  /** The control store of {@code data}, on the database the system property names. */
  public static SqlControlStore open(Path data) {
    String which = System.getProperty(PROPERTY, "h2");
    return switch (which) {
      case "h2" -> SqlControlStore.open(data);
      case "postgresql" ->
          DATABASES.computeIfAbsent(data.toAbsolutePath(), d -> new PostgresControl()).open();
      default -> throw new IllegalArgumentException(PROPERTY + " is h2 or postgresql: " + which);
    };
  }
}
