package dev.memsidecar.provider.langmem;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.jdbc.CodeMigration;
import dev.memsidecar.jdbc.Database;
import dev.memsidecar.jdbc.Dialect;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Schema version 2: vectors as bytes. Adds {@code memory_vectors.embedding} (nullable: SQL cannot
 * add a NOT NULL column to a filled table everywhere, so new tables have it nullable too), converts
 * the rows from {@code embedding_json} in primary-key order, {@value Schema#MIGRATION_BATCH} per
 * transaction, then drops {@code embedding_json}.
 *
 * <p>H2 commits each DDL statement on its own, so a crash can stop it between any two steps; each
 * step looks at what the tables hold (is there an {@code embedding_json} column, an {@code
 * embedding} column, rows whose {@code embedding} is still NULL) rather than assuming where it
 * stands, so running it again carries on where it stopped, and on tables that never had JSON
 * vectors it does nothing. Stateless.
 */
final class VectorsToBytes implements CodeMigration {
  private static final String JSON_COLUMN = "embedding_json";
  private static final System.Logger LOG = System.getLogger(VectorsToBytes.class.getName());

  @Override
  public int version() {
    return 2;
  }

  @Override
  public String description() {
    return "vectors as bytes";
  }

  @Override
  public void migrate(Connection c, Dialect dialect) throws SQLException {
    Set<String> columns = columnsOf(c, Schema.VECTORS);
    if (!columns.contains(JSON_COLUMN)) {
      return;
    }
    try (Statement st = c.createStatement()) {
      if (!columns.contains("embedding")) {
        st.execute(
            "ALTER TABLE " + Schema.VECTORS + " ADD COLUMN embedding " + dialect.binaryType());
      }
    }
    String select =
        "SELECT namespace, record_id, "
            + JSON_COLUMN
            + " FROM "
            + Schema.VECTORS
            + " WHERE embedding IS NULL AND (namespace > ? OR (namespace = ? AND record_id > ?))"
            + " ORDER BY namespace, record_id LIMIT ?";
    String update =
        "UPDATE "
            + Schema.VECTORS
            + " SET embedding = ?, dimensions = ? WHERE namespace = ? AND record_id = ?";
    // Keys are never empty, so ("", "") is before every row.
    String[] after = {"", ""};
    long converted = 0;
    int batch;
    do {
      batch =
          Database.inTransaction(
              c,
              () -> {
                int n = 0;
                try (PreparedStatement read = c.prepareStatement(select);
                    PreparedStatement write = c.prepareStatement(update)) {
                  read.setString(1, after[0]);
                  read.setString(2, after[0]);
                  read.setString(3, after[1]);
                  read.setInt(4, Schema.MIGRATION_BATCH);
                  try (ResultSet rs = read.executeQuery()) {
                    while (rs.next()) {
                      after[0] = rs.getString(1);
                      after[1] = rs.getString(2);
                      float[] vector = legacyVector(after[0], after[1], rs.getString(3));
                      write.setBytes(1, VectorBytes.encode(vector));
                      write.setInt(2, vector.length);
                      write.setString(3, after[0]);
                      write.setString(4, after[1]);
                      write.addBatch();
                      n++;
                    }
                  }
                  if (n > 0) {
                    write.executeBatch();
                  }
                }
                return n;
              });
      converted += batch;
    } while (batch == Schema.MIGRATION_BATCH);
    try (Statement st = c.createStatement()) {
      st.execute("ALTER TABLE " + Schema.VECTORS + " DROP COLUMN " + JSON_COLUMN);
    }
    if (converted > 0) {
      long total = converted;
      LOG.log(Level.INFO, () -> "langmem-sqlite: converted " + total + " vectors to bytes");
    }
  }

  /**
   * The vector in a version-1 {@code embedding_json} cell, at unit length ({@link Embedder#unit}:
   * the very same floats for what an embedder wrote), or an empty one (embedded again when indexed)
   * if the text is not a JSON array of finite floats.
   */
  private static float[] legacyVector(String namespace, String id, String json) {
    try {
      return Embedder.unit(RecordRows.JSON.readValue(json, float[].class));
    } catch (IOException | RuntimeException e) {
      LOG.log(
          Level.WARNING,
          () ->
              "langmem-sqlite: the vector of "
                  + namespace
                  + "/"
                  + id
                  + " is unreadable ("
                  + String.valueOf(e.getMessage()).lines().findFirst().orElse("")
                  + "); it will be embedded again");
      return new float[0];
    }
  }

  /** The column names of {@code table}, lower case. */
  private static Set<String> columnsOf(Connection c, String table) throws SQLException {
    Set<String> out = new HashSet<>();
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
      ResultSetMetaData meta = rs.getMetaData();
      for (int i = 1; i <= meta.getColumnCount(); i++) {
        out.add(meta.getColumnName(i).toLowerCase(Locale.ROOT));
      }
    }
    return out;
  }
}
