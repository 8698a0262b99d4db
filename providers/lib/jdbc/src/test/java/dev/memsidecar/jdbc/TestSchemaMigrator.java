package dev.memsidecar.jdbc;

import static dev.memsidecar.jdbc.Samples.column;
import static dev.memsidecar.jdbc.Samples.execute;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Versioned migrations on real H2 files: a new database, one of the hand-written versioning of
 * earlier releases (taken over at its version), one cut short anywhere, and one of a later release.
 */
class TestSchemaMigrator {
  private static final String HISTORY =
      "SELECT \"version\" || ':' || \"success\" FROM \"sample_schema_history\""
          + " WHERE \"version\" IS NOT NULL ORDER BY \"installed_rank\"";

  @TempDir Path dir;

  @AfterEach
  void noFailureLeftOver() {
    Samples.LENGTHS_FAILURES.set(0);
  }

  @Test
  void aNewDatabaseRunsEveryMigrationAndRecordsItsVersion() throws SQLException, IOException {
    try (Database db = Samples.open(dir)) {
      assertEquals(0, db.migratedFrom());
      db.call(c -> st(c, "INSERT INTO notes (id, body, length) VALUES (1, 'abc', 3)"));
    }
    try (Connection c = Samples.connect(dir)) {
      assertEquals(List.of("1:TRUE", "2:TRUE", "3:TRUE"), column(c, HISTORY));
      assertEquals(List.of("3"), legacyVersion(c));
      assertEquals(List.of("NOTES_BY_BODY"), indexes(c));
    }
    assertNoTraceFile();
  }

  @Test
  void anUpToDateDatabaseOpensWithoutChange() throws SQLException, IOException {
    Samples.open(dir).close();
    try (Database db = Samples.open(dir)) {
      assertEquals(3, db.migratedFrom());
    }
    try (Connection c = Samples.connect(dir)) {
      assertEquals(List.of("1:TRUE", "2:TRUE", "3:TRUE"), column(c, HISTORY));
    }
    assertNoTraceFile();
  }

  /**
   * H2 writes the errors of statements to a {@code .trace.db} file beside the database: opening a
   * new or an up-to-date database makes none (it once probed for its tables with statements that
   * failed).
   */
  private void assertNoTraceFile() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(
          List.of(),
          files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".trace.db")).toList());
    }
  }

  @Test
  void aDatabaseOfTheLegacyVersioningIsTakenOverAtItsVersion() throws SQLException {
    try (Connection c = Samples.connect(dir)) {
      execute(
          c,
          "CREATE TABLE sample_schema (id INTEGER NOT NULL PRIMARY KEY, version INTEGER NOT NULL)",
          "INSERT INTO sample_schema (id, version) VALUES (1, 1)",
          "CREATE TABLE notes (id INTEGER NOT NULL PRIMARY KEY, body CHARACTER VARYING NOT NULL)",
          "INSERT INTO notes (id, body) VALUES (1, 'kept'), (2, 'also kept')");
    }
    try (Database db = Samples.open(dir)) {
      assertEquals(1, db.migratedFrom());
    }
    try (Connection c = Samples.connect(dir)) {
      assertEquals(List.of("1:TRUE", "2:TRUE", "3:TRUE"), column(c, HISTORY));
      assertEquals(
          List.of("kept:4", "also kept:9"),
          column(c, "SELECT body || ':' || length FROM notes ORDER BY id"));
      assertEquals(List.of("3"), legacyVersion(c));
    }
  }

  @Test
  void aLegacyTableWithoutItsRowIsTakenOverFromTheStart() throws SQLException {
    // A first start of a release before Flyway that crashed before it wrote its version row.
    try (Connection c = Samples.connect(dir)) {
      execute(
          c,
          "CREATE TABLE sample_schema (id INTEGER NOT NULL PRIMARY KEY, version INTEGER NOT NULL)",
          "CREATE TABLE notes (id INTEGER NOT NULL PRIMARY KEY, body CHARACTER VARYING NOT NULL)",
          "INSERT INTO notes (id, body) VALUES (1, 'kept')");
    }
    try (Database db = Samples.open(dir)) {
      assertEquals(0, db.migratedFrom());
    }
    try (Connection c = Samples.connect(dir)) {
      assertEquals(List.of("0:TRUE", "1:TRUE", "2:TRUE", "3:TRUE"), column(c, HISTORY));
      assertEquals(List.of("kept:4"), column(c, "SELECT body || ':' || length FROM notes"));
    }
  }

  @Test
  void aTakeOverCutShortBeforeItsBaselineRowIsDoneAgain() throws SQLException {
    try (Connection c = Samples.connect(dir)) {
      execute(
          c,
          "CREATE TABLE sample_schema (id INTEGER NOT NULL PRIMARY KEY, version INTEGER NOT NULL)",
          "INSERT INTO sample_schema (id, version) VALUES (1, 2)",
          "CREATE TABLE notes (id INTEGER NOT NULL PRIMARY KEY, body CHARACTER VARYING NOT NULL,"
              + " length INTEGER)",
          "INSERT INTO notes (id, body, length) VALUES (1, 'kept', 4)");
    }
    Samples.open(dir).close();
    try (Connection c = Samples.connect(dir)) {
      // As if the process died after Flyway created its history table, before the baseline row.
      execute(c, "DELETE FROM \"sample_schema_history\"", "DROP INDEX notes_by_body");
      execute(c, "UPDATE sample_schema SET version = 2");
    }
    try (Database db = Samples.open(dir)) {
      assertEquals(2, db.migratedFrom());
    }
    try (Connection c = Samples.connect(dir)) {
      assertEquals(List.of("2:TRUE", "3:TRUE"), column(c, HISTORY));
      assertEquals(List.of("NOTES_BY_BODY"), indexes(c));
      assertEquals(List.of("3"), legacyVersion(c));
    }
  }

  @Test
  void aFailedMigrationRunsAgainWhenOpenedAgain() throws SQLException {
    try (Connection c = Samples.connect(dir)) {
      execute(
          c,
          "CREATE TABLE sample_schema (id INTEGER NOT NULL PRIMARY KEY, version INTEGER NOT NULL)",
          "INSERT INTO sample_schema (id, version) VALUES (1, 1)",
          "CREATE TABLE notes (id INTEGER NOT NULL PRIMARY KEY, body CHARACTER VARYING NOT NULL)",
          "INSERT INTO notes (id, body) VALUES (1, 'kept')");
    }
    Samples.LENGTHS_FAILURES.set(1);
    SQLException e = assertThrows(SQLException.class, () -> Samples.open(dir));
    assertTrue(e.getMessage().startsWith("sample db: schema migration failed"), e.getMessage());
    assertTrue(e.getMessage().endsWith("the disk is full (as a test says)"), e.getMessage());

    try (Database db = Samples.open(dir)) {
      assertEquals(1, db.migratedFrom());
    }
    try (Connection c = Samples.connect(dir)) {
      assertEquals(List.of("1:TRUE", "2:TRUE", "3:TRUE"), column(c, HISTORY));
      assertEquals(List.of("kept:4"), column(c, "SELECT body || ':' || length FROM notes"));
    }
  }

  @Test
  void aDatabaseOfALaterReleaseIsRefusedAndLeftAlone() throws SQLException {
    Samples.open(dir).close();
    try (Connection c = Samples.connect(dir)) {
      execute(
          c,
          "INSERT INTO \"sample_schema_history\" (\"installed_rank\", \"version\","
              + " \"description\", \"type\", \"script\", \"installed_by\", \"execution_time\","
              + " \"success\") VALUES (4, '4', 'later', 'SQL', 'V4__later.sql', 'sa', 0, TRUE)",
          "DROP INDEX notes_by_body");
    }
    NewerSchemaException e = assertThrows(NewerSchemaException.class, () -> Samples.open(dir));
    assertEquals("4", e.found());
    assertEquals(
        "its tables are at schema version 4, written by a later release; this one reads up to 3",
        e.getMessage());
    try (Connection c = Samples.connect(dir)) {
      assertEquals(List.of(), indexes(c));
    }
  }

  @Test
  void aLegacyVersionOfALaterReleaseIsRefused() throws SQLException {
    Samples.open(dir).close();
    try (Connection c = Samples.connect(dir)) {
      execute(c, "UPDATE sample_schema SET version = 99");
    }
    NewerSchemaException e = assertThrows(NewerSchemaException.class, () -> Samples.open(dir));
    assertEquals("99", e.found());
    assertEquals(3, e.supported());
  }

  private static List<String> legacyVersion(Connection c) throws SQLException {
    return column(c, "SELECT version FROM sample_schema WHERE id = 1");
  }

  private static List<String> indexes(Connection c) throws SQLException {
    return column(
        c,
        "SELECT INDEX_NAME FROM INFORMATION_SCHEMA.INDEXES WHERE TABLE_NAME = 'NOTES'"
            + " AND INDEX_TYPE_NAME <> 'PRIMARY KEY' ORDER BY INDEX_NAME");
  }

  private static int st(Connection c, String sql) throws SQLException {
    try (var st = c.createStatement()) {
      return st.executeUpdate(sql);
    }
  }
}
