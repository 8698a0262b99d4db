package dev.memsidecar.provider.langmem;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.jdbc.Database;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Makes every stored vector the one the open store's embedder gives, so that vectors of two models
 * (or of one model at two lengths) are never compared: run when a store opens, before it serves.
 *
 * <p>When {@code langmem_embedder} ({@link Schema}) names this embedder and its length, there is
 * nothing to do and the vectors are not read. Otherwise the row is deleted first (so a crash from
 * here on never leaves it claiming vectors it does not cover), then every vector row whose {@code
 * embedder} or {@code dimensions} is not this embedder's (or is NULL: made before version 3) is
 * embedded again from its record's text ({@link MemoryRecord#indexedText()}), namespace by
 * namespace in key order, {@value #BATCH} records per {@link Embedder#embedAll} call (one model run
 * for a model embedder) and per transaction, which writes the vectors with the embedder's name.
 * Then the row names this embedder. A crash at any point leaves batches done or not done, never
 * half; opening again carries on with the rows still not this embedder's. A vector row whose record
 * cannot be read (missing, or not written by this provider) is left empty under this embedder's
 * name, as a migration leaves an unreadable vector: embedded again whenever its namespace is
 * indexed. Progress is logged about every {@value #PROGRESS_SECONDS} s.
 *
 * <p>Stores of several processes may open one PostgreSQL database at once: the store runs this
 * under the database's migration lock ({@link Database#callExclusively}), and this looks at {@code
 * langmem_embedder} again first, so the second finds the work done.
 */
final class Reembedding {
  /** Records embedded per {@link Embedder#embedAll} call and written per transaction. */
  static final int BATCH = 64;

  static final long PROGRESS_SECONDS = 10;

  private static final System.Logger LOG = System.getLogger(Reembedding.class.getName());

  /** A vector row not made by the embedder; {@code v} holds the table's name. */
  private static final String OTHER_EMBEDDER =
      "(v.embedder IS NULL OR v.embedder <> ? OR v.dimensions <> ?)";

  private Reembedding() {}

  /**
   * Embeds again every vector {@code embedder} did not make, on {@code c} (in auto-commit mode
   * before and after), and returns how many.
   *
   * @throws IllegalStateException if the embedder returns a vector of another length than it says
   */
  static long run(Connection c, Embedder embedder, String profileId) throws SQLException {
    String name = embedder.name();
    int dimensions = embedder.dimensions();
    if (madeBy(c, name, dimensions)) {
      return 0;
    }
    Database.inTransaction(
        c,
        () -> {
          try (Statement st = c.createStatement()) {
            st.executeUpdate("DELETE FROM " + Schema.EMBEDDER);
          }
          return null;
        });
    Map<String, Long> todo = namespacesToDo(c, name, dimensions);
    long total = todo.values().stream().mapToLong(Long::longValue).sum();
    long done = 0;
    if (total > 0) {
      LOG.log(
          Level.INFO,
          () ->
              String.format(
                  Locale.ROOT,
                  "langmem-sqlite: profile '%s': embedding %,d vectors again with '%s' (%d"
                      + " dimensions), %d per batch",
                  profileId,
                  total,
                  name,
                  dimensions,
                  BATCH));
    }
    long started = System.nanoTime();
    long lastReport = started;
    for (String namespace : todo.keySet()) {
      String after = "";
      while (true) {
        List<Row> batch = read(c, namespace, after, name, dimensions);
        if (batch.isEmpty()) {
          break;
        }
        write(c, namespace, batch, embedder);
        after = batch.get(batch.size() - 1).id;
        done += batch.size();
        long now = System.nanoTime();
        if (now - lastReport >= TimeUnit.SECONDS.toNanos(PROGRESS_SECONDS)) {
          lastReport = now;
          long soFar = done;
          long elapsed = now - started;
          LOG.log(
              Level.INFO,
              () ->
                  String.format(
                      Locale.ROOT,
                      "langmem-sqlite: profile '%s': embedded %,d of %,d vectors again (%.0f/s)",
                      profileId,
                      soFar,
                      total,
                      soFar / (elapsed / 1e9)));
        }
        if (batch.size() < BATCH) {
          break;
        }
      }
    }
    Database.inTransaction(
        c,
        () -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  "INSERT INTO " + Schema.EMBEDDER + " (id, name, dimensions) VALUES (1, ?, ?)")) {
            st.setString(1, name);
            st.setInt(2, dimensions);
            st.executeUpdate();
          }
          return null;
        });
    if (done > 0) {
      long count = done;
      long millis = (System.nanoTime() - started) / 1_000_000;
      LOG.log(
          Level.INFO,
          () ->
              String.format(
                  Locale.ROOT,
                  "langmem-sqlite: profile '%s': embedded %,d vectors again with '%s' in %,d ms",
                  profileId,
                  count,
                  name,
                  millis));
    }
    return done;
  }

  /** Whether {@code langmem_embedder} says every vector is {@code embedder}'s: nothing to do. */
  static boolean isDone(Connection c, Embedder embedder) throws SQLException {
    return madeBy(c, embedder.name(), embedder.dimensions());
  }

  /** Whether {@code langmem_embedder} says every vector is this embedder's. */
  private static boolean madeBy(Connection c, String name, int dimensions) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT name, dimensions FROM " + Schema.EMBEDDER + " WHERE id = 1")) {
      return rs.next() && name.equals(rs.getString(1)) && rs.getInt(2) == dimensions;
    }
  }

  /** The namespaces holding vectors of another embedder, in order, and how many each. */
  private static Map<String, Long> namespacesToDo(Connection c, String name, int dimensions)
      throws SQLException {
    Map<String, Long> out = new LinkedHashMap<>();
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT v.namespace, COUNT(*) FROM "
                + Schema.VECTORS
                + " v WHERE "
                + OTHER_EMBEDDER
                + " GROUP BY v.namespace ORDER BY v.namespace")) {
      st.setString(1, name);
      st.setInt(2, dimensions);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1), rs.getLong(2));
        }
      }
    }
    return out;
  }

  /** A vector row to embed again: its record, or null if that cannot be read. */
  private record Row(String id, MemoryRecord record) {}

  /** The next {@value #BATCH} rows of {@code namespace} after id {@code after} to embed again. */
  private static List<Row> read(
      Connection c, String namespace, String after, String name, int dimensions)
      throws SQLException {
    List<Row> out = new ArrayList<>(BATCH);
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT v.record_id, "
                + RecordRows.selectList("r.")
                + " FROM "
                + Schema.VECTORS
                + " v LEFT JOIN "
                + RecordRows.TABLE
                + " r ON r.namespace = v.namespace AND r.id = v.record_id"
                + " WHERE v.namespace = ? AND v.record_id > ? AND "
                + OTHER_EMBEDDER
                // Ordered by both key columns, so H2 reads the key index in order and stops at the
                // limit (ordered by record_id alone, it sorts the whole rest of the namespace).
                + " ORDER BY v.namespace, v.record_id LIMIT ?")) {
      st.setString(1, namespace);
      st.setString(2, after);
      st.setString(3, name);
      st.setInt(4, dimensions);
      st.setInt(5, BATCH);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          String id = rs.getString(1);
          MemoryRecord record;
          try {
            record = rs.getString(2) == null ? null : RecordRows.read(rs, 2);
          } catch (MemoryException e) {
            record = null;
          }
          if (record == null) {
            LOG.log(
                Level.WARNING,
                () ->
                    "langmem-sqlite: the record of vector "
                        + namespace
                        + "/"
                        + id
                        + " is missing or unreadable; its vector is left empty");
          }
          out.add(new Row(id, record));
        }
      }
    }
    return out;
  }

  /** Embeds {@code batch} with one {@link Embedder#embedAll} call and writes it in one commit. */
  private static void write(Connection c, String namespace, List<Row> batch, Embedder embedder)
      throws SQLException {
    List<String> texts = new ArrayList<>(batch.size());
    for (Row row : batch) {
      if (row.record != null) {
        texts.add(row.record.indexedText());
      }
    }
    List<float[]> vectors = texts.isEmpty() ? List.of() : embedder.embedAll(texts);
    if (vectors.size() != texts.size()) {
      throw new IllegalStateException(
          "embedder '"
              + embedder.name()
              + "' returned "
              + vectors.size()
              + " vectors for "
              + texts.size()
              + " texts");
    }
    Database.inTransaction(
        c,
        () -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  "UPDATE "
                      + Schema.VECTORS
                      + " SET embedding = ?, dimensions = ?, embedder = ?"
                      + " WHERE namespace = ? AND record_id = ?")) {
            int next = 0;
            for (Row row : batch) {
              float[] vector = row.record == null ? new float[0] : vectors.get(next++);
              if (row.record != null && vector.length != embedder.dimensions()) {
                throw new IllegalStateException(
                    "embedder '"
                        + embedder.name()
                        + "' returned a vector of "
                        + vector.length
                        + " dimensions; it says "
                        + embedder.dimensions());
              }
              st.setBytes(1, VectorBytes.encode(vector));
              st.setInt(2, vector.length);
              st.setString(3, embedder.name());
              st.setString(4, namespace);
              st.setString(5, row.id);
              st.addBatch();
            }
            st.executeBatch();
          }
          return null;
        });
  }
}
