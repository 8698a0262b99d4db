package dev.memsidecar.it;

import dev.memsidecar.jdbc.postgresql.PostgresCluster;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the end-to-end suites on PostgreSQL instead of the embedded H2 files: with {@code
 * -Dmemsidecar.it.store=postgresql}, every sidecar a test starts gets the shared store's
 * environment ({@code MEMSIDECAR_STORE_URL}, {@code _USER}, {@code _PASSWORD}) of a database of its
 * workspace's own on one throwaway PostgreSQL 15 server ({@link PostgresCluster}), so a sidecar
 * started again on the same workspace finds its data, as it would in its H2 files, and tests stay
 * apart as they do on H2.
 */
final class SharedDatabase {
  /** The system property that picks the store, and its value for PostgreSQL. */
  static final String PROPERTY = "memsidecar.it.store";

  static final boolean ENABLED = "postgresql".equals(System.getProperty(PROPERTY));

  private static final Map<Path, String> DATABASES = new ConcurrentHashMap<>();
  private static final AtomicInteger COPIES = new AtomicInteger();

  private SharedDatabase() {}

  /**
   * {@code env} plus the shared store's variables for the database of {@code workspace} (made on
   * first use), unless {@code env} names a store already.
   */
  static Map<String, String> environment(
      Path workspace, Map<String, String> env, List<String> args) {
    if (env.containsKey("MEMSIDECAR_STORE_URL")) {
      return env;
    }
    int data = args.indexOf("--data");
    Path key = data >= 0 && data + 1 < args.size() ? Path.of(args.get(data + 1)) : workspace;
    PostgresCluster cluster = PostgresCluster.shared();
    String database =
        DATABASES.computeIfAbsent(key.toAbsolutePath().normalize(), w -> cluster.createDatabase());
    return storeEnvironment(cluster, database, env);
  }

  /**
   * The data folder {@code target} gets a copy of {@code source}'s database (no sidecar may be
   * connected to it), if {@code source} has one.
   */
  static void copy(Path source, Path target) {
    String from = DATABASES.get(source.toAbsolutePath().normalize());
    if (from == null) {
      return;
    }
    PostgresCluster cluster = PostgresCluster.shared();
    String to = from + "_copy" + COPIES.incrementAndGet();
    try (Connection c = cluster.connect("postgres");
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + to + " TEMPLATE " + from);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot copy the database " + from, e);
    }
    DATABASES.put(target.toAbsolutePath().normalize(), to);
  }

  /** {@code env} plus the variables that point a sidecar at {@code database}. */
  static Map<String, String> storeEnvironment(
      PostgresCluster cluster, String database, Map<String, String> env) {
    Map<String, String> all = new HashMap<>(env);
    all.put("MEMSIDECAR_STORE_URL", cluster.url(database));
    all.put("MEMSIDECAR_STORE_USER", PostgresCluster.USER);
    all.put("MEMSIDECAR_STORE_PASSWORD", PostgresCluster.PASSWORD);
    return all;
  }
}
