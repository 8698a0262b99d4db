package dev.memsidecar.jdbc.postgresql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.jdbc.CodeMigration;
import dev.memsidecar.jdbc.Database;
import dev.memsidecar.jdbc.Dialect;
import dev.memsidecar.jdbc.VersionedSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The PostgreSQL dialect on a real PostgreSQL 15 ({@link PostgresCluster}). */
class TestPostgresDialect {
  private static final Dialect PG = new PostgresDialect();

  /** How often the code migration of {@link #schema} ran, across every store that opened it. */
  private static final AtomicInteger CODE_RUNS = new AtomicInteger();

  private PostgresCluster cluster;
  private String url;

  @BeforeEach
  void newDatabase() {
    cluster = PostgresCluster.shared();
    url = cluster.url(cluster.createDatabase());
  }

  @Test
  void postgresqlUrlsGetThisDialect() {
    assertInstanceOf(PostgresDialect.class, Dialect.forUrl("jdbc:postgresql://db:5432/mem"));
    assertInstanceOf(PostgresDialect.class, Dialect.forUrl("JDBC:PostgreSQL://db/mem"));
  }

  @Test
  void aPasswordInTheUrlIsRefusedWithoutShowingIt() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> PG.connectionUrl("jdbc:postgresql://db/mem?user=a&Password=hunter22", null));
    assertFalse(e.getMessage().contains("hunter22"), e.getMessage());
    assertTrue(e.getMessage().contains("password"), e.getMessage());
  }

  @Test
  void aUrlTheDriverCannotReadIsRefused() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> PG.connectionUrl("jdbc:postgresql://db:notaport/mem", null));
    assertTrue(e.getMessage().contains("jdbc:postgresql://host:port/database"), e.getMessage());
  }

  @Test
  void aLockTimeoutReachesTheServerUnlessTheUrlSetsOptions() throws SQLException {
    String withTimeout = PG.connectionUrl(url, Duration.ofSeconds(10));
    assertEquals("10s", show(withTimeout, "lock_timeout"));
    assertEquals("0", show(PG.connectionUrl(url, null), "lock_timeout"));
    String own = url + "?options=-c%20statement_timeout%3D5000";
    assertEquals(own, PG.connectionUrl(own, Duration.ofSeconds(10)));
    assertEquals("5s", show(own, "statement_timeout"));
  }

  @Test
  void upsertInsertsThenReplacesByKey() throws SQLException {
    try (Connection c = connect(url)) {
      execute(
          c, "CREATE TABLE kv (k TEXT NOT NULL, n INTEGER NOT NULL, v BYTEA, PRIMARY KEY (k, n))");
      String upsert = PG.upsert("kv", List.of("k", "n", "v"), List.of("k", "n"));
      for (byte[] v : List.of(new byte[] {1, 2}, new byte[] {3})) {
        try (PreparedStatement st = c.prepareStatement(upsert)) {
          st.setString(1, "a");
          st.setInt(2, 1);
          st.setBytes(3, v);
          assertEquals(1, st.executeUpdate());
        }
      }
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT k, n, v FROM kv")) {
        assertTrue(rs.next());
        assertEquals(List.of((byte) 3), List.of(rs.getBytes(3)[0]));
        assertFalse(rs.next());
      }
      String keysOnly = PG.upsert("kv", List.of("k", "n"), List.of("k", "n"));
      assertTrue(keysOnly.endsWith("DO NOTHING"), keysOnly);
    }
  }

  @Test
  void aDuplicateKeyAndANulCharacterAreToldApart() throws SQLException {
    try (Connection c = connect(url)) {
      execute(c, "CREATE TABLE t (k TEXT PRIMARY KEY)");
      execute(c, "INSERT INTO t VALUES ('x')");
      SQLException duplicate =
          assertThrows(SQLException.class, () -> execute(c, "INSERT INTO t VALUES ('x')"));
      assertTrue(PG.isDuplicateKey(duplicate), duplicate.getSQLState());
      assertFalse(PG.isDataException(duplicate), duplicate.getSQLState());
      SQLException nul =
          assertThrows(
              SQLException.class,
              () -> {
                try (PreparedStatement st = c.prepareStatement("INSERT INTO t VALUES (?)")) {
                  st.setString(1, "a\u0000b");
                  st.executeUpdate();
                }
              });
      assertTrue(PG.isDataException(nul), nul.getSQLState());
    }
  }

  @Test
  void unstorableTextNamesTheCharacterAndItsIndex() {
    assertNull(PG.unstorableText("emoji 🚀 and 中文, tabs\tand\r\nnewlines"));
    assertTrue(PG.unstorableText("ab\u0000").contains("U+0000) at index 2"));
    assertTrue(PG.unstorableText("a\uD83D").contains("U+D83D) at index 1"));
    assertTrue(PG.unstorableText("\uDE80x").contains("U+DE80) at index 0"));
    // H2 keeps any Java string.
    assertNull(Dialect.forUrl("jdbc:h2:mem:x").unstorableText("a\u0000\uD83D"));
  }

  @Test
  void storesOpeningANewDatabaseAtOnceMigrateItOnce() throws Exception {
    int stores = 6;
    CODE_RUNS.set(0);
    ExecutorService pool = Executors.newFixedThreadPool(stores);
    List<Database> opened = new ArrayList<>();
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Database>> futures = new ArrayList<>();
      for (int i = 0; i < stores; i++) {
        int n = i;
        futures.add(
            pool.submit(
                () -> {
                  go.await();
                  return Database.open(
                      Database.Settings.forUrl(
                          "sample " + n,
                          url,
                          null,
                          PostgresCluster.USER,
                          PostgresCluster.PASSWORD,
                          1),
                      schema());
                }));
      }
      go.countDown();
      for (Future<Database> f : futures) {
        opened.add(f.get());
      }
      assertEquals(1, opened.stream().filter(db -> db.migratedFrom() == 0).count());
      assertEquals(1, CODE_RUNS.get(), "the code migration ran once");
      Database db = opened.get(0);
      db.call(c -> execute(c, "INSERT INTO notes (id, body, length) VALUES (1, 'abc', 3)"));
      try (Connection c = connect(url)) {
        assertEquals(
            List.of("1:true", "2:true", "3:true"),
            column(
                c,
                "SELECT version || ':' || success FROM sample_schema_history"
                    + " WHERE version IS NOT NULL ORDER BY installed_rank"));
        assertEquals(List.of("3"), column(c, "SELECT version FROM sample_schema"));
        assertEquals(
            List.of("notes_by_body"),
            column(c, "SELECT indexname FROM pg_indexes WHERE indexname = 'notes_by_body'"));
      }
    } finally {
      opened.forEach(Database::close);
      pool.shutdownNow();
    }
  }

  /** The sample schema of the H2 tests, version 2 counted in {@link #CODE_RUNS}. */
  static VersionedSchema schema() {
    CodeMigration lengths =
        new CodeMigration() {
          @Override
          public int version() {
            return 2;
          }

          @Override
          public String description() {
            return "note lengths";
          }

          @Override
          public void migrate(Connection c, Dialect dialect) throws SQLException {
            CODE_RUNS.incrementAndGet();
            execute(c, "ALTER TABLE notes ADD COLUMN IF NOT EXISTS length INTEGER");
            execute(c, "UPDATE notes SET length = LENGTH(body)");
          }
        };
    return new VersionedSchema(
        "sample",
        3,
        "sample_schema_history",
        "sample_schema",
        List.of(lengths),
        TestPostgresDialect.class.getClassLoader());
  }

  private static Connection connect(String url) throws SQLException {
    return PG.dataSource(url, PostgresCluster.USER, PostgresCluster.PASSWORD).getConnection();
  }

  private static String show(String url, String setting) throws SQLException {
    try (Connection c = connect(url)) {
      return column(c, "SHOW " + setting).get(0);
    }
  }

  private static Void execute(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
    return null;
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
