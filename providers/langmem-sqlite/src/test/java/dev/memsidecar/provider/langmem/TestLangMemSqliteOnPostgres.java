package dev.memsidecar.provider.langmem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.jdbc.postgresql.PostgresCluster;
import dev.memsidecar.toolkit.HashEmbedder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What is specific to {@code langmem-sqlite} on a real PostgreSQL 15 ({@link PostgresCluster}): the
 * schema a new database migrates to, stores of several processes opening one database at once,
 * texts PostgreSQL cannot hold, and the password (given in a setting or a file) kept out of every
 * message and log line. The kit's tests run in {@link TestLangMemSqlitePostgresConformance}.
 */
class TestLangMemSqliteOnPostgres {
  private static final Namespace NS = Namespace.of("ws:workspace:memory");

  @TempDir Path dir;

  private PostgresCluster cluster;
  private String database;

  @BeforeEach
  void newDatabase() {
    cluster = PostgresCluster.shared();
    database = cluster.createDatabase();
  }

  private Map<String, String> settings() {
    return Map.of(
        LangMemSqliteProvider.URL,
        cluster.url(database),
        LangMemSqliteProvider.USER,
        PostgresCluster.USER,
        LangMemSqliteProvider.PASSWORD,
        PostgresCluster.PASSWORD);
  }

  private MemoryStore open() {
    return Fixtures.open(dir, settings());
  }

  @Test
  void aNewDatabaseMigratesToTheCurrentSchema() throws SQLException {
    try (MemoryStore store = open()) {
      store.put(Fixtures.record(NS, "r1", "the deploy command is make ship"));
      awaitVector(store);
    }
    try (Connection c = cluster.connect(database)) {
      assertEquals(
          List.of("1:true", "2:true", "3:true", "4:true", "5:true"),
          column(
              c,
              "SELECT version || ':' || success FROM langmem_schema_history"
                  + " WHERE version IS NOT NULL ORDER BY installed_rank"));
      assertEquals(List.of("5"), column(c, "SELECT version FROM langmem_schema WHERE id = 1"));
      assertEquals(
          List.of(
              "namespace:character varying:C",
              "record_id:character varying:C",
              "dimensions:integer:",
              "embedding:bytea:",
              "embedder:character varying:"),
          column(
              c,
              "SELECT column_name || ':' || data_type || ':' || COALESCE(collation_name, '')"
                  + " FROM information_schema.columns WHERE table_name = 'memory_vectors'"
                  + " ORDER BY ordinal_position"));
      assertEquals(
          List.of("memory_records_by_created_desc", "memory_records_pkey"),
          column(
              c,
              "SELECT indexname FROM pg_indexes WHERE tablename = 'memory_records'"
                  + " ORDER BY indexname"));
      assertEquals(
          List.of(Integer.toString(new HashEmbedder().dimensions() * Short.BYTES)),
          column(c, "SELECT octet_length(embedding) FROM memory_vectors"));
    }
  }

  @Test
  void recordsAndTheirSearchSurviveReopening() {
    MemoryRecord deploy = Fixtures.record(NS, "deploy", "the deploy command is make ship");
    MemoryRecord tea = Fixtures.record(NS, "tea", "the user drinks green tea every morning");
    try (MemoryStore store = open()) {
      store.put(deploy);
      store.put(tea);
    }
    try (MemoryStore store = open()) {
      assertEquals(Optional.of(deploy), store.get(NS, "deploy"));
      assertEquals(2, store.list(NS, new ListQuery(10, null, false)).records().size());
      List<ScoredRecord> hits = store.search(NS, query("green tea"));
      assertEquals(tea, hits.get(0).record());
    }
  }

  @Test
  void storesOfManyProcessesOpenOneNewDatabaseAtOnceAndAllTheirWritesLand() throws Exception {
    int stores = 4;
    int perStore = 50;
    ExecutorService pool = Executors.newFixedThreadPool(stores);
    List<MemoryStore> opened = new CopyOnWriteArrayList<>();
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>();
      for (int s = 0; s < stores; s++) {
        int n = s;
        futures.add(
            pool.submit(
                () -> {
                  go.await();
                  MemoryStore store = open();
                  opened.add(store);
                  // Every store writes ids of its own and the same shared ids: upserts race.
                  for (int i = 0; i < perStore; i++) {
                    store.put(Fixtures.record(NS, "own-" + n + "-" + i, "fact " + n + " " + i));
                    store.put(Fixtures.record(NS, "shared-" + i, "shared fact " + i));
                  }
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> f : futures) {
        f.get();
      }
      MemoryStore any = opened.get(0);
      int total = 0;
      String token = null;
      do {
        var page = any.list(NS, new ListQuery(100, token, true));
        total += page.records().size();
        token = page.nextCursor();
      } while (token != null);
      assertEquals(stores * perStore + perStore, total);
      for (int s = 0; s < stores; s++) {
        assertTrue(opened.get(s).get(NS, "own-" + ((s + 1) % stores) + "-0").isPresent());
      }
    } finally {
      opened.forEach(MemoryStore::close);
      pool.shutdownNow();
    }
  }

  @Test
  void profilesInTwoSchemasOfOneDatabaseKeepTablesOfTheirOwn() throws SQLException {
    try (Connection c = cluster.connect(database);
        Statement st = c.createStatement()) {
      st.execute("CREATE SCHEMA team");
      st.execute("CREATE SCHEMA users");
    }
    Map<String, String> team = new HashMap<>(settings());
    team.put(LangMemSqliteProvider.URL, cluster.url(database) + "?currentSchema=team");
    Map<String, String> users = new HashMap<>(settings());
    users.put(LangMemSqliteProvider.URL, cluster.url(database) + "?currentSchema=users");
    try (MemoryStore a = Fixtures.open(dir.resolve("a"), team);
        MemoryStore b = Fixtures.open(dir.resolve("b"), users)) {
      a.put(Fixtures.record(NS, "r", "only in team"));
      assertEquals(List.of(NS), a.namespaces());
      assertEquals(List.of(), b.namespaces());
    }
    try (Connection c = cluster.connect(database)) {
      assertEquals(List.of("1"), column(c, "SELECT COUNT(*) FROM team.memory_records"));
      assertEquals(List.of("0"), column(c, "SELECT COUNT(*) FROM users.memory_records"));
      assertEquals(
          List.of(),
          column(
              c, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"));
    }
  }

  @Test
  void textPostgresqlCannotHoldIsAnInvalidArgumentNamingItsField() {
    try (MemoryStore store = open()) {
      MemoryRecord base = Fixtures.record(NS, "r", "fine");
      assertInvalid(store, base.toBuilder().content("a\u0000b").build(), "content", "U+0000");
      assertInvalid(store, base.toBuilder().summary("x\uD83D").build(), "summary", "U+D83D");
      assertInvalid(
          store, base.toBuilder().tags(List.of("ok", "bad\u0000")).build(), "tags", "tag 1");
      assertInvalid(
          store,
          base.toBuilder().metadata(Map.of("k", "v\uDC00")).build(),
          "metadata",
          "metadata 'k'");
      assertEquals(Optional.empty(), store.get(NS, "r"));
      // Pairs of surrogates are characters like any other.
      MemoryRecord emoji = base.toBuilder().content("rocket 🚀 𝔘𝔫𝔦").build();
      store.put(emoji);
      assertEquals(Optional.of(emoji), store.get(NS, "r"));
    }
    // H2 keeps them as they are.
    try (MemoryStore h2 = Fixtures.open(dir)) {
      MemoryRecord nul = Fixtures.record(NS, "r", "a\u0000b");
      h2.put(nul);
      assertEquals(Optional.of(nul), h2.get(NS, "r"));
    }
  }

  private static void assertInvalid(
      MemoryStore store, MemoryRecord record, String field, String said) {
    MemoryException e = assertThrows(MemoryException.class, () -> store.put(record));
    assertEquals(MemoryException.Code.INVALID_ARGUMENT, e.code(), e.getMessage());
    assertEquals(field, e.field());
    assertTrue(e.getMessage().contains(said), e.getMessage());
  }

  @Test
  void thePasswordIsInNoMessageNorLogLine() throws Exception {
    List<String> logged = new CopyOnWriteArrayList<>();
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord r) {
            StringBuilder line = new StringBuilder(String.valueOf(r.getMessage()));
            for (Throwable t = r.getThrown(); t != null; t = t.getCause()) {
              line.append(' ').append(t);
            }
            logged.add(line.toString());
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    capture.setLevel(Level.ALL);
    Logger root = Logger.getLogger("");
    Level before = root.getLevel();
    root.setLevel(Level.ALL);
    root.addHandler(capture);
    try {
      try (MemoryStore store = open()) {
        store.put(Fixtures.record(NS, "r", "guarded"));
      }
      Map<String, String> wrong = new HashMap<>(settings());
      wrong.put(LangMemSqliteProvider.PASSWORD, "guess-" + PostgresCluster.PASSWORD);
      MemoryException refused =
          assertThrows(MemoryException.class, () -> Fixtures.open(dir, wrong));
      assertEquals(MemoryException.Code.UNAVAILABLE, refused.code());
      assertTrue(refused.getMessage().contains(cluster.url(database)), refused.getMessage());
      assertFalse(refused.getMessage().contains("guess-"), refused.getMessage());

      Map<String, String> inUrl = new HashMap<>(settings());
      inUrl.remove(LangMemSqliteProvider.PASSWORD);
      inUrl.put(
          LangMemSqliteProvider.URL,
          cluster.url(database) + "?user=" + PostgresCluster.USER + "&password=" + "in-url-pw");
      MemoryException url = assertThrows(MemoryException.class, () -> Fixtures.open(dir, inUrl));
      assertEquals(MemoryException.Code.INVALID_ARGUMENT, url.code());
      assertEquals("spec.settings.jdbc.url", url.field());
      assertTrue(url.getMessage().contains("password=***"), url.getMessage());
      assertFalse(url.getMessage().contains("in-url-pw"), url.getMessage());
    } finally {
      root.removeHandler(capture);
      root.setLevel(before);
    }
    assertTrue(
        logged.stream().anyMatch(l -> l.contains("opened " + cluster.url(database))),
        "the store logs the URL it opened: " + logged);
    for (String line : logged) {
      assertFalse(line.contains(PostgresCluster.PASSWORD), line);
      assertFalse(line.contains("in-url-pw"), line);
    }
  }

  @Test
  void thePasswordMayComeFromAFile() throws Exception {
    Path file = dir.resolve("db-password");
    Files.writeString(file, PostgresCluster.PASSWORD + "\n", StandardCharsets.UTF_8);
    Map<String, String> fromFile = new HashMap<>(settings());
    fromFile.remove(LangMemSqliteProvider.PASSWORD);
    fromFile.put(LangMemSqliteProvider.PASSWORD_FILE, file.toString());
    try (MemoryStore store = Fixtures.open(dir, fromFile)) {
      store.put(Fixtures.record(NS, "r", "from a file"));
      assertTrue(store.get(NS, "r").isPresent());
    }

    Map<String, String> both = new HashMap<>(fromFile);
    both.put(LangMemSqliteProvider.PASSWORD, PostgresCluster.PASSWORD);
    MemoryException twice = assertThrows(MemoryException.class, () -> Fixtures.open(dir, both));
    assertEquals(MemoryException.Code.INVALID_ARGUMENT, twice.code());
    assertEquals("spec.settings.jdbc.passwordFile", twice.field());

    Map<String, String> missing = new HashMap<>(fromFile);
    missing.put(LangMemSqliteProvider.PASSWORD_FILE, dir.resolve("nope").toString());
    MemoryException absent = assertThrows(MemoryException.class, () -> Fixtures.open(dir, missing));
    assertEquals(MemoryException.Code.INVALID_ARGUMENT, absent.code());
    assertEquals("spec.settings.jdbc.passwordFile", absent.field());
    assertTrue(absent.getMessage().contains(dir.resolve("nope").toString()), absent.getMessage());
  }

  private static void awaitVector(MemoryStore store) {
    // A search by meaning waits for the vectors of the records written before it.
    store.search(NS, query("deploy"));
  }

  private static SearchQuery query(String text) {
    return new SearchQuery(text, null, 5, Set.of(), List.of(), 0f, Fixtures.T0.plusSeconds(60));
  }

  private static List<String> column(Connection c, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
