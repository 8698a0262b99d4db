package dev.memsidecar.jdbc.postgresql;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.jdbc.postgresql.ChangeLogCursor.Snapshot;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ChangeLogCursor}: the bookkeeping alone, then on a real PostgreSQL ({@link
 * PostgresCluster}) with a writer that commits after a later one and a writer that rolls back.
 */
class TestChangeLogCursor {

  @Test
  void startsAWindowBelowTheNewest() {
    assertEquals(90, ChangeLogCursor.start(100, 10).highWater());
    assertEquals(0, ChangeLogCursor.start(5, 10).highWater());
  }

  @Test
  void seqsSkippedOverAreGapsUntilFoundOrTheirWritersEnded() {
    ChangeLogCursor cursor = ChangeLogCursor.start(0, 0);
    assertTrue(cursor.advance(new Snapshot(100, 105), new long[0], new long[] {1, 4, 2}));
    assertEquals(4, cursor.highWater());
    assertArrayEquals(new long[] {3}, cursor.gaps());

    // Writers running at the first read (xids below 105) still may be: the gap stays.
    assertTrue(cursor.advance(new Snapshot(104, 110), cursor.gaps(), new long[] {5}));
    assertArrayEquals(new long[] {3}, cursor.gaps());
    // Found: no longer a gap.
    assertTrue(cursor.advance(new Snapshot(104, 110), cursor.gaps(), new long[] {3, 7}));
    assertArrayEquals(new long[] {6}, cursor.gaps());
    // Not found, and every writer running when 6 went missing (xids below 110) has ended.
    assertTrue(cursor.advance(new Snapshot(110, 112), cursor.gaps(), new long[0]));
    assertArrayEquals(new long[0], cursor.gaps());
    assertEquals(7, cursor.highWater());
  }

  @Test
  void tooManyGapsMeanTheReaderLostTrack() {
    ChangeLogCursor cursor = ChangeLogCursor.start(0, 0);
    assertFalse(
        cursor.advance(
            new Snapshot(1, 2), new long[0], new long[] {ChangeLogCursor.MAX_GAPS + 2L}));
  }

  @Test
  void aLateCommitIsReadAndARollbackIsForgotten() throws SQLException {
    PostgresCluster cluster = PostgresCluster.shared();
    String database = cluster.createDatabase();
    try (Connection c = cluster.connect(database)) {
      execute(c, "CREATE TABLE log (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, x INT)");
      execute(c, "CREATE TABLE things (id INT PRIMARY KEY)");
      execute(c, "INSERT INTO things VALUES (1)");
    }
    ChangeLogCursor cursor = ChangeLogCursor.start(0, 0);
    try (Connection late = cluster.connect(database);
        Connection rolledBack = cluster.connect(database);
        Connection quick = cluster.connect(database);
        Connection reader = cluster.connect(database)) {
      late.setAutoCommit(false);
      rolledBack.setAutoCommit(false);
      // Each writer has its transaction id (a row lock) before it draws a seq.
      execute(late, "SELECT id FROM things FOR SHARE");
      execute(late, "INSERT INTO log (x) VALUES (1)"); // seq 1
      execute(rolledBack, "SELECT id FROM things FOR SHARE");
      execute(rolledBack, "INSERT INTO log (x) VALUES (2)"); // seq 2
      execute(quick, "INSERT INTO log (x) VALUES (3)"); // seq 3, committed

      assertArrayEquals(new long[] {3}, read(reader, cursor));
      assertArrayEquals(new long[] {1, 2}, cursor.gaps());

      rolledBack.rollback();
      assertArrayEquals(new long[0], read(reader, cursor));
      // 1's writer is still running: both gaps are kept (the snapshot's xmin is held back by it).
      assertArrayEquals(new long[] {1, 2}, cursor.gaps());

      late.commit();
      assertArrayEquals(new long[] {1}, read(reader, cursor));
      // Every writer running at the first read has ended and 2 was not there: rolled back.
      assertArrayEquals(new long[0], cursor.gaps());
      assertEquals(3, cursor.highWater());
    }
  }

  /** One read as a reader runs it: a REPEATABLE READ snapshot, the gaps and the rows above. */
  private static long[] read(Connection c, ChangeLogCursor cursor) throws SQLException {
    c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    c.setAutoCommit(false);
    try {
      Snapshot snapshot = Snapshot.current(c);
      long[] gaps = cursor.gaps();
      List<Long> found = new ArrayList<>();
      try (PreparedStatement st =
          c.prepareStatement("SELECT seq FROM log WHERE seq > ? OR seq = ANY(?) ORDER BY seq")) {
        st.setLong(1, cursor.highWater());
        Long[] boxed = new Long[gaps.length];
        for (int i = 0; i < gaps.length; i++) {
          boxed[i] = gaps[i];
        }
        st.setArray(2, c.createArrayOf("bigint", boxed));
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            found.add(rs.getLong(1));
          }
        }
      }
      c.commit();
      long[] out = found.stream().mapToLong(Long::longValue).toArray();
      assertTrue(cursor.advance(snapshot, gaps, out));
      return out;
    } finally {
      c.setAutoCommit(true);
    }
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
