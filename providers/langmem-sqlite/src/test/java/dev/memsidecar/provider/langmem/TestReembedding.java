package dev.memsidecar.provider.langmem;

import static dev.memsidecar.provider.langmem.Fixtures.T0;
import static dev.memsidecar.provider.langmem.Fixtures.record;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.toolkit.HashEmbedder;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each stored vector names the embedder that made it, and a store opened with another embedder
 * embeds the vectors again before it serves, in batches, so vectors of two models are never mixed,
 * even when they have the same length.
 */
class TestReembedding {
  private static final Namespace ALICE = Namespace.of("acme:user:alice:user");
  private static final Namespace BOB = Namespace.of("acme:user:bob:user");

  @TempDir Path dir;

  @Test
  void reopeningWithAnotherEmbedderOfTheSameLengthEmbedsEveryVectorAgain() throws SQLException {
    Fixtures.ModelEmbedder a = new Fixtures.ModelEmbedder("model-a");
    List<MemoryRecord> records = records(ALICE, 2 * Reembedding.BATCH + 10);
    records.addAll(records(BOB, 5));
    try (MemoryStore store = Fixtures.open(dir, a)) {
      records.forEach(store::put);
    }
    assertVectorsMadeBy(a, records);

    Fixtures.ModelEmbedder b = new Fixtures.ModelEmbedder("model-b");
    try (MemoryStore store = Fixtures.open(dir, b)) {
      // Namespace by namespace, at most a batch per model run.
      assertEquals(List.of(Reembedding.BATCH, Reembedding.BATCH, 10, 5), b.embedAllSizes());
      MemoryRecord target = records.get(7);
      assertEquals(target, store.search(ALICE, query(target.content())).get(0).record());
    }
    assertVectorsMadeBy(b, records);
  }

  @Test
  void reopeningWithTheSameEmbedderEmbedsNothingAgain() {
    Fixtures.ModelEmbedder a = new Fixtures.ModelEmbedder("model-a");
    List<MemoryRecord> records = records(ALICE, 20);
    try (MemoryStore store = Fixtures.open(dir, a)) {
      records.forEach(store::put);
    }
    Fixtures.ModelEmbedder again = new Fixtures.ModelEmbedder("model-a");
    try (MemoryStore store = Fixtures.open(dir, again)) {
      assertEquals(
          records.get(3), store.search(ALICE, query(records.get(3).content())).get(0).record());
    }
    assertEquals(List.of(), again.embedAllSizes());
  }

  @Test
  void aReembeddingStoppedHalfwayCarriesOnWhenOpenedAgain() throws SQLException {
    List<MemoryRecord> records = records(ALICE, 3 * Reembedding.BATCH);
    try (MemoryStore store = Fixtures.open(dir)) {
      records.forEach(store::put);
    }

    Fixtures.ModelEmbedder failing = new Fixtures.ModelEmbedder("model-b", 1);
    assertThrows(IllegalStateException.class, () -> Fixtures.open(dir, failing));
    try (Connection c = Fixtures.connect(dir)) {
      Map<String, String> names = embedderNames(c);
      assertEquals(
          Reembedding.BATCH,
          names.values().stream().filter("model-b"::equals).count(),
          "the first batch was written before the stop");
      assertEquals(null, embedderRow(c), "no claim while vectors of two embedders are stored");
    }

    Fixtures.ModelEmbedder b = new Fixtures.ModelEmbedder("model-b");
    try (MemoryStore store = Fixtures.open(dir, b)) {
      assertEquals(List.of(Reembedding.BATCH, Reembedding.BATCH), b.embedAllSizes());
      MemoryRecord target = records.get(records.size() - 1);
      assertEquals(target, store.search(ALICE, query(target.content())).get(0).record());
    }
    assertVectorsMadeBy(b, records);
  }

  @Test
  void switchingBackEmbedsTheVectorsAgainToo() throws SQLException {
    List<MemoryRecord> records = records(ALICE, 10);
    try (MemoryStore store = Fixtures.open(dir)) {
      records.forEach(store::put);
    }
    Fixtures.ModelEmbedder b = new Fixtures.ModelEmbedder("model-b");
    Fixtures.open(dir, b).close();
    assertVectorsMadeBy(b, records);
    Fixtures.open(dir).close();
    assertVectorsMadeBy(new HashEmbedder(), records);
  }

  @Test
  void aVectorWhoseRecordCannotBeReadIsLeftEmptyAndTheStoreOpens() throws SQLException {
    List<MemoryRecord> records = records(ALICE, 10);
    try (MemoryStore store = Fixtures.open(dir)) {
      records.forEach(store::put);
    }
    String broken = records.get(0).id();
    try (Connection c = Fixtures.connect(dir);
        PreparedStatement st =
            c.prepareStatement("UPDATE memory_records SET metadata_json = '{' WHERE id = ?")) {
      st.setString(1, broken);
      st.executeUpdate();
    }

    Fixtures.ModelEmbedder b = new Fixtures.ModelEmbedder("model-b");
    try (MemoryStore store = Fixtures.open(dir, b)) {
      MemoryException e = assertThrows(MemoryException.class, () -> store.get(ALICE, broken));
      assertEquals(MemoryException.Code.INTERNAL, e.code());
    }
    try (Connection c = Fixtures.connect(dir)) {
      Map<String, float[]> vectors = vectors(c);
      assertArrayEquals(new float[0], vectors.get(broken));
      for (MemoryRecord r : records.subList(1, records.size())) {
        assertArrayEquals(
            VectorBytes.rounded(b.embed(r.indexedText())), vectors.get(r.id()), r.id());
      }
    }
  }

  /** Every record's stored vector is {@code embedder}'s and names it; the claim row too. */
  private void assertVectorsMadeBy(Embedder embedder, List<MemoryRecord> records)
      throws SQLException {
    try (Connection c = Fixtures.connect(dir)) {
      Map<String, float[]> vectors = vectors(c);
      Map<String, String> names = embedderNames(c);
      assertEquals(records.size(), vectors.size());
      for (MemoryRecord r : records) {
        assertArrayEquals(
            VectorBytes.rounded(embedder.embed(r.indexedText())), vectors.get(r.id()), r.id());
        assertEquals(embedder.name(), names.get(r.id()), r.id());
      }
      assertEquals(embedder.name() + " " + embedder.dimensions(), embedderRow(c));
    }
  }

  private static List<MemoryRecord> records(Namespace ns, int count) {
    List<MemoryRecord> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(
          record(
              ns,
              (ns.equals(ALICE) ? "a" : "b") + String.format(Locale.ROOT, "%04d", i),
              "note " + i + " about lighthouse " + (i * 7919 % 1000) + " and harbour " + i,
              T0.plusMillis(i)));
    }
    return out;
  }

  private static SearchQuery query(String text) {
    return new SearchQuery(text, null, 5, Set.of(), List.of(), 0f, T0.plusSeconds(60));
  }

  private static Map<String, float[]> vectors(Connection c) throws SQLException {
    Map<String, float[]> out = new HashMap<>();
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT record_id, embedding, dimensions FROM memory_vectors")) {
      while (rs.next()) {
        out.put(rs.getString(1), VectorBytes.decode(rs.getBytes(2), rs.getInt(3)));
      }
    }
    return out;
  }

  private static Map<String, String> embedderNames(Connection c) throws SQLException {
    Map<String, String> out = new HashMap<>();
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT record_id, embedder FROM memory_vectors")) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getString(2));
      }
    }
    return out;
  }

  private static String embedderRow(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT name, dimensions FROM langmem_embedder")) {
      return rs.next() ? rs.getString(1) + " " + rs.getInt(2) : null;
    }
  }
}
