package dev.memsidecar.provider.langmem;

import static dev.memsidecar.provider.langmem.Fixtures.T0;
import static dev.memsidecar.provider.langmem.Fixtures.record;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Page;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.api.Validity;
import dev.memsidecar.toolkit.HashEmbedder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestLangMemSqliteStore {
  private static final Namespace ALICE = Namespace.of("acme:user:alice:user");
  private static final Namespace BOB = Namespace.of("acme:user:bob:user");

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

  private static MemoryRecord full(Namespace ns, String id) {
    return MemoryRecord.builder()
        .id(id)
        .namespace(ns)
        .profile("workspace")
        .kind(MemoryKind.PROCEDURAL)
        .content("Run \"npm run build\" before release;\nthen C:\\tools\\ship.exe — 发布前先构建")
        .summary("build before release")
        .context("user: how do we ship?\nassistant: like this")
        .confidence(0.87f)
        .tags(List.of("release", "npm", "发布"))
        .sensitivity("internal")
        .metadata(Map.of("source", "run-42", "quote\"key", "back\\slash\nvalue", "空", ""))
        .createTime(Instant.parse("2025-02-03T04:05:06.123456789Z"))
        .updateTime(Instant.parse("2025-02-04T04:05:06.000000001Z"))
        .gateScore(7.25f)
        .status(MemoryStatus.ACTIVE)
        .sourceRefs(List.of("run:42", "remember:req-1"))
        .validity(Validity.SHORT_TERM)
        .expireTime(Instant.parse("2026-01-01T00:00:00.5Z"))
        .build();
  }

  @Test
  void putThenGetReturnsAnEqualRecord() {
    MemoryRecord r = full(ALICE, "rec-1");
    store.put(r);
    assertEquals(r, store.get(ALICE, "rec-1").orElseThrow());

    MemoryRecord minimal = record(ALICE, "rec-2", "", Instant.EPOCH.minusNanos(1));
    store.put(minimal);
    assertEquals(minimal, store.get(ALICE, "rec-2").orElseThrow());
    assertTrue(store.get(ALICE, "missing").isEmpty());
  }

  @Test
  void putReplacesTheRecordWithTheSameId() {
    store.put(record(ALICE, "r", "first version about kafka"));
    assertEquals(1, store.search(ALICE, query("kafka")).size());

    MemoryRecord second =
        record(ALICE, "r", "second version about postgres").toBuilder()
            .updateTime(T0.plusSeconds(5))
            .build();
    store.put(second);

    assertEquals(second, store.get(ALICE, "r").orElseThrow());
    assertEquals(List.of(second), store.list(ALICE, new ListQuery(10, null, true)).records());
    assertTrue(store.search(ALICE, query("kafka")).stream().allMatch(h -> h.score() < 0.5f));
    assertEquals(second, store.search(ALICE, query("postgres")).get(0).record());
  }

  @Test
  void deleteRemovesTheRecordAndSaysWhetherItExisted() {
    store.put(record(ALICE, "r", "delete me please"));
    assertEquals(1, store.search(ALICE, query("delete")).size());

    assertTrue(store.delete(ALICE, "r"));
    assertFalse(store.delete(ALICE, "r"));
    assertTrue(store.get(ALICE, "r").isEmpty());
    assertTrue(store.list(ALICE, new ListQuery(10, null, true)).records().isEmpty());
    assertTrue(store.search(ALICE, query("delete")).isEmpty());
  }

  @Test
  void putRejectsARecordOfAnotherNamespace() {
    MemoryException e =
        assertThrows(MemoryException.class, () -> store.put(record(ALICE, "r", "x")));
    assertEquals(MemoryException.Code.INVALID_ARGUMENT, e.code());
    assertEquals("namespace", e.field());
    assertTrue(store.get(ALICE, "r").isEmpty());
    assertTrue(store.get(BOB, "r").isEmpty());
  }

  @Test
  void sameIdInTwoNamespacesIsTwoUnrelatedRecords() {
    MemoryRecord a = record(ALICE, "shared", "alice prefers dark roast coffee");
    MemoryRecord b = record(BOB, "shared", "bob prefers green tea");
    store.put(a);
    store.put(b);
    store.put(record(BOB, "bob-only", "bob likes coffee too"));

    assertEquals(a, store.get(ALICE, "shared").orElseThrow());
    assertEquals(b, store.get(BOB, "shared").orElseThrow());
    assertTrue(store.get(ALICE, "bob-only").isEmpty());
    assertEquals(List.of(a), store.list(ALICE, new ListQuery(100, null, true)).records());
    for (ScoredRecord hit : store.search(ALICE, query("coffee tea bob"))) {
      assertEquals(ALICE, hit.record().namespace());
    }
    assertEquals(1, store.search(ALICE, query("coffee tea bob")).size());

    assertTrue(store.delete(ALICE, "shared"));
    assertFalse(store.delete(ALICE, "bob-only"));
    assertEquals(b, store.get(BOB, "shared").orElseThrow());
    assertEquals(2, store.search(BOB, query("bob")).size());
  }

  @Test
  void listPagesThroughEveryRecordOnceNewestFirst() {
    List<MemoryRecord> all = new ArrayList<>();
    for (int i = 0; i < 120; i++) {
      // Three records share each create time, so ids must break ties.
      MemoryRecord r =
          record(ALICE, String.format("r%03d", i), "record " + i, T0.plusMillis(i / 3));
      all.add(r);
      store.put(r);
    }
    store.put(record(BOB, "r999", "bob's"));
    all.sort(
        (x, y) -> {
          int c = y.createTime().compareTo(x.createTime());
          return c != 0 ? c : y.id().compareTo(x.id());
        });

    List<MemoryRecord> seen = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    do {
      Page page = store.list(ALICE, new ListQuery(7, cursor, false));
      assertTrue(page.records().size() <= 7);
      seen.addAll(page.records());
      cursor = page.nextCursor();
      pages++;
    } while (cursor != null);

    assertEquals(all, seen);
    assertEquals(18, pages);
    Page exact = store.list(ALICE, new ListQuery(120, null, false));
    assertEquals(120, exact.records().size());
    assertNull(exact.nextCursor());
  }

  @Test
  void listShowsInactiveRecordsOnlyWhenAsked() {
    store.put(record(ALICE, "a", "active one", T0));
    store.put(record(ALICE, "f", "forgotten one", T0.plusSeconds(1)).toBuilder()
            .status(MemoryStatus.FORGOTTEN)
            .build());
    store.put(record(ALICE, "s", "superseded one", T0.plusSeconds(2)).toBuilder()
            .status(MemoryStatus.SUPERSEDED)
            .build());

    assertEquals(List.of("a"), ids(store.list(ALICE, new ListQuery(10, null, false)).records()));
    assertEquals(
        List.of("s", "f", "a"), ids(store.list(ALICE, new ListQuery(10, null, true)).records()));
  }

  @Test
  void malformedCursorIsInvalidArgumentNamingPageToken() {
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    for (String bad :
        List.of(
            "not base64 !",
            b64.encodeToString("garbage".getBytes(StandardCharsets.UTF_8)),
            b64.encodeToString("1:abc:r1".getBytes(StandardCharsets.UTF_8)),
            b64.encodeToString("2:5:r1".getBytes(StandardCharsets.UTF_8)),
            b64.encodeToString("1:5:bad id!".getBytes(StandardCharsets.UTF_8)))) {
      MemoryException e =
          assertThrows(
              MemoryException.class, () -> store.list(ALICE, new ListQuery(5, bad, false)), bad);
      assertEquals(MemoryException.Code.INVALID_ARGUMENT, e.code());
      assertEquals("page_token", e.field());
    }
  }

  @Test
  void searchRanksTheRecordHoldingTheQueryWordsFirst() {
    String[] topics = {
      "The deploy pipeline uses blue green switching",
      "Alice prefers concise answers in English",
      "Postgres vacuum runs nightly on the analytics cluster",
      "Use npm run lint before committing frontend code",
      "The staging cluster lives in eu-west-1",
      "Incident review: cache stampede after config push",
      "Kafka consumer lag alerts page the on-call engineer",
      "Release notes are drafted in the docs repository",
      "Coffee machine on floor three is broken",
      "Prefer gradle wrapper over system gradle"
    };
    for (int i = 0; i < 50; i++) {
      store.put(record(
              ALICE, "d" + i, topics[i % topics.length] + " (note " + i + ")", T0.plusSeconds(i)));
    }
    MemoryRecord target =
        record(ALICE, "target", "Rotate the grafana api token every ninety days", T0);
    store.put(target);

    List<ScoredRecord> hits = store.search(ALICE, query("when should we rotate the grafana token"));
    assertEquals("target", hits.get(0).record().id());
    assertTrue(hits.get(0).score() > hits.get(1).score());
    for (int i = 1; i < hits.size(); i++) {
      assertTrue(hits.get(i - 1).score() >= hits.get(i).score(), "not best first");
      assertTrue(hits.get(i).score() >= 0f && hits.get(i).score() <= 1f);
    }
  }

  @Test
  void searchFindsChineseTextWithAChineseQuery() {
    store.put(record(ALICE, "en1", "The user prefers short answers"));
    store.put(record(ALICE, "zh1", "用户喜欢简短的中文回答,不要长篇大论"));
    store.put(record(ALICE, "zh2", "部署流程需要先运行单元测试"));
    store.put(record(ALICE, "ja1", "東京のオフィスは金曜日に閉まります"));

    List<ScoredRecord> hits = store.search(ALICE, query("用户喜欢什么样的回答?"));
    assertEquals("zh1", hits.get(0).record().id());
  }

  @Test
  void searchAppliesKindTagAndExpiryFilters() {
    Instant now = T0.plusSeconds(3600);
    store.put(record(ALICE, "sem", "deploy on fridays is forbidden").toBuilder()
            .tags(List.of("policy", "deploy"))
            .build());
    store.put(record(ALICE, "proc", "deploy with make release").toBuilder()
            .kind(MemoryKind.PROCEDURAL)
            .tags(List.of("deploy"))
            .build());
    store.put(record(ALICE, "expired", "deploy freeze until monday").toBuilder()
            .validity(Validity.SHORT_TERM)
            .expireTime(now.minusSeconds(1))
            .tags(List.of("policy", "deploy"))
            .build());
    store.put(record(ALICE, "later", "deploy window opens at noon").toBuilder()
            .validity(Validity.SHORT_TERM)
            .expireTime(now.plusSeconds(1))
            .build());
    store.put(record(ALICE, "gone", "deploy notes forgotten").toBuilder()
            .status(MemoryStatus.FORGOTTEN)
            .build());

    assertEquals(Set.of("sem", "proc", "later"), idSet(search("deploy", Set.of(), List.of(), now)));
    assertEquals(
        Set.of("proc"), idSet(search("deploy", Set.of(MemoryKind.PROCEDURAL), List.of(), now)));
    assertEquals(Set.of("sem"), idSet(search("deploy", Set.of(), List.of("policy"), now)));
    assertEquals(Set.of("sem", "proc"), idSet(search("deploy", Set.of(), List.of("deploy"), now)));
    assertEquals(
        Set.of("sem", "proc", "later", "expired"),
        idSet(search("deploy", Set.of(), List.of(), now.minusSeconds(2))));
  }

  @Test
  void searchDropsHitsBelowMinScoreAndKeepsTopK() {
    for (int i = 0; i < 20; i++) {
      store.put(record(ALICE, "n" + i, "unrelated note number " + i));
    }
    store.put(record(ALICE, "hit", "terraform state lives in the s3 bucket"));

    List<ScoredRecord> strict =
        store.search(
            ALICE,
            new SearchQuery(
                "terraform state bucket", null, 10, Set.of(), List.of(), 0.6f, T0.plusSeconds(1)));
    assertEquals(List.of("hit"), ids(strict.stream().map(ScoredRecord::record).toList()));
    assertTrue(strict.get(0).score() >= 0.6f);

    List<ScoredRecord> top3 =
        store.search(
            ALICE,
            new SearchQuery("note number", null, 3, Set.of(), List.of(), 0f, T0.plusSeconds(1)));
    assertEquals(3, top3.size());
  }

  @Test
  void searchBreaksScoreTiesByNewerUpdateThenId() {
    store.put(record(ALICE, "b", "same words here", T0));
    store.put(record(ALICE, "a", "same words here", T0));
    store.put(record(ALICE, "c", "same words here", T0.plusSeconds(1)));

    assertEquals(
        List.of("c", "a", "b"),
        ids(store.search(ALICE, query("same words")).stream().map(ScoredRecord::record).toList()));
  }

  @Test
  void searchFollowsWritesMadeAfterTheIndexWasBuilt() {
    store.put(record(ALICE, "old", "first memory about elasticsearch"));
    assertEquals(1, store.search(ALICE, query("elasticsearch")).size());

    store.put(record(ALICE, "new", "second memory about elasticsearch shards"));
    assertEquals(Set.of("old", "new"), idSet(store.search(ALICE, query("elasticsearch"))));

    store.put(record(ALICE, "old", "first memory about elasticsearch").toBuilder()
            .status(MemoryStatus.SUPERSEDED)
            .build());
    assertEquals(Set.of("new"), idSet(store.search(ALICE, query("elasticsearch"))));

    store.put(record(ALICE, "old", "first memory about elasticsearch"));
    assertEquals(Set.of("old", "new"), idSet(store.search(ALICE, query("elasticsearch"))));

    store.delete(ALICE, "new");
    assertEquals(Set.of("old"), idSet(store.search(ALICE, query("elasticsearch"))));
  }

  @Test
  void searchTakesAGivenQueryVectorOfTheRightLength() {
    store.put(record(ALICE, "x", "vector search with a given vector"));
    float[] v = new HashEmbedder().embed("given vector");
    List<ScoredRecord> hits =
        store.search(
            ALICE,
            new SearchQuery("given vector", v, 5, Set.of(), List.of(), 0f, T0.plusSeconds(1)));
    assertEquals("x", hits.get(0).record().id());

    MemoryException e =
        assertThrows(
            MemoryException.class,
            () ->
                store.search(
                    ALICE, new SearchQuery("given", new float[3], 5, Set.of(), List.of(), 0f, T0)));
    assertEquals(MemoryException.Code.INVALID_ARGUMENT, e.code());
    assertEquals("vector", e.field());
  }

  @Test
  void recordsSurviveCloseAndReopen() {
    MemoryRecord r = full(ALICE, "keep");
    store.put(r);
    store.put(record(ALICE, "gone", "deleted before close"));
    store.delete(ALICE, "gone");
    store.close();

    store = Fixtures.open(dir);
    assertEquals(r, store.get(ALICE, "keep").orElseThrow());
    assertTrue(store.get(ALICE, "gone").isEmpty());
    SearchQuery q =
        new SearchQuery(
            "npm build release",
            null,
            5,
            Set.of(),
            List.of(),
            0f,
            Instant.parse("2025-06-01T00:00:00Z"));
    assertEquals(List.of(r), store.search(ALICE, q).stream().map(ScoredRecord::record).toList());
  }

  @Test
  void callsAfterCloseFailAndCloseIsIdempotent() {
    store.put(record(ALICE, "r", "x"));
    store.close();
    store.close();
    List<Runnable> calls =
        List.of(
            () -> store.put(record(ALICE, "r2", "y")),
            () -> store.get(ALICE, "r"),
            () -> store.list(ALICE, new ListQuery(5, null, false)),
            () -> store.search(ALICE, query("x")),
            () -> store.delete(ALICE, "r"));
    for (Runnable call : calls) {
      MemoryException e = assertThrows(MemoryException.class, call::run);
      assertEquals(MemoryException.Code.FAILED_PRECONDITION, e.code());
      assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }
  }

  @Test
  void concurrentPutsFromEightThreadsAllLand() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int thread = t;
        futures.add(
            pool.submit(
                () -> {
                  Namespace ns = thread % 2 == 0 ? ALICE : BOB;
                  for (int i = 0; i < 50; i++) {
                    String id = "t" + thread + "-" + i;
                    store.put(record(
                            ns,
                            id,
                            "thread " + thread + " item " + i + " concurrency",
                            T0.plusMillis(i)));
                    if (i % 10 == 0) {
                      store.search(ns, query("concurrency"));
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    for (int t = 0; t < 8; t++) {
      Namespace ns = t % 2 == 0 ? ALICE : BOB;
      for (int i = 0; i < 50; i++) {
        assertTrue(store.get(ns, "t" + t + "-" + i).isPresent(), "t" + t + "-" + i);
      }
    }
    assertEquals(200, store.list(ALICE, new ListQuery(1000, null, true)).records().size());
    assertEquals(200, store.list(BOB, new ListQuery(1000, null, true)).records().size());
    SearchQuery all =
        new SearchQuery("concurrency", null, 1000, Set.of(), List.of(), 0f, T0.plusSeconds(1));
    assertEquals(200, store.search(ALICE, all).size());
    assertEquals(200, store.search(BOB, all).size());
  }

  @Test
  void instantsOutsideTheStoredRangeAreInvalidArguments() {
    MemoryException farFuture =
        assertThrows(
            MemoryException.class,
            () ->
                store.put(record(ALICE, "far", "x", Instant.parse("2300-01-01T00:00:00Z"))));
    assertEquals(MemoryException.Code.INVALID_ARGUMENT, farFuture.code());
    assertEquals("create_time", farFuture.field());

    MemoryException expiry =
        assertThrows(
            MemoryException.class,
            () ->
                store.put(record(ALICE, "far", "x").toBuilder()
                        .validity(Validity.SHORT_TERM)
                        .expireTime(Instant.MAX)
                        .build()));
    assertEquals("expire_time", expiry.field());

    assertTrue(store.get(ALICE, "far").isEmpty());
    store.put(record(ALICE, "ok", "still works"));
    assertEquals(1, store.search(ALICE, query("works")).size());
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

  private List<ScoredRecord> search(
      String text, Set<MemoryKind> kinds, List<String> tags, Instant now) {
    return store.search(ALICE, new SearchQuery(text, null, 50, kinds, tags, 0f, now));
  }

  private static List<String> ids(List<MemoryRecord> records) {
    return records.stream().map(MemoryRecord::id).toList();
  }

  private static Set<String> idSet(List<ScoredRecord> hits) {
    Set<String> out = new HashSet<>();
    for (ScoredRecord h : hits) {
      out.add(h.record().id());
    }
    return out;
  }
}
