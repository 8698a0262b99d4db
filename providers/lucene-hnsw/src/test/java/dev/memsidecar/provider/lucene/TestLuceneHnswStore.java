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
import dev.memsidecar.api.MemoryException.Code;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.toolkit.HashEmbedder;
import dev.memsidecar.toolkit.HybridScore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * What is particular to this provider: Lucene's text analysis, the filter inside the HNSW search,
 * the two fusion modes and their score scale, re-embedding, wide vectors, group commit, and its
 * error codes. What every store promises is {@link TestLuceneHnswConformance}'s job.
 */
class TestLuceneHnswStore {
  private static final Namespace ALICE = Namespace.of("acme:user:alice:user");

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

  private static SearchQuery byVector(float[] vector, int topK) {
    return new SearchQuery("", vector, topK, Set.of(), List.of(), 0f, T0.plusSeconds(60));
  }

  private static List<String> ids(List<ScoredRecord> hits) {
    return hits.stream().map(h -> h.record().id()).toList();
  }

  private static String first(LuceneHnswStore store, Namespace ns, String text) {
    List<ScoredRecord> hits = store.search(ns, query(text, 5));
    assertFalse(hits.isEmpty(), "no hits for '" + text + "'");
    return hits.get(0).record().id();
  }

  private static void assertCode(Code code, Executable call, String what) {
    MemoryException e = assertThrows(MemoryException.class, call, what);
    assertEquals(code, e.code(), what + ": " + e.getMessage());
  }

  // ---- text analysis

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

  // ---- the filter inside the HNSW search

  @Test
  public void vectorSearchAppliesTheNamespaceFilterInsideTheGraphNotAfterIt() {
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
    List<ScoredRecord> smallHits = store.search(small, byVector(q, 10));
    assertEquals(List.of("s0", "s1", "s2", "s3", "s4"), ids(smallHits).stream().sorted().toList());
    float bestSmall = smallHits.get(0).score();
    List<ScoredRecord> bigHits = store.search(big, byVector(q, 1000));
    assertEquals(1000, bigHits.size());
    assertTrue(
        bigHits.get(999).score() > bestSmall,
        "the 1000th big record outscores the best small one: "
            + bigHits.get(999).score()
            + " vs "
            + bestSmall);

    // 300 records: more than the kNN depth, so Lucene walks the graph with the filter.
    List<ScoredRecord> midHits = store.search(mid, byVector(q, 10));
    assertEquals(10, midHits.size());
    assertTrue(midHits.stream().allMatch(h -> h.record().namespace().equals(mid)));
  }

  // ---- fusion and the score scale

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
        // First in both lists: the largest possible reciprocal-rank sum, mapped to 1 (less the
        // tie-break share of what its blend score falls short of 1).
        assertEquals(1f, hits.get(0).score(), Fusion.RRF_TIE_BREAK);
      }
    }
  }

  @Test
  public void rrfBreaksEqualRankSumsByTheStrongerMatch() {
    // 1st and 2nd ties 2nd and 1st: the blend score of the two, here their BM25 share, decides.
    double w = HybridScore.LEXICAL_MEANING_WEIGHT;
    float strong = Fusion.RRF.score(w, true, true, 2, 1, 0.5f, 1f, false);
    float weak = Fusion.RRF.score(w, true, true, 1, 2, 0.6f, 0.3f, false);
    assertTrue(strong > weak, strong + " > " + weak);
    // ...and never outweighs a rank: 1st and 3rd beats 2nd and 2nd whatever the scores.
    float ranksBetter = Fusion.RRF.score(w, true, true, 1, 3, 0f, 0f, false);
    float scoresBetter = Fusion.RRF.score(w, true, true, 2, 2, 1f, 1f, true);
    assertTrue(ranksBetter > scoresBetter, ranksBetter + " > " + scoresBetter);
  }

  @Test
  public void blendScoresHalfCosineAndHalfBm25OfTheQuerysBestMatchWithTheHashEmbedder() {
    HashEmbedder embedder = new HashEmbedder();
    LuceneHnswStore store = open(dir, Map.of("fusion", "blend"), embedder);
    String text = "release train leaves on thursday";
    store.put(record(ALICE, "same", text));
    store.put(record(ALICE, "near", "the release train is late"));
    store.put(record(ALICE, "far", "lunch with the team"));
    List<ScoredRecord> hits = store.search(ALICE, query(text, 10));

    // The same text: cosine 1 and the best BM25 score, so the whole scale, float rounding or not.
    assertEquals("same", hits.get(0).record().id());
    assertTrue(hits.get(0).score() <= 1f, "score " + hits.get(0).score());
    assertEquals(1f, hits.get(0).score(), 1e-5f);
    float[] q = embedder.embed(text);
    for (ScoredRecord h : hits.subList(1, hits.size())) {
      float halfCosine =
          0.5f * Math.max(0f, Embedder.cosine(q, embedder.embed(h.record().indexedText())));
      assertTrue(
          h.score() >= halfCosine - 1e-5f && h.score() <= halfCosine + 0.5f + 1e-5f,
          h.record().id() + " scores " + h.score() + ", half its cosine is " + halfCosine);
    }
    ScoredRecord far = hits.get(2);
    assertEquals("far", far.record().id());
    assertEquals(
        0.5f * Math.max(0f, Embedder.cosine(q, embedder.embed(far.record().indexedText()))),
        far.score(),
        1e-5f,
        "no query word: only the meaning half");
  }

  @Test
  public void aQueryNamingTheSpeakerPrefersThatSpeakersLine() {
    LuceneHnswStore store = open(Map.of());
    store.put(record(ALICE, "mel", "Melanie: we went camping at the lake"));
    store.put(record(ALICE, "car", "Caroline: we went camping at the lake"));
    assertEquals("mel", first(store, ALICE, "Where has Melanie gone camping?"));
    assertEquals("car", first(store, ALICE, "Where has Caroline gone camping?"));
  }

  @Test
  public void aWordInTheContentOutweighsTheSameWordInTheContext() {
    LuceneHnswStore store = open(Map.of());
    store.put(
        record(ALICE, "content", "the quarterly budget").toBuilder()
            .context("lunch with the team")
            .build());
    store.put(
        record(ALICE, "context", "lunch with the team").toBuilder()
            .context("the quarterly budget")
            .build());
    List<ScoredRecord> hits = store.search(ALICE, query("budget", 10));
    assertEquals(List.of("content", "context"), ids(hits));
  }

  @Test
  public void vectorOnlyBlendScoresAreCosineSimilarities() {
    HashEmbedder embedder = new HashEmbedder();
    LuceneHnswStore store = open(dir, Map.of("fusion", "blend"), embedder);
    store.put(record(ALICE, "a", "quarterly budget review meeting"));
    store.put(record(ALICE, "b", "budget for the offsite"));
    float[] q = embedder.embed("budget meeting");
    List<ScoredRecord> hits = store.search(ALICE, byVector(q, 10));
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
      List<ScoredRecord> hits = store.search(ALICE, byVector(small.embed("greenhouse orchid"), 2));
      assertEquals(List.of("x", "y"), ids(hits));
    }
  }

  /** The hash embedder's vectors negated, under another name: what was near is now far. */
  private static final class Opposite implements Embedder {
    final HashEmbedder hash = new HashEmbedder(64);
    final List<Integer> batches = new ArrayList<>();
    int single;

    @Override
    public String name() {
      return "opposite";
    }

    @Override
    public int dimensions() {
      return hash.dimensions();
    }

    @Override
    public float[] embed(String text) {
      single++;
      float[] v = hash.embed(text);
      for (int i = 0; i < v.length; i++) {
        v[i] = -v[i];
      }
      return v;
    }

    @Override
    public List<float[]> embedAll(List<String> texts) {
      batches.add(texts.size());
      int before = single;
      List<float[]> vectors = texts.stream().map(this::embed).toList();
      single = before;
      return vectors;
    }
  }

  @Test
  public void reopeningWithAnotherEmbedderOfTheSameLengthReembedsInBatches() {
    List<MemoryRecord> filler = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      filler.add(record(ALICE, "f" + i, "tax return deadline " + i));
    }
    try (LuceneHnswStore store = Fixtures.open(dir, Map.of(), new HashEmbedder(64))) {
      store.put(record(ALICE, "x", "orchid greenhouse humidity"));
      store.putAll(ALICE, filler);
    }
    Opposite opposite = new Opposite();
    LuceneHnswStore store = open(dir, Map.of(), opposite);
    assertEquals(0, opposite.single, "records are embedded in batches");
    assertEquals(151, opposite.batches.stream().mapToInt(Integer::intValue).sum());
    assertTrue(
        opposite.batches.stream().allMatch(n -> n <= BatchIndexer.BATCH),
        opposite.batches.toString());
    // A vector left from the hash embedder would put "x" farthest from the query, not nearest.
    List<ScoredRecord> hits = store.search(ALICE, byVector(opposite.embed("greenhouse orchid"), 5));
    assertEquals("x", hits.get(0).record().id());
  }

  @Test
  public void embeddingsWiderThanLucenesDefaultLimitWork() {
    HashEmbedder wide = new HashEmbedder(1536);
    LuceneHnswStore store = open(dir, Map.of(), wide);
    store.put(record(ALICE, "x", "orchid greenhouse humidity"));
    store.put(record(ALICE, "y", "tax return deadline"));
    assertEquals(List.of("y"), ids(store.search(ALICE, byVector(wide.embed("tax deadline"), 1))));
    assertEquals("x", first(store, ALICE, "humidity"));
  }

  @Test
  public void anEmbedderReturningTheWrongLengthFailsThePutAsInternal() {
    Embedder broken =
        new Embedder() {
          @Override
          public String name() {
            return "broken";
          }

          @Override
          public int dimensions() {
            return 16;
          }

          @Override
          public float[] embed(String text) {
            return new float[8];
          }
        };
    LuceneHnswStore store = open(dir, Map.of(), broken);
    assertCode(Code.INTERNAL, () -> store.put(record(ALICE, "x", "note")), "put");
    assertTrue(store.get(ALICE, "x").isEmpty(), "nothing was written");
  }

  // ---- writes

  @Test
  public void concurrentWritersNeverSyncMoreOftenThanTheyWrite() throws Exception {
    LuceneHnswStore store = open(Map.of());
    int threads = 4;
    int perThread = 25;
    long syncsBefore = store.syncs();
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
                  store.put(
                      record(ALICE, "t" + thread + "-" + i, "writer " + thread, T0.plusMillis(i)));
                }
                return null;
              }));
    }
    start.countDown();
    for (Future<?> f : done) {
      f.get();
    }
    pool.shutdown();
    int writes = threads * perThread;
    long syncs = store.syncs() - syncsBefore;
    assertEquals(writes, store.list(ALICE, new ListQuery(1000, null, true)).records().size());
    assertTrue(syncs >= 1 && syncs <= writes, writes + " writes took " + syncs + " syncs");
  }

  @Test
  public void everyReadSeesTheWritesAcknowledgedBeforeIt() throws Exception {
    LuceneHnswStore store = open(Map.of());
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int writer = t;
      done.add(
          pool.submit(
              () -> {
                for (int i = 0; i < 15; i++) {
                  String id = "w" + writer + "-" + i;
                  String word = "marker" + writer + "x" + i;
                  MemoryRecord r = record(ALICE, id, "note " + word);
                  store.put(r);
                  assertEquals(r, store.get(ALICE, id).orElse(null), "get after put " + id);
                  assertEquals(id, first(store, ALICE, word), "search after put " + id);
                  assertTrue(store.delete(ALICE, id), "delete after put " + id);
                  assertTrue(store.get(ALICE, id).isEmpty(), "get after delete " + id);
                }
                return null;
              }));
    }
    for (Future<?> f : done) {
      f.get();
    }
    pool.shutdown();
  }

  @Test
  public void aGetRefreshesOnlyWhenItsOwnKeyMayHaveAnInvisibleWrite() {
    LuceneHnswStore store = open(Map.of());
    for (int i = 0; i < 100; i++) {
      store.put(record(ALICE, "put" + i, "note " + i));
      assertTrue(store.get(ALICE, "request" + i).isEmpty());
    }
    long before = store.refreshes();
    assertTrue(before <= 10, before + " refreshes for 100 gets of keys never written");
    store.put(record(ALICE, "last", "the last note"));
    assertTrue(store.get(ALICE, "last").isPresent());
    assertEquals(before + 1, store.refreshes(), "a get of the key just written refreshes");
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  public void anIdleIndexIsMergedIntoOneSegmentThatSearchesUse() throws Exception {
    LuceneHnswStore store = open(Map.of(LuceneHnswProvider.MERGE_IDLE_MS, "100"));
    for (int i = 0; i < 5; i++) {
      store.put(record(ALICE, "r" + i, "greenhouse note " + i));
      store.commit(); // a segment each
    }
    assertEquals(5, store.list(ALICE, new ListQuery(10, null, true)).records().size());
    assertEquals(5, store.searchedSegments());
    while (store.searchedSegments() != 1) {
      Thread.sleep(20); // the background thread looks every 50 ms
    }
    assertEquals(5, store.search(ALICE, query("greenhouse", 10)).size());
    store.put(record(ALICE, "after", "written after the merge"));
    assertTrue(store.get(ALICE, "after").isPresent());
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  public void anIdleMergeLeavesTheLargestSegmentAloneWhenTheOthersAreSmall() throws Exception {
    LuceneHnswStore store = open(Map.of(LuceneHnswProvider.MERGE_IDLE_MS, "100"));
    putSegment(store, "r", 40);
    assertEquals(1, awaitSegments(store, 1));
    // Three segments of one record: together under a quarter of the 40.
    for (int i = 0; i < 3; i++) {
      putSegment(store, "late" + i + "-", 1);
    }
    store.list(ALICE, new ListQuery(1, null, true)); // a listing refreshes the searcher
    assertEquals(4, store.searchedSegments());
    assertEquals(2, awaitSegments(store, 2), "the three merged beside the 40, not into them");
    assertEquals(43, store.search(ALICE, query("greenhouse", 50)).size());
    // Twenty more: with the three, over a quarter of the 40, so the idle merge rewrites all.
    putSegment(store, "later", 20);
    assertEquals(1, awaitSegments(store, 1));
    assertEquals(63, store.search(ALICE, query("greenhouse", 100)).size());
  }

  /** Puts {@code n} records named {@code prefix} and a number, then commits: one new segment. */
  private static void putSegment(LuceneHnswStore store, String prefix, int n) {
    for (int i = 0; i < n; i++) {
      store.put(record(ALICE, prefix + i, "greenhouse note " + prefix + i));
    }
    store.commit();
  }

  /** Refreshes the searcher, waits until it sees at most {@code n} segments, returns how many. */
  private static int awaitSegments(LuceneHnswStore store, int n) throws Exception {
    store.list(ALICE, new ListQuery(1, null, true));
    while (store.searchedSegments() > n) {
      Thread.sleep(20); // the background thread looks every 50 ms
    }
    return store.searchedSegments();
  }

  @Test
  public void callsAfterCloseFailWithFailedPrecondition() {
    LuceneHnswStore store = open(Map.of());
    MemoryRecord r = record(ALICE, "r1", "note");
    store.put(r);
    store.close();
    assertCode(Code.FAILED_PRECONDITION, () -> store.put(r), "put");
    assertCode(Code.FAILED_PRECONDITION, () -> store.get(ALICE, "r1"), "get");
    assertCode(
        Code.FAILED_PRECONDITION, () -> store.list(ALICE, new ListQuery(10, null, true)), "list");
    assertCode(Code.FAILED_PRECONDITION, () -> store.search(ALICE, query("note", 5)), "search");
    assertCode(Code.FAILED_PRECONDITION, () -> store.delete(ALICE, "r1"), "delete");
  }

  @Test
  public void timesOutsideTheIndexableRangeAreRejectedNamingTheField() {
    LuceneHnswStore store = open(Map.of());
    MemoryRecord r = record(ALICE, "r1", "note").toBuilder().createTime(Instant.MAX).build();
    MemoryException e = assertThrows(MemoryException.class, () -> store.put(r));
    assertEquals(Code.INVALID_ARGUMENT, e.code());
    assertEquals("create_time", e.field());
  }
}
