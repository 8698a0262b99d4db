package dev.memsidecar.jdbc.postgresql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** The tests' throwaway PostgreSQL: it starts, checks passwords, and leaves nothing behind. */
class TestPostgresCluster {

  @Test
  void aClusterServesPostgresql15WithPasswordsAndLeavesNothingWhenClosed() throws SQLException {
    PostgresCluster cluster = PostgresCluster.start();
    try {
      assertTrue(Files.isDirectory(cluster.folder()), cluster.toString());
      String db = cluster.createDatabase();
      try (Connection c = cluster.connect(db);
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SHOW server_version_num")) {
        assertTrue(rs.next());
        assertEquals("15", rs.getString(1).substring(0, 2));
      }
      assertThrows(
          SQLException.class,
          () -> java.sql.DriverManager.getConnection(cluster.url(db), PostgresCluster.USER, "no"));
    } finally {
      cluster.close();
    }
    assertFalse(Files.exists(cluster.folder()), cluster.folder() + " is left");
    assertThrows(SQLException.class, () -> cluster.connect("postgres").close());
  }

  @Test
  void aStoppedOrKilledServerComesBackOnItsPortWithItsData() throws SQLException {
    try (PostgresCluster cluster = PostgresCluster.start()) {
      String db = cluster.createDatabase();
      int port = cluster.port();
      try (Connection c = cluster.connect(db);
          Statement st = c.createStatement()) {
        st.execute("CREATE TABLE t (n INTEGER)");
        st.execute("INSERT INTO t VALUES (1)");
      }
      cluster.stop();
      assertFalse(cluster.isRunning());
      assertThrows(SQLException.class, () -> cluster.connect(db).close());
      cluster.restart();
      assertTrue(cluster.isRunning());
      try (Connection c = cluster.connect(db);
          Statement st = c.createStatement()) {
        st.execute("INSERT INTO t VALUES (2)");
      }
      cluster.kill();
      assertFalse(cluster.isRunning());
      assertThrows(SQLException.class, () -> cluster.connect(db).close());
      cluster.restart();
      assertEquals(port, cluster.port());
      try (Connection c = cluster.connect(db);
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT sum(n) FROM t")) {
        assertTrue(rs.next());
        assertEquals(3, rs.getInt(1));
      }
    }
  }

  @Test
  void missingBinariesFailSayingWhatToInstall() {
    String before = System.getProperty(PostgresCluster.BIN_PROPERTY);
    System.setProperty(PostgresCluster.BIN_PROPERTY, "/nonexistent/postgresql/bin");
    try {
      IllegalStateException e = assertThrows(IllegalStateException.class, PostgresCluster::start);
      assertTrue(e.getMessage().contains("apt-get install -y postgresql-15"), e.getMessage());
      assertTrue(e.getMessage().contains("/nonexistent/postgresql/bin/initdb"), e.getMessage());
    } finally {
      if (before == null) {
        System.clearProperty(PostgresCluster.BIN_PROPERTY);
      } else {
        System.setProperty(PostgresCluster.BIN_PROPERTY, before);
      }
    }
  }
}
