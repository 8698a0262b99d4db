package dev.memsidecar.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pool and the transaction helper of {@link Database}, on an H2 file. */
class TestDatabase {
  @TempDir Path dir;

  @Test
  void aTransactionCommitsWhenItsWorkReturnsAndRollsBackWhenItThrows() throws SQLException {
    try (Database db = Samples.open(dir)) {
      db.transaction(c -> update(c, "INSERT INTO notes (id, body) VALUES (1, 'one')"));
      SQLException e =
          assertThrows(
              SQLException.class,
              () ->
                  db.transaction(
                      c -> {
                        update(c, "INSERT INTO notes (id, body) VALUES (2, 'two')");
                        return update(c, "INSERT INTO notes (id, body) VALUES (1, 'again')");
                      }));
      assertTrue(db.dialect().isDuplicateKey(e), e.getSQLState());
      RuntimeException thrown =
          assertThrows(
              IllegalStateException.class,
              () ->
                  db.transaction(
                      c -> {
                        update(c, "INSERT INTO notes (id, body) VALUES (3, 'three')");
                        throw new IllegalStateException("changed its mind");
                      }));
      assertEquals("changed its mind", thrown.getMessage());
      assertEquals(
          List.of("1"), db.call(c -> Samples.column(c, "SELECT id FROM notes ORDER BY id")));
      // Connections come back in auto-commit mode.
      assertTrue(db.call(Connection::getAutoCommit));
    }
  }

  @Test
  void everyConnectionOfThePoolWorksAtOnce() throws Exception {
    try (Database db = Samples.open(dir)) {
      // Two connections (the pool's size) held at once: the second borrows while the first is
      // still in use.
      int inner =
          db.call(
              outer -> {
                update(outer, "INSERT INTO notes (id, body) VALUES (1, 'one')");
                return db.call(c -> Samples.column(c, "SELECT id FROM notes").size());
              });
      assertEquals(1, inner);
    }
  }

  @Test
  void aDatabaseThatCannotBeOpenedFailsWithTheDriversError() throws SQLException {
    String url = Samples.url(dir);
    try (Database owner =
        Database.open(
            new Database.Settings("owned", Samples.H2, url, "svc", "s3cret-pw", 1),
            Samples.SCHEMA)) {
      owner.call(c -> update(c, "INSERT INTO notes (id, body) VALUES (1, 'guarded')"));
    }
    SQLException e =
        assertThrows(
            SQLException.class,
            () ->
                Database.open(
                    new Database.Settings("guessed", Samples.H2, url, "svc", "guess-pw", 1),
                    Samples.SCHEMA));
    assertEquals("28000", e.getSQLState(), e.getMessage());
    assertFalse(e.getMessage().contains("guess-pw"), e.getMessage());
    // Nothing of the failed open stays: the right credentials open it again.
    try (Database again =
        Database.open(
            new Database.Settings("owned", Samples.H2, url, "svc", "s3cret-pw", 1),
            Samples.SCHEMA)) {
      assertEquals(
          List.of("guarded"), again.call(c -> Samples.column(c, "SELECT body FROM notes")));
    }
  }

  @Test
  void afterCloseEveryCallFails() throws SQLException {
    Database db = Samples.open(dir);
    assertFalse(db.isClosed());
    db.close();
    db.close();
    assertTrue(db.isClosed());
    assertThrows(SQLException.class, () -> db.call(c -> c));
    // The file is closed with the pool: another store can open it.
    try (Database again = Samples.open(dir)) {
      assertEquals(3, again.migratedFrom());
    }
  }

  @Test
  void settingsNeverShowThePassword() {
    Database.Settings s =
        Database.Settings.forUrl("db", "jdbc:h2:mem:x", null, "svc", "s3cret-pw", 1);
    assertFalse(s.toString().contains("s3cret-pw"), s.toString());
    assertThrows(
        IllegalArgumentException.class,
        () -> Database.Settings.forUrl("db", "jdbc:h2:mem:x", null, null, null, 0));
  }

  private static int update(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement()) {
      return st.executeUpdate(sql);
    }
  }
}
