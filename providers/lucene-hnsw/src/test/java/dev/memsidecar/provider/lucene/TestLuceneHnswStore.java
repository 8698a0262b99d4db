package dev.memsidecar.provider.lucene;

import static dev.memsidecar.provider.lucene.Fixtures.T0;
import static dev.memsidecar.provider.lucene.Fixtures.record;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Page;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.toolkit.HashEmbedder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestLuceneHnswStore {
  private static final Namespace ALICE = Namespace.of("acme:user:alice:user");
  private static final Namespace BOB = Namespace.of("acme:user:bob:user");

  @TempDir Path dir;
  private final List<LuceneHnswStore> opened = new ArrayList<>();

  @AfterEach
  void closeStores() {
    opened.forEach(LuceneHnswStore::close);
  }

  private LuceneHnswStore open(Map<String, String> settings) {
    return open(dir, settings, new HashEmbedder());
  }

  private LuceneHnswStore open(Path where, Map<String, String> settings, Embedder embedder) {
    LuceneHnswStore store = Fixtures.open(where, settings, embedder);
    opened.add(store);
    return store;
  }

  private static SearchQuery query(String text, int topK) {
    return new SearchQuery(text, null, topK, Set.of(), List.of(), 0f, T0.plusSeconds(60));
  }

  private static List<String> ids(List<ScoredRecord> hits) {
    return hits.stream().map(h -> h.record().id()).toList();
  }

  private static String first(LuceneHnswStore store, Namespace ns, String text) {
    List<ScoredRecord> hits = store.search(ns, query(text, 5));
    assertFalse(hits.isEmpty(), "no hits for '" + text + "'");
    return hits.get(0).record().id();
  }

  // ---- text matching

  @Test
  public void englishMatchesAcrossInflectionsAndCase() {
    LuceneHnswStore store = open(Map.of());
    store.put(record(ALICE, "fence", "We painted the garden fence on Sunday"));
    store.put(record(ALICE, "k8s", "The deployment runs on Kubernetes clusters"));
    store.put(record(ALICE, "lunch", "Lunch was pasta with friends"));

    assertEquals("fence", first(store, ALICE, "when did they paint?"));
    assertEquals("k8s", first(store, ALICE, "KUBERNETES cluster"));
    assertEquals("lunch", first(store, ALICE, "friend's lunches"));
  }

  @Test
  public void chineseMatchesByWordAndBySingleCharacter() {
    LuceneHnswStore store = open(Map.of());
    store.put(record(ALICE, "release", "我们周五发布新版本"));
    store.put(record(ALICE, "style", "用户喜欢简洁的回答"));
    store.put(record(ALICE, "db", "数据库迁移安排在周一"));
    store.put(record(ALICE, "api", "The API key rotates monthly"));

    assertEquals("release", first(store, ALICE, "发布"));
    assertEquals("style", first(store, ALICE, "简洁回答"));
    assertEquals("db", first(store, ALICE, "库"));
    assertEquals("release", first(store, ALICE, "什么时候发布?"));
    // Full-width Latin folds to ASCII.
    assertEquals("api", first(store, ALICE, "ＡＰＩ"));
  }

  @Test
  public void contextIsSearchedButNeverReturnedAsContent() {
    LuceneHnswStore store = open(Map.of());
    MemoryRecord tea =
        record(ALICE, "tea", "The user prefers green tea").toBuilder()
            .context("assistant: we talked about zeppelins earlier")
            .build();
    store.put(tea);
    store.put(record(ALICE, "coffee", "The user drinks coffee"));

    List<ScoredRecord> hits = store.search(ALICE, query("zeppelins", 5));
    assertEquals("tea", hits.get(0).record().id());
    assertEquals(tea, hits.get(0).record());
    assertEquals("The user prefers green tea", hits.get(0).record().content());
  }

  // ---- filters inside the searches

  @Test
  public void namespaceFilterRunsInsideKnnNotAfterIt() {
    // A lower beam width only to build the graph of 20,000 vectors faster.
    LuceneHnswStore store = open(Map.of("hnsw.beam_width", "32"));
    Namespace big = Namespace.of("big");
    Namespace mid = Namespace.of("mid");
    Namespace small = Namespace.of("small");
    String topic = "kubernetes cluster upgrade rollout";
    List<MemoryRecord> bulk = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      bulk.add(record(big, "b" + i, topic + " step " + i, T0.plusMillis(i)));
    }
    store.putAll(big, bulk);
    List<MemoryRecord> middle = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      middle.add(record(mid, "m" + i, "kubernetes note " + i + " about lunch and weather", T0));
    }
    store.putAll(mid, middle);
    for (int i = 0; i < 5; i++) {
      store.put(record(small, "s" + i, "weekly lunch menu number " + i + " cluster", T0));
    }

    // Vector only (no query text): every big record is closer to the query than any small one,
    // so a filter applied after a global top-k would find none of the five.
    float[] q = new HashEmbedder().embed(topic);
    SearchQuery byVector = new SearchQuery("", q, 10, Set.of(), List.of(), 0f, T0.plusSeconds(60));
    List<ScoredRecord> smallHits = store.search(small, byVector);
    assertEquals(List.of("s0", "s1", "s2", "s3", "s4"), ids(smallHits).stream().sorted().toList());
    float bestSmall = smallHits.get(0).score();
    SearchQuery byVectorDeep =
        new SearchQuery("", q, 1000, Set.of(), List.of(), 0f, T0.plusSeconds(60));
    List<ScoredRecord> bigHits = store.search(big, byVectorDeep);
    assertEquals(1000, bigHits.size());
    assertTrue(
        bigHits.get(999).score() > bestSmall,
        "the 1000th big record outscores the best small one: "
            + bigHits.get(999).score()
            + " vs "
            + bestSmall);

    // 300 records: more than the kNN depth, so Lucene walks the graph with the filter.
    List<ScoredRecord> midHits = store.search(mid, byVector);
    assertEquals(10, midHits.size());
    assertTrue(midHits.stream().allMatch(h -> h.record().namespace().equals(mid)));

    // Hybrid: the small namespace's records share the word "cluster" with the query.
    List<ScoredRecord> hybrid = store.search(small, query(topic, 10));
    assertEquals(List.of("s0", "s1", "s2", "s3", "s4"), ids(hybrid).stream().sorted().toList());
  }

  @Test
  public void inactiveRecordsKeepTheirDocumentButAreNeverSearched() {
    LuceneHnswStore store = open(Map.of());
    MemoryRecord r = record(ALICE, "r1", "the staging password rotates weekly");
    store.put(r.toBuilder().status(MemoryStatus.FORGOTTEN).build());
    store.put(record(ALICE, "r2", "lunch at noon"));

    assertEquals(MemoryStatus.FORGOTTEN, store.get(ALICE, "r1").orElseThrow().status());
    assertEquals(2, store.list(ALICE, new ListQuery(10, null, true)).records().size());
    assertEquals(
        List.of("r2"),
        store.list(ALICE, new ListQuery(10, null, false)).records().stream()
            .map(MemoryRecord::id)
            .toList());
    assertFalse(ids(store.search(ALICE, query("staging password", 10))).contains("r1"));

    store.put(r);
    assertEquals("r1", first(store, ALICE, "staging password"));
  }

  @Test
  public void expiryIsJudgedInsideTheQueryAtItsInstant() {
    LuceneHnswStore store = open(Map.of());
    Instant expire = T0.plusSeconds(3600);
    store.put(record(ALICE, "short", "parking spot B12 today").toBuilder()
            .validity(dev.memsidecar.api.Validity.SHORT_TERM)
            .expireTime(expire)
            .build());
    SearchQuery before =
        new SearchQuery("parking", null, 5, Set.of(), List.of(), 0f, expire.minusNanos(1));
    SearchQuery at = new SearchQuery("parking", null, 5, Set.of(), List.of(), 0f, expire);
    assertEquals(List.of("short"), ids(store.search(ALICE, before)));
    assertEquals(List.of(), ids(store.search(ALICE, at)));
  }

  // ---- writes: visibility, group commit, delete

  @Test
  public void everyWriteIsVisibleToTheNextRead() {
    LuceneHnswStore store = open(Map.of());
    for (int i = 0; i < 20; i++) {
      MemoryRecord r = record(ALICE, "r" + i, "visible note " + i + " zebra" + i, T0.plusMillis(i));
      store.put(r);
      assertEquals(Optional.of(r), store.get(ALICE, r.id()));
      assertEquals(r, store.list(ALICE, new ListQuery(1, null, false)).records().get(0));
      assertEquals(r.id(), first(store, ALICE, "zebra" + i));
    }
    assertTrue(store.delete(ALICE, "r3"));
    assertEquals(Optional.empty(), store.get(ALICE, "r3"));
    assertFalse(ids(store.search(ALICE, query("zebra3", 20))).contains("r3"));
    assertFalse(store.delete(ALICE, "r3"), "a second delete finds nothing");
    assertFalse(store.delete(BOB, "r4"), "another namespace's id");
  }

  @Test
  public void concurrentWritersShareCommits() throws Exception {
    LuceneHnswStore store = open(Map.of("commit.max_wait_ms", "20"));
    int threads = 4;
    int perThread = 40;
    long commitsBefore = store.commits();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      done.add(
          pool.submit(
              () -> {
                start.await();
                for (int i = 0; i < perThread; i++) {
                  MemoryRecord r =
                      record(ALICE, "t" + thread + "-" + i, "writer " + thread, T0.plusMillis(i));
                  store.put(r);
                  assertEquals(Optional.of(r), store.get(ALICE, r.id()), "own write");
                }
                return null;
              }));
    }
    start.countDown();
    for (Future<?> f : done) {
      f.get();
    }
    pool.shutdown();
    long commits = store.commits() - commitsBefore;
    int writes = threads * perThread;
    assertTrue(commits < writes, writes + " writes took " + commits + " commits");
    assertEquals(writes, store.list(ALICE, new ListQuery(1000, null, true)).records().size());
  }

  @Test
  public void writesAfterCloseFailAndCloseIsIdempotent() {
    LuceneHnswStore store = open(Map.of());
    store.put(record(ALICE, "r1", "note"));
    store.close();
    store.close();
    MemoryException e =
        assertThrows(
            MemoryException.class, () -> store.put(record(ALICE, "r2", "late note")));
    assertEquals(MemoryException.Code.FAILED_PRECONDITION, e.code());
    try (LuceneHnswStore again = Fixtures.open(dir)) {
      assertTrue(again.get(ALICE, "r1").isPresent());
    }
  }

  @Test
  public void timesOutsideTheIndexableRangeAreRejectedNamingTheField() {
    LuceneHnswStore store = open(Map.of());
    MemoryRecord r = record(ALICE, "r1", "note").toBuilder().createTime(Instant.MAX).build();
    MemoryException e = assertThrows(MemoryException.class, () -> store.put(r));
    assertEquals(MemoryException.Code.INVALID_ARGUMENT, e.code());
    assertEquals("create_time", e.field());
  }

  // ---- listing

  @Test
  public void listPagesNewestFirstAndRejectsForeignCursors() {
    LuceneHnswStore store = open(Map.of());
    for (int i = 0; i < 7; i++) {
      // Pairs share a create time, so the id breaks the tie.
      store.put(record(ALICE, "r" + i, "note " + i, T0.plusSeconds(i / 2)));
    }
    List<String> seen = new ArrayList<>();
    String cursor = null;
    do {
      Page page = store.list(ALICE, new ListQuery(3, cursor, false));
      page.records().forEach(r -> seen.add(r.id()));
      cursor = page.nextCursor();
    } while (cursor != null);
    assertEquals(List.of("r6", "r5", "r4", "r3", "r2", "r1", "r0"), seen);

    for (String bad :
        List.of(
            "!!",
            Base64.getUrlEncoder().encodeToString("1:5:r1".getBytes(StandardCharsets.UTF_8)),
            Base64.getUrlEncoder().encodeToString("L1:x:r1".getBytes(StandardCharsets.UTF_8)))) {
      MemoryException e =
          assertThrows(
              MemoryException.class, () -> store.list(ALICE, new ListQuery(3, bad, false)), bad);
      assertEquals("page_token", e.field());
    }
  }

  // ---- ranking and fusion

  @Test
  public void bothFusionModesRankTheRecordHoldingTheWordsFirst() {
    for (String fusion : List.of("rrf", "blend")) {
      LuceneHnswStore store =
          open(dir.resolve(fusion), Map.of("fusion", fusion), new HashEmbedder());
      store.put(record(ALICE, "both", "release train leaves on thursday"));
      store.put(record(ALICE, "one", "the train is late"));
      store.put(record(ALICE, "none", "lunch with the team"));
      List<ScoredRecord> hits = store.search(ALICE, query("release train", 10));
      assertEquals(List.of("both", "one", "none"), ids(hits), fusion);
      assertTrue(
          hits.stream().allMatch(h -> h.score() >= 0 && h.score() <= 1), fusion + ": " + hits);
      if (fusion.equals("rrf")) {
        // First in both lists: the largest possible reciprocal-rank sum, mapped to 1.
        assertEquals(1f, hits.get(0).score(), 1e-6f);
      }
    }
  }

  @Test
  public void vectorOnlyBlendScoresAreCosineSimilarities() {
    HashEmbedder embedder = new HashEmbedder();
    LuceneHnswStore store = open(dir, Map.of("fusion", "blend"), embedder);
    MemoryRecord a = record(ALICE, "a", "quarterly budget review meeting");
    MemoryRecord b = record(ALICE, "b", "budget for the offsite");
    store.put(a);
    store.put(b);
    float[] q = embedder.embed("budget meeting");
    List<ScoredRecord> hits =
        store.search(ALICE, new SearchQuery("", q, 10, Set.of(), List.of(), 0f, T0));
    assertEquals(List.of("a", "b"), ids(hits));
    for (ScoredRecord h : hits) {
      float cos = Embedder.cosine(q, embedder.embed(h.record().indexedText()));
      assertEquals(Math.max(0f, cos), h.score(), 1e-4f, h.record().id());
    }
  }

  @Test
  public void tiesGoToTheNewerUpdateThenTheSmallerId() {
    LuceneHnswStore store = open(Map.of());
    store.put(record(ALICE, "b", "same words", T0));
    store.put(record(ALICE, "a", "same words", T0));
    store.put(record(ALICE, "c", "same words", T0.plusSeconds(1)));
    assertEquals(List.of("c", "a", "b"), ids(store.search(ALICE, query("same words", 10))));
  }

  @Test
  public void aQueryWithNoSignalReturnsTheNewestRecordsScoredZero() {
    LuceneHnswStore store = open(Map.of());
    store.put(record(ALICE, "old", "first note", T0));
    store.put(record(ALICE, "new", "second note", T0.plusSeconds(5)));
    List<ScoredRecord> hits = store.search(ALICE, query("the of and", 10));
    assertEquals(List.of("new", "old"), ids(hits));
    assertTrue(hits.stream().allMatch(h -> h.score() == 0f));
  }

  // ---- embedders

  @Test
  public void reopeningWithAnotherEmbedderReembedsEveryRecord() {
    try (LuceneHnswStore store = Fixtures.open(dir, Map.of(), new HashEmbedder(256))) {
      store.put(record(ALICE, "x", "orchid greenhouse humidity"));
      store.put(record(ALICE, "y", "tax return deadline"));
    }
    HashEmbedder small = new HashEmbedder(64);
    try (LuceneHnswStore store = Fixtures.open(dir, Map.of(), small)) {
      SearchQuery byVector =
          new SearchQuery("", small.embed("greenhouse orchid"), 2, Set.of(), List.of(), 0f, T0);
      assertEquals(List.of("x", "y"), ids(store.search(ALICE, byVector)));
    }
  }

  @Test
  public void embeddingsWiderThanLucenesDefaultLimitWork() {
    HashEmbedder wide = new HashEmbedder(1536);
    LuceneHnswStore store = open(dir, Map.of(), wide);
    store.put(record(ALICE, "x", "orchid greenhouse humidity"));
    store.put(record(ALICE, "y", "tax return deadline"));
    SearchQuery byVector =
        new SearchQuery("", wide.embed("tax deadline"), 1, Set.of(), List.of(), 0f, T0);
    assertEquals(List.of("y"), ids(store.search(ALICE, byVector)));
    assertTrue(
        store.search(ALICE, query("humidity", 2)).stream()
            .max(Comparator.comparingDouble(ScoredRecord::score))
            .orElseThrow()
            .record()
            .id()
            .equals("x"));
  }
}
