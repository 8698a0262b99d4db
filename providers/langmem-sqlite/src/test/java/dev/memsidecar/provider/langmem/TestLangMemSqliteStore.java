package dev.memsidecar.provider.langmem;

import static dev.memsidecar.provider.langmem.Fixtures.T0;
import static dev.memsidecar.provider.langmem.Fixtures.record;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.PendingVectors;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.api.Validity;
import dev.memsidecar.toolkit.HashEmbedder;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What is particular to this store: its rows and their encodings, the per-namespace index it builds
 * from them and keeps current, and the range of times its columns hold. The behaviour every store
 * shares is {@link TestLangMemSqliteConformance}'s.
 */
class TestLangMemSqliteStore {
  private static final Namespace ALICE = Namespace.of("acme:user:alice:user");

  @TempDir Path dir;
  private MemoryStore store;

  @BeforeEach
  void openStore() {
    store = Fixtures.open(dir);
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  private static SearchQuery query(String text) {
    return new SearchQuery(text, null, 10, Set.of(), List.of(), 0f, T0.plusSeconds(60));
  }

  @Test
  void vectorsAreStoredAsBytesForActiveRecordsOnly() throws SQLException {
    MemoryRecord active =
        record(ALICE, "active", "vectors are bytes now").toBuilder().context("ctx").build();
    store.put(active);
    store.put(
        record(ALICE, "gone", "forgotten has no vector").toBuilder()
            .status(MemoryStatus.FORGOTTEN)
            .build());
    awaitVectors();

    try (Connection c = Fixtures.connect(dir);
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT record_id, dimensions, embedding FROM memory_vectors")) {
      assertTrue(rs.next());
      assertEquals("active", rs.getString(1));
      assertEquals(HashEmbedder.DEFAULT_DIMENSIONS, rs.getInt(2));
      byte[] bytes = rs.getBytes(3);
      assertEquals(HashEmbedder.DEFAULT_DIMENSIONS * 2, bytes.length, "float16: 2 bytes a float");
      assertArrayEquals(
          VectorBytes.rounded(new HashEmbedder().embed(active.indexedText())),
          VectorBytes.decode(bytes, HashEmbedder.DEFAULT_DIMENSIONS));
      assertFalse(rs.next(), "a row for the forgotten record");
    }
  }

  @Test
  void listsAndMapsAreJsonTextWithMapKeysSorted() throws SQLException {
    store.put(
        record(ALICE, "r", "json columns").toBuilder()
            .tags(List.of("zulu", "alpha", "say \"hi\""))
            .metadata(Map.of("b", "2", "a", "1", "c", "line\nbreak"))
            .sourceRefs(List.of("run:42"))
            .build());

    try (Connection c = Fixtures.connect(dir);
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT tags_json, metadata_json, source_refs_json FROM memory_records")) {
      assertTrue(rs.next());
      assertEquals("[\"zulu\",\"alpha\",\"say \\\"hi\\\"\"]", rs.getString(1));
      assertEquals("{\"a\":\"1\",\"b\":\"2\",\"c\":\"line\\nbreak\"}", rs.getString(2));
      assertEquals("[\"run:42\"]", rs.getString(3));
    }
  }

  @Test
  void aRowThisStoreDidNotWriteIsInternal() throws SQLException {
    store.put(record(ALICE, "bad-json", "x"));
    store.put(record(ALICE, "dup-key", "y"));
    try (Connection c = Fixtures.connect(dir);
        PreparedStatement st =
            c.prepareStatement("UPDATE memory_records SET metadata_json = ? WHERE id = ?")) {
      st.setString(1, "{\"a\":\"1\"");
      st.setString(2, "bad-json");
      st.executeUpdate();
      st.setString(1, "{\"a\":\"1\",\"a\":\"2\"}");
      st.setString(2, "dup-key");
      st.executeUpdate();
    }

    for (String id : List.of("bad-json", "dup-key")) {
      MemoryException e = assertThrows(MemoryException.class, () -> store.get(ALICE, id), id);
      assertEquals(MemoryException.Code.INTERNAL, e.code());
      assertTrue(e.getMessage().contains("'" + id + "'"), e.getMessage());
    }
    MemoryException list =
        assertThrows(
            MemoryException.class, () -> store.list(ALICE, new ListQuery(10, null, false)));
    assertEquals(MemoryException.Code.INTERNAL, list.code());
  }

  @Test
  void instantsOutsideTheStoredRangeAreInvalidArguments() {
    MemoryException farFuture =
        assertThrows(
            MemoryException.class,
            () -> store.put(record(ALICE, "far", "x", Instant.parse("2300-01-01T00:00:00Z"))));
    assertEquals(MemoryException.Code.INVALID_ARGUMENT, farFuture.code());
    assertEquals("create_time", farFuture.field());

    MemoryException expiry =
        assertThrows(
            MemoryException.class,
            () ->
                store.put(
                    record(ALICE, "far", "x").toBuilder()
                        .validity(Validity.SHORT_TERM)
                        .expireTime(Instant.MAX)
                        .build()));
    assertEquals(MemoryException.Code.INVALID_ARGUMENT, expiry.code());
    assertEquals("expire_time", expiry.field());

    assertTrue(store.get(ALICE, "far").isEmpty());
    MemoryRecord edge = record(ALICE, "edge", "before 1970", Instant.EPOCH.minusNanos(1));
    store.put(edge);
    assertEquals(edge, store.get(ALICE, "edge").orElseThrow());
  }

  @Test
  void theIndexFollowsWritesMadeAfterItWasBuilt() {
    store.put(record(ALICE, "old", "first memory about elasticsearch"));
    assertEquals(Set.of("old"), idSet(store.search(ALICE, query("elasticsearch"))));

    store.put(record(ALICE, "new", "second memory about elasticsearch shards"));
    assertEquals(Set.of("old", "new"), idSet(store.search(ALICE, query("elasticsearch"))));

    store.put(
        record(ALICE, "old", "first memory about elasticsearch").toBuilder()
            .status(MemoryStatus.SUPERSEDED)
            .build());
    assertEquals(Set.of("new"), idSet(store.search(ALICE, query("elasticsearch"))));

    store.put(record(ALICE, "old", "first memory about elasticsearch"));
    assertEquals(Set.of("old", "new"), idSet(store.search(ALICE, query("elasticsearch"))));

    store.delete(ALICE, "new");
    assertEquals(Set.of("old"), idSet(store.search(ALICE, query("elasticsearch"))));
  }

  @Test
  void reopeningLoadsTheIndexesOfTheNamespacesWrittenLastWithoutASearch() throws Exception {
    for (int i = 0; i < LangMemSqliteStore.WARMED_NAMESPACES + 2; i++) {
      store.put(record(Namespace.of("tenant:" + i), "r", "tenant " + i + " keeps bees"));
    }
    store.close();
    store = Fixtures.open(dir);
    LangMemSqliteStore reopened = (LangMemSqliteStore) store;
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (reopened.indexedNamespaces() < LangMemSqliteStore.WARMED_NAMESPACES
        && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertEquals(LangMemSqliteStore.WARMED_NAMESPACES, reopened.indexedNamespaces());
    assertEquals(
        Set.of("r"), idSet(store.search(Namespace.of("tenant:0"), query("bees"))), "not warmed");
    assertEquals(Set.of("r"), idSet(store.search(Namespace.of("tenant:5"), query("bees"))));
  }

  @Test
  void searchStaysCorrectForNamespacesDroppedFromMemory() {
    int namespaces = LangMemSqliteStore.INDEXED_NAMESPACES + 20;
    for (int i = 0; i < namespaces; i++) {
      Namespace ns = Namespace.of("tenant:" + i);
      store.put(record(ns, "r", "tenant " + i + " likes lighthouses"));
      assertEquals(1, store.search(ns, query("lighthouses")).size());
    }
    assertTrue(
        ((LangMemSqliteStore) store).indexedNamespaces() <= LangMemSqliteStore.INDEXED_NAMESPACES);

    // Namespace 0 was dropped first; writes while it is out of memory must show on its return.
    Namespace first = Namespace.of("tenant:0");
    store.put(record(first, "r2", "a second lighthouse note"));
    store.delete(first, "r");
    assertEquals(Set.of("r2"), idSet(store.search(first, query("lighthouse"))));
  }

  @Test
  void aRecordWhoseTextDidNotChangeIsNotEmbeddedAgain() {
    store.close();
    CountingEmbedder embedder = new CountingEmbedder();
    store = open(embedder);
    MemoryRecord r = record(ALICE, "r", "kafka consumer lag pages the on-call");
    store.put(r);
    awaitVectors();
    assertEquals(1, embedder.embedded(r));

    store.search(ALICE, query("kafka")); // builds the index from the stored vector
    store.put(r.toBuilder().tags(List.of("ops")).updateTime(T0.plusSeconds(1)).build());
    assertEquals(1, embedder.embedded(r));

    MemoryRecord changed = r.toBuilder().context("new context").build();
    store.put(changed);
    awaitVectors();
    assertEquals(1, embedder.embedded(changed));
    assertEquals("r", store.search(ALICE, query("kafka lag")).get(0).record().id());
  }

  @Test
  void vectorsOfAnotherEmbedderAreEmbeddedAgainWhenIndexed() {
    store.close();
    store = open(new HashEmbedder(64));
    for (int i = 0; i < 10; i++) {
      store.put(record(ALICE, "n" + i, "unrelated note number " + i));
    }
    store.put(record(ALICE, "target", "rotate the grafana token every ninety days"));
    store.close();

    store = Fixtures.open(dir);
    List<ScoredRecord> hits = store.search(ALICE, query("rotate grafana token"));
    assertEquals("target", hits.get(0).record().id());
    float[] q = new HashEmbedder().embed("rotate grafana token");
    float[] target =
        VectorBytes.rounded(new HashEmbedder().embed(hits.get(0).record().indexedText()));
    assertEquals(0.5f * Embedder.cosine(q, target) + 0.5f, hits.get(0).score(), 1e-5f);
  }

  @Test
  void writesFromManyThreadsDuringTheFirstSearchAreAllFoundAfterIt() throws Exception {
    for (int i = 0; i < 2_000; i++) {
      store.put(record(ALICE, "old" + i, "older note number " + i + " about the harbour"));
    }
    store.close();
    store = Fixtures.open(dir);

    int writers = 4;
    int each = 50;
    ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < each; i++) {
                    store.put(record(ALICE, "new-" + writer + "-" + i, word(writer, i) + " note"));
                    if (i % 10 == 5) {
                      store.delete(ALICE, "old" + (writer * each + i));
                    }
                  }
                  return null;
                }));
      }
      // The first search builds the index from the database while the writers commit.
      done.add(pool.submit(() -> store.search(ALICE, query("harbour"))));
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    for (int w = 0; w < writers; w++) {
      for (int i = 0; i < each; i++) {
        List<ScoredRecord> hits = store.search(ALICE, query(word(w, i)));
        assertEquals("new-" + w + "-" + i, hits.get(0).record().id(), word(w, i));
        if (i % 10 == 5) {
          String deleted = "old" + (w * each + i);
          assertTrue(
              store.search(ALICE, query("older note number " + (w * each + i))).stream()
                  .noneMatch(h -> h.record().id().equals(deleted)),
              deleted);
        }
      }
    }
  }

  @Test
  void aPutReturnsBeforeItsVectorAndASearchByMeaningWaitsForIt() throws Exception {
    store.close();
    Fixtures.GatedEmbedder embedder = new Fixtures.GatedEmbedder();
    store = open(embedder);
    MemoryRecord r = record(ALICE, "r", "the staging cluster runs in frankfurt");
    store.put(r); // returns although the embedder is shut
    assertEquals(1, store.pendingVectors().records());

    // Found by its words at once (a zero query vector asks for words alone).
    float[] none = new float[embedder.dimensions()];
    SearchQuery byWords =
        new SearchQuery("staging cluster", none, 10, Set.of(), List.of(), 0f, T0.plusSeconds(60));
    assertEquals(Set.of("r"), idSet(store.search(ALICE, byWords)));

    // A search by meaning waits until the vector written before it landed.
    float[] q = new HashEmbedder().embed("staging cluster");
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<List<ScoredRecord>> search =
          pool.submit(
              () ->
                  store.search(
                      ALICE,
                      new SearchQuery(
                          "staging cluster", q, 10, Set.of(), List.of(), 0f, T0.plusSeconds(60))));
      Thread.sleep(200);
      assertFalse(search.isDone(), "the search did not wait for the vector");
      assertTrue(
          store.pendingVectors().oldestWait().toMillis() >= 200,
          "waited since the put: " + store.pendingVectors());
      embedder.open.countDown();
      List<ScoredRecord> hits = search.get();
      float[] v = VectorBytes.rounded(new HashEmbedder().embed(r.indexedText()));
      assertEquals(
          0.5f * Embedder.cosine(q, v) + 0.5f,
          hits.get(0).score(),
          1e-5f,
          "scored with its vector");
    } finally {
      pool.shutdownNow();
    }
    assertEquals(PendingVectors.NONE, store.pendingVectors());
  }

  @Test
  void aSearchByMeaningBehindABulkLoadDoesNotWaitForItsVectors() throws Exception {
    store.close();
    Fixtures.GatedEmbedder embedder = new Fixtures.GatedEmbedder();
    store = open(embedder);
    int loaded = ((LangMemSqliteStore) store).searchWaitBacklog() + 1;
    for (int i = 0; i < loaded; i++) {
      store.put(record(ALICE, "bulk" + i, "bulk note " + i + " about the ferry timetable"));
    }
    assertEquals(loaded, store.pendingVectors().records());
    float[] q = new HashEmbedder().embed("ferry timetable");
    SearchQuery byMeaning =
        new SearchQuery("ferry timetable", q, 5, Set.of(), List.of(), 0f, T0.plusSeconds(60));
    try {
      // Answers with the embedder still shut, sooner than a search that waited would give up:
      // the waiting records are ranked by their words.
      long started = System.nanoTime();
      List<ScoredRecord> hits = store.search(ALICE, byMeaning);
      long tookMillis = (System.nanoTime() - started) / 1_000_000;
      assertTrue(
          tookMillis < LangMemSqliteStore.SEARCH_WAIT_MILLIS, "waited " + tookMillis + " ms");
      assertEquals(5, hits.size());
      assertTrue(hits.stream().allMatch(h -> h.record().id().startsWith("bulk")), hits.toString());
      assertEquals(loaded, store.pendingVectors().records());
    } finally {
      embedder.open.countDown();
    }
  }

  @Test
  void recordsLeftWithoutAVectorAreEmbeddedWhenTheStoreOpens() throws SQLException {
    for (int i = 0; i < 20; i++) {
      store.put(record(ALICE, "n" + i, "note number " + i + " about the lighthouse"));
    }
    awaitVectors();
    store.close();
    // What a kill -9 between a put and its vector leaves.
    try (Connection c = Fixtures.connect(dir);
        Statement st = c.createStatement()) {
      st.executeUpdate("DELETE FROM memory_vectors WHERE record_id <> 'n0'");
    }

    store = Fixtures.open(dir);
    awaitVectors();
    try (Connection c = Fixtures.connect(dir);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM memory_vectors")) {
      assertTrue(rs.next());
      assertEquals(20, rs.getInt(1));
    }
    float[] q = new HashEmbedder().embed("note number 7 about the lighthouse");
    List<ScoredRecord> hits = store.search(ALICE, query("note number 7 about the lighthouse"));
    assertEquals("n7", hits.get(0).record().id());
    float[] v = new HashEmbedder().embed(hits.get(0).record().indexedText());
    assertEquals(0.5f * Embedder.cosine(q, v) + 0.5f, hits.get(0).score(), 1e-5f);
  }

  /** Waits until the store has made the vector of every record put so far. */
  private void awaitVectors() {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (store.pendingVectors().records() > 0) {
      assertTrue(System.nanoTime() < deadline, "vectors still pending after 10 s");
      Thread.onSpinWait();
    }
  }

  /** A word made for writer {@code w}'s record {@code i}, found in no other record. */
  private static String word(int w, int i) {
    return "zq" + (char) ('a' + w) + (char) ('a' + i / 26) + (char) ('a' + i % 26);
  }

  private MemoryStore open(Embedder embedder) {
    return new LangMemSqliteProvider()
        .open(new ProviderContext("workspace", dir, Map.of(), embedder));
  }

  private static Set<String> idSet(List<ScoredRecord> hits) {
    Set<String> out = new HashSet<>();
    for (ScoredRecord h : hits) {
      out.add(h.record().id());
    }
    return out;
  }

  /** The hash embedder, counting how often it embedded each text. */
  private static final class CountingEmbedder implements Embedder {
    private final HashEmbedder delegate = new HashEmbedder();
    private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

    int embedded(MemoryRecord r) {
      AtomicInteger n = counts.get(r.indexedText());
      return n == null ? 0 : n.get();
    }

    @Override
    public String name() {
      return "counting";
    }

    @Override
    public int dimensions() {
      return delegate.dimensions();
    }

    @Override
    public float[] embed(String text) {
      counts.computeIfAbsent(text, t -> new AtomicInteger()).incrementAndGet();
      return delegate.embed(text);
    }
  }
}
