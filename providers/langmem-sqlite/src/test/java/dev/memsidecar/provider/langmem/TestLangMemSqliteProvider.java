package dev.memsidecar.provider.langmem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.Capability;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.jdbc.h2.H2Dialect;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The settings of {@code langmem-sqlite}, its H2 defaults and dialects, and how it fails to open.
 */
class TestLangMemSqliteProvider {
  @TempDir Path dir;

  @Test
  void serviceLoaderFindsTheProviderByNameAndAlias() {
    List<MemoryProvider> found =
        ServiceLoader.load(MemoryProvider.class).stream()
            .map(ServiceLoader.Provider::get)
            .filter(p -> p.name().equals("langmem-sqlite"))
            .toList();
    assertEquals(1, found.size());
    assertEquals(Set.of("langmem"), found.get(0).aliases());
    assertEquals(Set.of(Capability.RECORDS), found.get(0).capabilities());
    assertEquals(Set.of("jdbc.password"), found.get(0).sensitiveSettings());
  }

  @Test
  void defaultDatabaseIsAnH2FileInTheDataDirectory() {
    try (MemoryStore store = Fixtures.open(dir)) {
      store.put(Fixtures.record(Namespace.of("a:b"), "r", "x"));
    }
    assertTrue(dir.resolve("langmem.mv.db").toFile().isFile());
  }

  @Test
  void badPoolSizeFailsNamingIt() {
    for (String bad : List.of("0", "-1", "65", "four", "")) {
      MemoryException e =
          assertThrows(MemoryException.class, () -> Fixtures.open(dir, Map.of("pool.size", bad)));
      assertEquals(MemoryException.Code.INVALID_ARGUMENT, e.code(), bad);
      assertEquals("spec.settings.pool.size", e.field());
    }
    try (MemoryStore store = Fixtures.open(dir, Map.of("pool.size", "1"))) {
      Namespace ns = Namespace.of("a:b");
      store.put(Fixtures.record(ns, "r", "one connection is enough"));
      SearchQuery q = new SearchQuery("connection", null, 5, Set.of(), List.of(), 0f, Fixtures.T0);
      assertEquals(1, store.search(ns, q).size());
    }
  }

  @Test
  void urlsThatBreakDurabilityOrLockingAreRejected() {
    String base = "jdbc:h2:file:" + dir.resolve("db");
    for (String bad : List.of(base + ";WRITE_DELAY=500", base + ";file_lock=no", "h2:" + base)) {
      MemoryException e =
          assertThrows(MemoryException.class, () -> Fixtures.open(dir, Map.of("jdbc.url", bad)));
      assertEquals(MemoryException.Code.INVALID_ARGUMENT, e.code(), bad);
      assertEquals("spec.settings.jdbc.url", e.field());
    }
    try (MemoryStore store = Fixtures.open(dir, Map.of("jdbc.url", base + ";write_delay=0"))) {
      assertTrue(store.get(Namespace.of("a"), "x").isEmpty());
    }
  }

  @Test
  void h2ConnectionsCommitWithoutWriteDelayAndLockTheFile() throws Exception {
    String url = new H2Dialect().connectionUrl("jdbc:h2:file:" + dir.resolve("probe"), null);
    assertTrue(
        url.endsWith(
            ";WRITE_DELAY=0;FILE_LOCK=FS;DB_CLOSE_ON_EXIT=FALSE;MAX_COMPACT_TIME=0;CACHE_SIZE=4096"),
        url);
    try (Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS"
                    + " WHERE SETTING_NAME = 'WRITE_DELAY'")) {
      assertTrue(rs.next());
      assertEquals("0", rs.getString(1));
    }
  }

  @Test
  void credentialsReachTheDatabaseButNeverAMessage() {
    Map<String, String> owner = Map.of("jdbc.user", "svc", "jdbc.password", "s3cret-pw");
    try (MemoryStore store = Fixtures.open(dir, owner)) {
      store.put(Fixtures.record(Namespace.of("a:b"), "r", "guarded"));
    }

    MemoryException wrong =
        assertThrows(
            MemoryException.class,
            () -> Fixtures.open(dir, Map.of("jdbc.user", "svc", "jdbc.password", "guess-pw")));
    assertEquals(MemoryException.Code.UNAVAILABLE, wrong.code());
    assertTrue(wrong.getMessage().contains(dir.toString()), wrong.getMessage());
    assertFalse(wrong.getMessage().contains("guess-pw"), wrong.getMessage());

    // A database of no dialect is a bad setting now (it was UNAVAILABLE, "no suitable driver").
    MemoryException unreachable =
        assertThrows(
            MemoryException.class,
            () ->
                Fixtures.open(
                    dir,
                    Map.of(
                        "jdbc.url", "jdbc:nosuchdb://db.example:5432/mem",
                        "jdbc.user", "svc",
                        "jdbc.password", "s3cret-pw")));
    assertEquals(MemoryException.Code.INVALID_ARGUMENT, unreachable.code());
    assertTrue(
        unreachable.getMessage().contains("jdbc:nosuchdb://db.example:5432/mem"),
        unreachable.getMessage());
    assertFalse(unreachable.getMessage().contains("s3cret-pw"), unreachable.getMessage());

    try (MemoryStore store = Fixtures.open(dir, owner)) {
      assertTrue(store.get(Namespace.of("a:b"), "r").isPresent());
    }
  }

  @Test
  void tablesOfANewerSchemaVersionAreRefused() throws Exception {
    Fixtures.open(dir).close();
    try (Connection c = Fixtures.connect(dir);
        Statement st = c.createStatement()) {
      st.executeUpdate("UPDATE langmem_schema SET version = 99 WHERE id = 1");
    }
    MemoryException e = assertThrows(MemoryException.class, () -> Fixtures.open(dir));
    assertEquals(MemoryException.Code.UNAVAILABLE, e.code());
    assertTrue(e.getMessage().contains("99"), e.getMessage());
  }

  @Test
  void aUrlOfADatabaseWithoutADialectFailsNamingIt() {
    MemoryException e =
        assertThrows(
            MemoryException.class,
            () -> Fixtures.open(dir, Map.of("jdbc.url", "jdbc:mysql://h/db")));
    assertEquals(MemoryException.Code.INVALID_ARGUMENT, e.code());
    assertEquals("spec.settings.jdbc.url", e.field());
    assertTrue(e.getMessage().contains("jdbc:mysql:"), e.getMessage());
    assertTrue(e.getMessage().contains("supported: jdbc:h2:, jdbc:postgresql:"), e.getMessage());
  }
}
