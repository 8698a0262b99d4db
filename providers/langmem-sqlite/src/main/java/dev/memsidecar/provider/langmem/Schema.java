package dev.memsidecar.provider.langmem;

import dev.memsidecar.api.Embedder;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The provider's tables and their version.
 *
 * <p>{@code langmem_schema} holds one row with the version of the other tables. Opening a database
 * without it creates everything at {@link #VERSION}; a database at an older version is migrated
 * step by step; one at a newer version, written by a later release, is refused rather than misread.
 *
 * <ul>
 *   <li>{@code memory_records}: the source of truth, one row per record, primary key ({@code
 *       namespace}, {@code id}), indexed by ({@code namespace}, {@code created_at DESC}, {@code id
 *       DESC}) for listing, newest first. Columns: see {@link RecordRows}.
 *   <li>{@code memory_vectors}: the recall index, one row per ACTIVE record, primary key ({@code
 *       namespace}, {@code record_id}): {@code dimensions}, {@code embedding}, the vector as {@link
 *       VectorBytes} in the dialect's {@link SqlDialect#binaryType() binary type}, and {@code
 *       embedder}, the {@linkplain Embedder#name() name} of the embedder that made it (NULL: not
 *       known). {@link Reembedding} makes every vector the open store's embedder's when it opens.
 *   <li>{@code langmem_embedder}: at most one row ({@code id} 1): {@code name} and {@code
 *       dimensions} of the embedder that made every vector in {@code memory_vectors}. Absent while
 *       that is not known (a new or migrated database, a re-embedding under way), so opening with
 *       that embedder need not look at the vectors.
 * </ul>
 *
 * <h2>Versions</h2>
 *
 * <ol>
 *   <li>Vectors as JSON text ({@code embedding_json}, a float array).
 *   <li>Vectors as bytes. The migration from 1 adds {@code embedding} (nullable: SQL cannot add a
 *       NOT NULL column to a filled table everywhere, so new tables have it nullable too), converts
 *       the rows in primary-key order, {@value #MIGRATION_BATCH} per transaction, then drops {@code
 *       embedding_json} and records version 2. H2 commits each DDL statement on its own, so a crash
 *       can stop it between any two steps; each step looks at what the tables hold (is there an
 *       {@code embedding_json} column, an {@code embedding} column, rows whose {@code embedding} is
 *       still NULL) rather than at the version, so opening again carries on where it stopped.
 *   <li>The embedder's name with each vector. The migration from 2 adds the nullable {@code
 *       memory_vectors.embedder} column (NULL in every row it had: which embedder made them is not
 *       known) and the {@code langmem_embedder} table, each step only if not there yet; {@link
 *       Reembedding} then embeds those vectors again, in batches, when the store opens.
 *   <li>The listing index in listing order. The migration from 3 creates {@link #LISTING_INDEX} and
 *       drops the ascending index before it, so a page of {@link LangMemSqliteStore#list} reads its
 *       rows from the index in order instead of sorting the namespace.
 * </ol>
 */
final class Schema {
  /** The version this code reads and writes. */
  static final int VERSION = 4;

  /** Vector rows converted per transaction when migrating from version 1. */
  static final int MIGRATION_BATCH = 500;

  static final String VECTORS = "memory_vectors";
  static final List<String> VECTOR_COLUMNS =
      List.of("namespace", "record_id", "dimensions", "embedding", "embedder");
  static final List<String> VECTOR_KEY = List.of("namespace", "record_id");

  /** The table naming the embedder of every vector; see the class comment. */
  static final String EMBEDDER = "langmem_embedder";

  /** The longest embedder name ({@link dev.memsidecar.api.MemoryProvider#NAME}). */
  private static final int NAME_LENGTH = 64;

  /**
   * The listing index of version 4, in the order {@link LangMemSqliteStore#list} pages: newest
   * first. An ascending index cannot serve that order on H2, which then read and sorted a whole
   * namespace for every page.
   */
  static final String LISTING_INDEX = "memory_records_by_created_desc";

  private static final String LISTING_INDEX_DDL =
      "CREATE INDEX IF NOT EXISTS "
          + LISTING_INDEX
          + " ON "
          + RecordRows.TABLE
          + " (namespace, created_at DESC, id DESC)";

  /** The ascending listing index of versions 1-3. */
  private static final String LEGACY_LISTING_INDEX = "memory_records_by_created";

  private static final String LEGACY_JSON_COLUMN = "embedding_json";
  private static final System.Logger LOG = System.getLogger(Schema.class.getName());

  private Schema() {}

  /**
   * Creates or migrates the tables on {@code c} (in auto-commit mode before and after) and returns
   * the version found before: 0 for a new database. A result above {@link #VERSION} means the
   * tables were left alone because this code cannot read them.
   */
  static int ensure(Connection c, SqlDialect dialect) throws SQLException {
    int found =
        inTransaction(
            c,
            () -> {
              try (Statement st = c.createStatement()) {
                st.execute(
                    "CREATE TABLE IF NOT EXISTS langmem_schema ("
                        + "id INTEGER NOT NULL PRIMARY KEY, version INTEGER NOT NULL)");
                try (ResultSet rs =
                    st.executeQuery("SELECT version FROM langmem_schema WHERE id = 1")) {
                  return rs.next() ? rs.getInt(1) : 0;
                }
              }
            });
    if (found >= VERSION) {
      return found;
    }
    if (found == 0) {
      inTransaction(c, () -> createTables(c, dialect));
    }
    if (found < 2) {
      // Also for a new database: tables a crashed version-1 start-up created before writing its
      // version row have the version-1 shape, which CREATE TABLE IF NOT EXISTS leaves alone.
      migrateVectorsToBinary(c, dialect);
    }
    if (found < 3) {
      addEmbedderNames(c);
    }
    if (found < 4) {
      listNewestFirst(c);
    }
    inTransaction(
        c,
        () -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  found == 0
                      ? "INSERT INTO langmem_schema (version, id) VALUES (?, 1)"
                      : "UPDATE langmem_schema SET version = ? WHERE id = 1")) {
            st.setInt(1, VERSION);
            st.executeUpdate();
          }
          return null;
        });
    if (found > 0) {
      LOG.log(
          Level.INFO,
          () -> "langmem-sqlite: migrated the tables from version " + found + " to " + VERSION);
    }
    return found;
  }

  private static Void createTables(Connection c, SqlDialect dialect) throws SQLException {
    String text = dialect.textType();
    try (Statement st = c.createStatement()) {
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
      st.execute(LISTING_INDEX_DDL);
      st.execute(
          "CREATE TABLE IF NOT EXISTS "
              + VECTORS
              + " ("
              + "namespace VARCHAR(300) NOT NULL, "
              + "record_id VARCHAR(64) NOT NULL, "
              + "dimensions INTEGER NOT NULL, "
              + "embedding "
              + dialect.binaryType()
              + ", "
              + "embedder VARCHAR("
              + NAME_LENGTH
              + "), "
              + "PRIMARY KEY (namespace, record_id))");
    }
    return null;
  }

  /** Version 2 to 3: the {@code embedder} column and table. Idempotent. */
  private static void addEmbedderNames(Connection c) throws SQLException {
    try (Statement st = c.createStatement()) {
      if (!columnsOf(c, VECTORS).contains("embedder")) {
        st.execute("ALTER TABLE " + VECTORS + " ADD COLUMN embedder VARCHAR(" + NAME_LENGTH + ")");
      }
      st.execute(
          "CREATE TABLE IF NOT EXISTS "
              + EMBEDDER
              + " (id INTEGER NOT NULL PRIMARY KEY, name VARCHAR("
              + NAME_LENGTH
              + ") NOT NULL, dimensions INTEGER NOT NULL)");
    }
  }

  /** Version 3 to 4: the listing index becomes descending. Idempotent. */
  private static void listNewestFirst(Connection c) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(LISTING_INDEX_DDL);
      st.execute("DROP INDEX IF EXISTS " + LEGACY_LISTING_INDEX);
    }
  }

  /** Version 1 to 2: {@code embedding_json} text becomes {@code embedding} bytes. Idempotent. */
  private static void migrateVectorsToBinary(Connection c, SqlDialect dialect) throws SQLException {
    Set<String> columns = columnsOf(c, VECTORS);
    if (!columns.contains(LEGACY_JSON_COLUMN)) {
      return;
    }
    try (Statement st = c.createStatement()) {
      if (!columns.contains("embedding")) {
        st.execute("ALTER TABLE " + VECTORS + " ADD COLUMN embedding " + dialect.binaryType());
      }
    }
    String select =
        "SELECT namespace, record_id, "
            + LEGACY_JSON_COLUMN
            + " FROM "
            + VECTORS
            + " WHERE embedding IS NULL AND (namespace > ? OR (namespace = ? AND record_id > ?))"
            + " ORDER BY namespace, record_id LIMIT ?";
    String update =
        "UPDATE "
            + VECTORS
            + " SET embedding = ?, dimensions = ? WHERE namespace = ? AND record_id = ?";
    // Keys are never empty, so ("", "") is before every row.
    String[] after = {"", ""};
    long converted = 0;
    int batch;
    do {
      batch =
          inTransaction(
              c,
              () -> {
                int n = 0;
                try (PreparedStatement read = c.prepareStatement(select);
                    PreparedStatement write = c.prepareStatement(update)) {
                  read.setString(1, after[0]);
                  read.setString(2, after[0]);
                  read.setString(3, after[1]);
                  read.setInt(4, MIGRATION_BATCH);
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
    } while (batch == MIGRATION_BATCH);
    try (Statement st = c.createStatement()) {
      st.execute("ALTER TABLE " + VECTORS + " DROP COLUMN " + LEGACY_JSON_COLUMN);
    }
    long total = converted;
    LOG.log(Level.INFO, () -> "langmem-sqlite: converted " + total + " vectors to bytes");
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

  /** Work done in one transaction. */
  @FunctionalInterface
  interface Work<T> {
    T run() throws SQLException;
  }

  /** Runs {@code work} in a transaction on {@code c}: committed if it returns, else rolled back. */
  static <T> T inTransaction(Connection c, Work<T> work) throws SQLException {
    c.setAutoCommit(false);
    try {
      T result = work.run();
      c.commit();
      return result;
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
}
