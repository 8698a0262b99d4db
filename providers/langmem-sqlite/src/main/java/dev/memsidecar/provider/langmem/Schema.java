package dev.memsidecar.provider.langmem;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The provider's tables and their version.
 *
 * <p>{@code langmem_schema} holds one row with the version of the other tables. Opening a database
 * without it creates everything at {@link #VERSION}; a database at an older version is migrated
 * step by step (none exist yet); one at a newer version, written by a later release, is refused
 * rather than misread.
 *
 * <ul>
 *   <li>{@code memory_records}: the source of truth, one row per record, primary key ({@code
 *       namespace}, {@code id}), indexed by ({@code namespace}, {@code created_at}, {@code id}) for
 *       listing. Columns: see {@link RecordRows}.
 *   <li>{@code memory_vectors}: the recall index, one row per ACTIVE record: {@code namespace},
 *       {@code record_id}, {@code dimensions}, {@code embedding_json} (a JSON float array).
 * </ul>
 */
final class Schema {
  /** The version this code reads and writes. */
  static final int VERSION = 1;

  static final String VECTORS = "memory_vectors";
  static final List<String> VECTOR_COLUMNS =
      List.of("namespace", "record_id", "dimensions", "embedding_json");
  static final List<String> VECTOR_KEY = List.of("namespace", "record_id");

  private Schema() {}

  /**
   * Creates or migrates the tables on {@code c} (left in auto-commit mode) and returns the version
   * found before: 0 for a new database. A result above {@link #VERSION} means the tables were left
   * alone because this code cannot read them.
   */
  static int ensure(Connection c, SqlDialect dialect) throws SQLException {
    c.setAutoCommit(false);
    try (Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS langmem_schema ("
              + "id INTEGER NOT NULL PRIMARY KEY, version INTEGER NOT NULL)");
      int found = 0;
      try (ResultSet rs = st.executeQuery("SELECT version FROM langmem_schema WHERE id = 1")) {
        if (rs.next()) {
          found = rs.getInt(1);
        }
      }
      if (found > VERSION) {
        c.commit();
        return found;
      }
      if (found == 0) {
        createVersion1(st, dialect.textType());
        try (PreparedStatement ins =
            c.prepareStatement("INSERT INTO langmem_schema (id, version) VALUES (1, ?)")) {
          ins.setInt(1, VERSION);
          ins.executeUpdate();
        }
      }
      // Later versions migrate here: if (found < 2) { ...; update version }.
      c.commit();
      return found;
    } catch (SQLException | RuntimeException e) {
      try {
        c.rollback();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  private static void createVersion1(Statement st, String text) throws SQLException {
    st.execute(
        "CREATE TABLE IF NOT EXISTS "
            + RecordRows.TABLE
            + " ("
            + "namespace VARCHAR(300) NOT NULL, "
            + "id VARCHAR(64) NOT NULL, "
            + "profile "
            + text
            + " NOT NULL, "
            + "kind VARCHAR(32) NOT NULL, "
            + "scope "
            + text
            + " NOT NULL, "
            + "status VARCHAR(32) NOT NULL, "
            + "content "
            + text
            + " NOT NULL, "
            + "summary "
            + text
            + " NOT NULL, "
            + "context "
            + text
            + " NOT NULL, "
            + "confidence REAL NOT NULL, "
            + "tags_json "
            + text
            + " NOT NULL, "
            + "sensitivity "
            + text
            + " NOT NULL, "
            + "metadata_json "
            + text
            + " NOT NULL, "
            + "created_at BIGINT NOT NULL, "
            + "updated_at BIGINT NOT NULL, "
            + "gate_score REAL NOT NULL, "
            + "source_refs_json "
            + text
            + " NOT NULL, "
            + "validity VARCHAR(32) NOT NULL, "
            + "expire_at BIGINT, "
            + "PRIMARY KEY (namespace, id))");
    st.execute(
        "CREATE INDEX IF NOT EXISTS memory_records_by_created ON "
            + RecordRows.TABLE
            + " (namespace, created_at, id)");
    st.execute(
        "CREATE TABLE IF NOT EXISTS "
            + VECTORS
            + " ("
            + "namespace VARCHAR(300) NOT NULL, "
            + "record_id VARCHAR(64) NOT NULL, "
            + "dimensions INTEGER NOT NULL, "
            + "embedding_json "
            + text
            + " NOT NULL, "
            + "PRIMARY KEY (namespace, record_id))");
  }
}
