package dev.memsidecar.jdbc.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Housekeeping on real H2 files written the way the stores write them: one small transaction per
 * record with {@code WRITE_DELAY=0}. The passes are run by the test, not the timer, so the sizes do
 * not depend on the machine's speed.
 */
class TestH2Housekeeping {
  private static final int ROWS = 3_000;
  private static final int ROW_BYTES = 1_200;

  @TempDir Path dir;

  private static String url(Path file) {
    // As the stores open H2: no compaction at close, so sizes read before and after a close agree.
    return "jdbc:h2:file:" + file + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE;MAX_COMPACT_TIME=0";
  }

  /** {@link #ROWS} commits of one row each, with {@code passEvery} commits between passes. */
  private static void writeRows(Connection c, H2Housekeeping housekeeping, int passEvery)
      throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS t(id INT PRIMARY KEY, body BINARY VARYING, at BIGINT)");
      st.execute("CREATE INDEX IF NOT EXISTS t_at ON t(at)");
    }
    c.setAutoCommit(false);
    try (PreparedStatement insert = c.prepareStatement("INSERT INTO t VALUES (?, ?, ?)")) {
      for (int i = 0; i < ROWS; i++) {
        // Spread keys, as random record ids spread over the tree's leaves.
        insert.setInt(1, (int) ((i * 2_654_435_761L) % 1_000_003));
        insert.setBytes(2, new byte[ROW_BYTES]);
        insert.setLong(3, i);
        insert.executeUpdate();
        c.commit();
        if (housekeeping != null && i % passEvery == 0) {
          housekeeping.pass();
        }
      }
    }
  }

  private static void passUntilIdle(H2Housekeeping housekeeping) {
    for (int i = 0; i < 100 && housekeeping.pass(); i++) {
      // each pass fsyncs, compacts a bounded amount, and frees what the last fsync made safe
    }
  }

  private static int count(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM t")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  @Test
  void keepsTheFileNearTheDataItHoldsWhereH2AloneLetsItGrow() throws Exception {
    Path plain = dir.resolve("plain");
    long plainSize;
    try (Connection c = DriverManager.getConnection(url(plain))) {
      writeRows(c, null, 1);
      plainSize = Files.size(Path.of(plain + ".mv.db"));
    }
    Path kept = dir.resolve("kept");
    long keptSize;
    try (Connection c = DriverManager.getConnection(url(kept));
        H2Housekeeping housekeeping = H2Housekeeping.attach(c, "kept")) {
      assertTrue(housekeeping.active());
      writeRows(c, housekeeping, 50);
      passUntilIdle(housekeeping);
      keptSize = Files.size(Path.of(kept + ".mv.db"));
      assertEquals(ROWS, count(c));
    }
    long logical = (long) ROWS * ROW_BYTES;
    assertTrue(keptSize <= 3 * logical, "kept " + keptSize + " bytes for " + logical + " of rows");
    assertTrue(
        plainSize > 3 * keptSize,
        "without housekeeping " + plainSize + " bytes, with it " + keptSize);
  }

  @Test
  void whatItCompactedIsThereAfterReopening() throws Exception {
    Path file = dir.resolve("db");
    try (Connection c = DriverManager.getConnection(url(file));
        H2Housekeeping housekeeping = H2Housekeeping.attach(c, "db")) {
      writeRows(c, housekeeping, 100);
      passUntilIdle(housekeeping);
    }
    try (Connection c = DriverManager.getConnection(url(file))) {
      assertEquals(ROWS, count(c));
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT SUM(LENGTH(body)), MAX(at) FROM t")) {
        rs.next();
        assertEquals((long) ROWS * ROW_BYTES, rs.getLong(1));
        assertEquals(ROWS - 1, rs.getLong(2));
      }
    }
  }

  @Test
  void anIdleDatabaseGetsNoMorePasses() throws Exception {
    try (Connection c = DriverManager.getConnection(url(dir.resolve("idle")));
        H2Housekeeping housekeeping = H2Housekeeping.attach(c, "idle")) {
      writeRows(c, housekeeping, 100);
      passUntilIdle(housekeeping);
      assertFalse(housekeeping.pass(), "a pass after one that changed nothing");
      try (Statement st = c.createStatement()) {
        st.execute("INSERT INTO t VALUES (-1, X'00', -1)");
      }
      c.commit();
      assertTrue(housekeeping.pass(), "a write wakes it");
    }
  }

  @Test
  void databasesWithoutAFileAreLeftAlone() throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:h2:mem:housekeeping");
        H2Housekeeping housekeeping = H2Housekeeping.start(c, "memory")) {
      assertFalse(housekeeping.active());
      assertFalse(housekeeping.pass());
    }
  }

  @Test
  void closingTwiceAndPassingAfterCloseDoNothing() throws Exception {
    try (Connection c = DriverManager.getConnection(url(dir.resolve("closed")))) {
      H2Housekeeping housekeeping = H2Housekeeping.start(c, "closed");
      assertTrue(housekeeping.active());
      housekeeping.close();
      housekeeping.close();
      assertFalse(housekeeping.pass());
    }
  }
}
