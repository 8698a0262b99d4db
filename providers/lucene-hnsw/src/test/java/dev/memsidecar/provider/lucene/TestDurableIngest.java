package dev.memsidecar.provider.lucene;

import static dev.memsidecar.provider.lucene.Fixtures.T0;
import static dev.memsidecar.provider.lucene.Fixtures.record;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.toolkit.HashEmbedder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durable ingest through the write-ahead log: what a crash leaves is replayed on open, a torn last
 * entry is dropped, damage before it fails open, and commits trim the log. A crash is simulated by
 * copying the data directory of a store that is still open (its index as last committed, its log as
 * fsynced), with background commits held off so the copy is consistent.
 */
class TestDurableIngest {
  private static final Namespace ALICE = Namespace.of("acme:user:alice:user");

  /** No background commit (nor idle merge) while a test runs: only the log holds its writes. */
  private static final Map<String, String> NO_COMMITS =
      Map.of(
          LuceneHnswProvider.COMMIT_INTERVAL_MS, "3600000",
          LuceneHnswProvider.COMMIT_THRESHOLD_MB, "4096",
          LuceneHnswProvider.MERGE_IDLE_MS, "0");

  @TempDir Path tmp;
  private final List<LuceneHnswStore> opened = new ArrayList<>();

  @AfterEach
  void closeStores() {
    opened.forEach(LuceneHnswStore::close);
  }

  private LuceneHnswStore open(Path dir, Map<String, String> settings) {
    LuceneHnswStore store = Fixtures.open(dir, settings);
    opened.add(store);
    return store;
  }

  /** What a crash of the store on {@code dir} would leave on disk now. */
  private Path crashCopy(Path dir) throws IOException {
    Path copy = Files.createTempDirectory(tmp, "crash");
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.toList()) {
        Path target = copy.resolve(dir.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else {
          Files.copy(f, target);
        }
      }
    }
    return copy;
  }

  private static List<Path> generations(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir.resolve("translog"))) {
      return files.sorted().toList();
    }
  }

  private static Path lastGeneration(Path dir) throws IOException {
    List<Path> all = generations(dir);
    return all.get(all.size() - 1);
  }

  private static SearchQuery query(String text) {
    return new SearchQuery(text, null, 10, Set.of(), List.of(), 0f, T0.plusSeconds(60));
  }

  private static List<String> listIds(LuceneHnswStore store) {
    return store.list(ALICE, new ListQuery(1000, null, true)).records().stream()
        .map(MemoryRecord::id)
        .sorted()
        .toList();
  }

  @Test
  public void acknowledgedPutsAndDeletesAreReplayedAfterACrash() throws IOException {
    Path dir = tmp.resolve("data");
    LuceneHnswStore store = open(dir, NO_COMMITS);
    MemoryRecord committed = record(ALICE, "committed", "committed before the crash");
    MemoryRecord doomed = record(ALICE, "doomed", "deleted after the commit");
    store.put(committed);
    store.put(doomed);
    store.commit();
    MemoryRecord orchid = record(ALICE, "orchid", "the orchid greenhouse humidity");
    MemoryRecord replaced = record(ALICE, "committed", "committed, then replaced in the log");
    store.put(orchid);
    store.put(replaced);
    assertTrue(store.delete(ALICE, "doomed"));
    assertEquals(1, store.commits(), "writes are acknowledged without a commit");
    assertEquals(Optional.of(replaced), store.get(ALICE, "committed"), "and seen at once");

    LuceneHnswStore reopened = open(crashCopy(dir), NO_COMMITS);
    assertEquals(Optional.of(orchid), reopened.get(ALICE, "orchid"));
    assertEquals(Optional.of(replaced), reopened.get(ALICE, "committed"));
    assertEquals(Optional.empty(), reopened.get(ALICE, "doomed"));
    assertEquals(List.of("committed", "orchid"), listIds(reopened));
    assertEquals("orchid", reopened.search(ALICE, query("greenhouse")).get(0).record().id());
  }

  @Test
  public void aReplayedLogIsCommittedAndTrimmedOnOpen() throws IOException {
    Path dir = tmp.resolve("data");
    LuceneHnswStore store = open(dir, NO_COMMITS);
    store.put(record(ALICE, "a", "first"));
    Path copy = crashCopy(dir);

    LuceneHnswStore reopened = open(copy, NO_COMMITS);
    List<Path> left = generations(copy);
    assertEquals(1, left.size(), "one generation left: " + left);
    assertEquals(Translog.FILE_HEADER, Files.size(left.get(0)), "and it is empty");
    reopened.close();
    assertEquals(Optional.of(record(ALICE, "a", "first")), open(copy, Map.of()).get(ALICE, "a"));
  }

  @Test
  public void aTornLastEntryIsDroppedAndTheStoreWritesOn() throws IOException {
    for (String damage : List.of("truncate", "flip")) {
      Path dir = tmp.resolve(damage);
      LuceneHnswStore store = open(dir, NO_COMMITS);
      store.put(record(ALICE, "first", "first note"));
      store.put(record(ALICE, "second", "second note"));
      store.put(record(ALICE, "torn", "the note a crash tore"));
      Path copy = crashCopy(dir);
      Path log = lastGeneration(copy);
      byte[] bytes = Files.readAllBytes(log);
      if (damage.equals("truncate")) {
        Files.write(log, Arrays.copyOf(bytes, bytes.length - 7));
      } else {
        bytes[bytes.length - 3] ^= 1;
        Files.write(log, bytes);
      }

      LuceneHnswStore reopened = open(copy, NO_COMMITS);
      assertEquals(List.of("first", "second"), listIds(reopened), damage);
      reopened.put(record(ALICE, "after", "written after the recovery"));
      Path again = crashCopy(copy);
      assertEquals(List.of("after", "first", "second"), listIds(open(again, NO_COMMITS)), damage);
    }
  }

  @Test
  public void damageBeforeTheTailFailsOpenNamingTheFileAndOffset() throws IOException {
    Path dir = tmp.resolve("data");
    LuceneHnswStore store = open(dir, NO_COMMITS);
    store.put(record(ALICE, "first", "first note"));
    store.put(record(ALICE, "second", "second note"));
    Path copy = crashCopy(dir);
    Path log = lastGeneration(copy);
    byte[] bytes = Files.readAllBytes(log);
    bytes[Translog.FILE_HEADER + Translog.ENTRY_HEADER + 20] ^= 1;
    Files.write(log, bytes);

    MemoryException e = assertThrows(MemoryException.class, () -> open(copy, NO_COMMITS));
    assertEquals(MemoryException.Code.UNAVAILABLE, e.code());
    assertTrue(e.getMessage().contains(log.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("offset " + Translog.FILE_HEADER), e.getMessage());
    // Nothing was changed: the damage is still there to inspect, and still fails.
    assertEquals(
        MemoryException.Code.UNAVAILABLE,
        assertThrows(MemoryException.class, () -> open(copy, NO_COMMITS)).code());
  }

  @Test
  public void commitsTrimTheLogAndCloseLeavesNothingToReplay() throws IOException {
    Path dir = tmp.resolve("data");
    LuceneHnswStore store = open(dir, NO_COMMITS);
    for (int i = 0; i < 20; i++) {
      store.put(record(ALICE, "r" + i, "note " + i));
    }
    Path before = lastGeneration(dir);
    assertTrue(Files.size(before) > Translog.FILE_HEADER, "the log holds the writes");
    store.commit();
    List<Path> after = generations(dir);
    assertEquals(1, after.size(), after.toString());
    assertFalse(after.contains(before), "the committed generation is gone");
    assertEquals(Translog.FILE_HEADER, Files.size(after.get(0)));

    store.put(record(ALICE, "last", "written after the commit"));
    store.close();
    List<Path> closed = generations(dir);
    assertEquals(1, closed.size(), closed.toString());
    assertEquals(Translog.FILE_HEADER, Files.size(closed.get(0)), "close commits and trims");
    assertEquals(21, listIds(open(dir, NO_COMMITS)).size());
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  public void aLogOverTheThresholdIsCommittedInTheBackground() throws Exception {
    Path dir = tmp.resolve("data");
    LuceneHnswStore store =
        open(
            dir,
            Map.of(
                LuceneHnswProvider.COMMIT_INTERVAL_MS, "3600000",
                LuceneHnswProvider.COMMIT_THRESHOLD_MB, "1",
                LuceneHnswProvider.MERGE_IDLE_MS, "0"));
    Path first = lastGeneration(dir);
    String big = "word ".repeat(40_000); // 200 KB a record
    for (int i = 0; i < 6; i++) {
      store.put(record(ALICE, "big" + i, big + i));
    }
    while (store.commits() == 0) {
      Thread.sleep(10); // the background thread looks every 50 ms
    }
    assertFalse(Files.exists(first), "the committed log generation is trimmed");
    assertEquals(1, generations(dir).size(), generations(dir).toString());
    LuceneHnswStore reopened = open(crashCopy(dir), NO_COMMITS);
    assertEquals(6, listIds(reopened).size());
  }

  @Test
  public void replayingTheLogTwiceGivesTheSameIndexAsReplayingItOnce() throws IOException {
    Path dir = tmp.resolve("data");
    LuceneHnswStore store = open(dir, NO_COMMITS);
    store.put(record(ALICE, "kept", "the orchid greenhouse humidity"));
    store.put(record(ALICE, "gone", "deleted in the log"));
    store.commit();
    store.put(record(ALICE, "replaced", "first version"));
    store.put(record(ALICE, "replaced", "second version of the greenhouse note"));
    assertTrue(store.delete(ALICE, "gone"));
    store.put(record(ALICE, "reborn", "put, deleted"));
    assertTrue(store.delete(ALICE, "reborn"));
    store.put(record(ALICE, "reborn", "and put again"));
    Path once = crashCopy(dir);
    Path twice = crashCopy(dir);

    // Replay the log into the index twice and commit naming the same generation, so opening the
    // store replays it a third time: as when a commit already holds writes its generation logs.
    HashEmbedder embedder = new HashEmbedder();
    try (RecordIndex index =
        RecordIndex.open(
            "workspace", twice.resolve("index"), embedder, 16, 100, VectorEncoding.FLOAT32)) {
      for (int i = 0; i < 2; i++) {
        BatchIndexer replay = new BatchIndexer(index.writer(), embedder, "test replay", -1);
        Path log = twice.resolve("translog");
        Translog.open(log, index.committedTranslogGeneration(), LuceneHnswStore.replayer(replay))
            .close();
        replay.finish();
      }
      index.commit(index.committedTranslogGeneration());
    }

    LuceneHnswStore a = open(once, NO_COMMITS);
    LuceneHnswStore b = open(twice, NO_COMMITS);
    assertEquals(List.of("kept", "reborn", "replaced"), listIds(a));
    ListQuery all = new ListQuery(1000, null, true);
    assertEquals(a.list(ALICE, all).records(), b.list(ALICE, all).records());
    assertEquals(
        a.search(ALICE, query("greenhouse")).stream().map(h -> h.record().id()).toList(),
        b.search(ALICE, query("greenhouse")).stream().map(h -> h.record().id()).toList());
    assertEquals(
        "second version of the greenhouse note", b.get(ALICE, "replaced").orElseThrow().content());
  }

  @Test
  public void everyAcknowledgedWriteOfConcurrentWritersSurvivesACrash() throws Exception {
    Path dir = tmp.resolve("data");
    LuceneHnswStore store = open(dir, NO_COMMITS);
    int writers = 8;
    int perWriter = 40;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> done = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      done.add(
          pool.submit(
              () -> {
                start.await();
                for (int i = 0; i < perWriter; i++) {
                  String id = "w" + writer + "-" + i;
                  store.put(record(ALICE, id, "writer " + writer + " note " + i));
                  if (i % 5 == 4) {
                    assertTrue(store.delete(ALICE, id));
                  }
                }
                return null;
              }));
    }
    start.countDown();
    for (Future<?> f : done) {
      f.get();
    }
    pool.shutdown();
    assertTrue(store.syncs() < writers * perWriter * 6 / 5, "writers shared fsyncs");

    LuceneHnswStore reopened = open(crashCopy(dir), NO_COMMITS);
    List<String> expected = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      for (int i = 0; i < perWriter; i++) {
        if (i % 5 != 4) {
          expected.add("w" + w + "-" + i);
        }
      }
    }
    assertEquals(expected.stream().sorted().toList(), listIds(reopened));
  }
}
