package dev.memsidecar.jdbc.postgresql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** A store's own schema in a shared database, on a real PostgreSQL 15. */
class TestPostgresSchemas {
  private final PostgresCluster cluster = PostgresCluster.shared();
  private final String database = cluster.createDatabase();
  private final String url = cluster.url(database);

  @Test
  void makesTheSchemaOnceEvenWhenSeveralProcessesAskAtOnceAndNamesItInTheUrl() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      List<Future<String>> urls = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        urls.add(
            pool.submit(
                () ->
                    PostgresSchemas.inSchema(
                        url, PostgresCluster.USER, PostgresCluster.PASSWORD, "langmem_user")));
      }
      for (Future<String> u : urls) {
        assertEquals(url + "?currentSchema=langmem_user", u.get());
      }
    } finally {
      pool.shutdownNow();
    }
    String inSchema =
        PostgresSchemas.inSchema(
            url, PostgresCluster.USER, PostgresCluster.PASSWORD, "langmem_user");
    try (Connection c =
            new PostgresDialect()
                .dataSource(inSchema, PostgresCluster.USER, PostgresCluster.PASSWORD)
                .getConnection();
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE t (x INT)");
      try (ResultSet rs =
          st.executeQuery(
              "SELECT table_schema FROM information_schema.tables WHERE table_name = 't'")) {
        assertTrue(rs.next());
        assertEquals("langmem_user", rs.getString(1));
      }
    }
  }

  @Test
  void aSchemaThatExistsIsUsedWithoutTheRightToCreateOne() throws SQLException {
    try (Connection c = cluster.connect(database);
        Statement st = c.createStatement()) {
      st.execute("CREATE SCHEMA langmem_team");
      st.execute("CREATE ROLE reader LOGIN PASSWORD 'reader-password-1'");
      st.execute("GRANT USAGE, CREATE ON SCHEMA langmem_team TO reader");
    }
    assertEquals(
        url + "?currentSchema=langmem_team",
        PostgresSchemas.inSchema(url, "reader", "reader-password-1", "langmem_team"));
    SQLException e =
        assertThrows(
            SQLException.class,
            () -> PostgresSchemas.inSchema(url, "reader", "reader-password-1", "langmem_other"));
    assertEquals("42501", e.getSQLState(), e.getMessage());
  }

  @Test
  void refusesBadNamesAndASecondSchemaInTheUrl() {
    for (String bad : List.of("Upper", "has-dash", "1digit", "x".repeat(64), "a;drop")) {
      assertThrows(
          IllegalArgumentException.class,
          () -> PostgresSchemas.inSchema(url, PostgresCluster.USER, PostgresCluster.PASSWORD, bad),
          bad);
    }
    assertThrows(
        IllegalArgumentException.class,
        () ->
            PostgresSchemas.inSchema(
                url + "?currentSchema=x", PostgresCluster.USER, PostgresCluster.PASSWORD, "y"));
    assertThrows(
        IllegalArgumentException.class,
        () -> PostgresSchemas.inSchema("jdbc:h2:mem:x", null, null, "y"));
  }
}
