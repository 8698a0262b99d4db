package dev.memsidecar.conformance;

import static java.util.Objects.requireNonNull;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.memsidecar.api.Capability;
import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.Ids;
import dev.memsidecar.api.ListCursor;
import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryException.Code;
import dev.memsidecar.api.MemoryFile;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Page;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.api.Validity;
import dev.memsidecar.toolkit.HashEmbedder;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance suite every {@link MemoryProvider} passes: one abstract JUnit 5 class that a
 * provider's test extends by naming its provider (after Lucene's {@code
 * BaseKnnVectorsFormatTestCase} and Dapr's component conformance tests). It checks what the SPI
 * Javadoc promises: put/get/replace/delete, paging, namespace isolation, search ranking and filters
 * with scores on the shared scale in {@link ScoredRecord#BEST_FIRST} order, durability across
 * reopen and across {@code kill -9}, concurrent writers, id checks, honest capabilities, memory
 * files with etags, and close. Errors are checked by {@link MemoryException#code()}.
 *
 * <h2>Using it from a provider</h2>
 *
 * Add the kit as a test dependency (it is a normal jar and brings JUnit 5 with it; run it with
 * Surefire 3 or any JUnit Platform launcher):
 *
 * <pre>
 * &lt;dependency&gt;
 *   &lt;groupId&gt;dev.memsidecar&lt;/groupId&gt;
 *   &lt;artifactId&gt;memsidecar-conformance&lt;/artifactId&gt;
 *   &lt;version&gt;${memsidecar.version}&lt;/version&gt;
 *   &lt;scope&gt;test&lt;/scope&gt;
 * &lt;/dependency&gt;
 * </pre>
 *
 * Then extend this class and override {@link #provider()}; override {@link #settings(Path)} when
 * the provider needs settings (a server URL, say) and {@link #embedder()} to test with another
 * embedder than {@link HashEmbedder}:
 *
 * <pre>
 * class TestAcmeRedisConformance extends MemoryStoreConformance {
 *   &#64;Override
 *   protected MemoryProvider provider() {
 *     return new AcmeRedisProvider();
 *   }
 *
 *   &#64;Override
 *   protected Map&lt;String, String&gt; settings(Path dataDirectory) {
 *     return Map.of("url", "redis://localhost:6379/15");
 *   }
 * }
 * </pre>
 *
 * The crash test ({@link #acknowledgedWritesSurviveKillOfTheProcess}) takes two more overrides:
 * {@link #locksDataDirectory()} for a store that holds its directory against other processes, and
 * {@link #assertCleanAfterCrash(Path)} for what a crash must not leave on disk.
 *
 * <p>The class may add tests of its own; {@link #store()}, {@link #reopen()}, {@link
 * #dataDirectory()} and {@link #random()} are there for them. A test the provider cannot pass yet
 * is overridden with {@code @Disabled("why")} and {@code @Test}, so the gap stays visible.
 *
 * <p>{@link InMemoryProvider} ({@value InMemoryProvider#NAME}) is the kit's own provider: it passes
 * every test but the crash test, and serves other modules' tests that need a store.
 *
 * <h2>What the kit does for each test</h2>
 *
 * It makes a fresh data directory under a JUnit temporary directory, opens a store there with
 * {@code provider().open(new ProviderContext("conformance", dir, settings(dir), embedder()))}, and
 * closes it after the test (so {@link MemoryStore#close()} must be idempotent; calls after it must
 * fail with FAILED_PRECONDITION). Tests of records run only when the provider declares {@link
 * Capability#RECORDS}, tests of memory files only with {@link Capability#FILES}; a capability it
 * does not declare must fail with UNIMPLEMENTED, and the kit checks that too. A provider whose
 * settings point at a shared server must keep tests apart: every test uses new random namespaces,
 * so a shared database works as long as it starts empty of them.
 *
 * <h2>Seeds</h2>
 *
 * Namespaces, ids, words and records are random, drawn from one seed per run: {@code
 * -Dconformance.seed=N} (a random one when absent). Each test derives its own {@link Random} from
 * the seed and its method name, so one test replays alone. Every failure message ends with {@code
 * [replay with -Dconformance.seed=N -Dtest=Class#method]}.
 *
 * <p>Tests never measure time; the 500-record tests take a few seconds on an embedded database.
 *
 * <p>One file on purpose (it is over 800 lines): the kit is one abstract suite that a provider
 * extends with one factory method, as Lucene's {@code BaseKnnVectorsFormatTestCase} is; JUnit finds
 * inherited tests on the class the provider names, and splitting them into several base classes
 * would make every provider write one test class per part. Its tests are grouped by SPI method in
 * the order of {@code MemoryStore}.
 */
@ExtendWith(SeedReporter.class)
public abstract class MemoryStoreConformance {

  /** The seed of this run: {@code -Dconformance.seed}, or a random one. */
  static final long SEED = Long.getLong("conformance.seed", ThreadLocalRandom.current().nextLong());

  private static final Duration WORKER_DEADLINE = Duration.ofMinutes(5);

  private MemoryProvider provider;
  private Embedder embedder;
  private Path tempDirectory;
  private Path dataDirectory;
  private MemoryStore store;
  private Random random;
  private RandomMemories gen;

  /** The provider under test: a new instance, as {@link java.util.ServiceLoader} would make. */
  protected abstract MemoryProvider provider();

  /**
   * The settings ({@code spec.settings}) to open stores with; none by default.
   *
   * @param dataDirectory the directory the store is about to be opened on
   */
  protected Map<String, String> settings(Path dataDirectory) {
    return Map.of();
  }

  /** The embedder stores are opened with and queries are embedded with; {@link HashEmbedder}. */
  protected Embedder embedder() {
    return new HashEmbedder();
  }

  /** The store this test opened; replaced by {@link #reopen()}. */
  protected final MemoryStore store() {
    return store;
  }

  /** Closes the current store and opens a new one on the same data directory. */
  protected final MemoryStore reopen() {
    store.close();
    store = open(dataDirectory, Map.of());
    return store;
  }

  /** The data directory of this test's store. */
  protected final Path dataDirectory() {
    return dataDirectory;
  }

  /** This test's random source, derived from the run's seed and the test method's name. */
  protected final Random random() {
    return random;
  }

  /** The run's seed, as {@code -Dconformance.seed} replays it. */
  protected final long seed() {
    return SEED;
  }

  @BeforeEach
  final void openConformanceStore(@TempDir Path tempDirectory, TestInfo info) throws IOException {
    String method = info.getTestMethod().map(Method::getName).orElse("");
    random = new Random(mix(SEED, method));
    gen = new RandomMemories(random);
    provider = requireNonNull(provider(), "provider() returned null");
    embedder = requireNonNull(embedder(), "embedder() returned null");
    this.tempDirectory = tempDirectory;
    dataDirectory = Files.createDirectories(tempDirectory.resolve("data"));
    store = open(dataDirectory, Map.of());
  }

  @AfterEach
  final void closeConformanceStore() {
    if (store != null) {
      store.close();
    }
  }

  // ---------------------------------------------------------------- crash durability

  /**
   * What put, delete and writeFile acknowledged survives {@code kill -9}, and a write in flight at
   * the kill leaves nothing torn. A child JVM ({@link CrashChild}) opens a store on this test's
   * data directory, puts records from {@value CrashChild#WRITERS} threads at once, deletes one of
   * them and writes a memory file; then it writes a sequence, a record and a version of another
   * memory file at each step, says so after {@value CrashChild.Workload#SEQUENCE_ACKNOWLEDGED}
   * steps and goes on, while this test kills it with SIGKILL. A store opened on the directory
   * afterwards must hold every acknowledged record as written and not the deleted one, list exactly
   * those, find one by its word and hold the file. Of the sequence it must hold the acknowledged
   * records and possibly some later ones, but none without all those before it, and the other file
   * whole, at an acknowledged version or a later one. Then {@link #locksDataDirectory()} and {@link
   * #assertCleanAfterCrash} add what is specific to the store.
   *
   * <p>Needs the provider and the embedder to have public no-argument constructors.
   */
  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  public void acknowledgedWritesSurviveKillOfTheProcess() throws Exception {
    long workloadSeed = random.nextLong();
    CrashChild.Workload work = CrashChild.Workload.of(workloadSeed);
    store.close(); // the child owns the directory; many stores lock it
    store = null;
    Process child =
        CrashChild.start(
            provider.getClass(),
            embedder.getClass(),
            dataDirectory,
            workloadSeed,
            settings(dataDirectory));
    try {
      if (locksDataDirectory()) {
        assertOpenFailsWhileAnotherProcessHoldsTheDirectory();
      }
      child.destroyForcibly(); // SIGKILL: no shutdown hooks, no close
      assertTrue(child.waitFor(60, TimeUnit.SECONDS), "crash child did not die");
    } finally {
      child.destroyForcibly();
    }
    store = open(dataDirectory, Map.of());
    Set<Capability> caps = provider.capabilities();
    if (caps.contains(Capability.RECORDS)) {
      Namespace ns = work.namespace();
      for (MemoryRecord r : work.survivors()) {
        assertEquals(
            Optional.of(r), store.get(ns, r.id()), "lost the acknowledged put of " + r.id());
      }
      String deleted = work.deleted().id();
      assertEquals(
          Optional.empty(), store.get(ns, deleted), "lost the acknowledged delete of " + deleted);
      assertEquals(
          work.survivors().stream().sorted(ListCursor.NEWEST_FIRST).toList(),
          listAll(ns, 64, true),
          "list after kill -9");
      MemoryRecord findable = work.findable();
      List<ScoredRecord> hits = search(ns, query(work.word(), 10, findable.createTime()));
      assertFalse(hits.isEmpty(), "search after kill -9 finds nothing");
      assertEquals(findable, hits.get(0).record(), "search after kill -9");
      assertSequenceIsAPrefix(work);
    }
    if (caps.contains(Capability.FILES)) {
      assertEquals(
          work.file(),
          store.readFile(work.fileNamespace()).content(),
          "lost the acknowledged file");
      String content = store.readFile(work.sequenceFileNamespace()).content();
      boolean whole = false;
      for (int i = CrashChild.Workload.SEQUENCE_ACKNOWLEDGED - 1;
          i < CrashChild.Workload.SEQUENCE && !whole;
          i++) {
        whole = content.equals(CrashChild.Workload.sequenceFile(i));
      }
      assertTrue(
          whole,
          "a memory file rewritten at the kill is torn or older than acknowledged: "
              + Ids.quote(content));
    }
    assertCleanAfterCrash(dataDirectory);
  }

  /**
   * Whether a store holds its data directory against other processes: while one is open on it,
   * opening another in another process fails with UNAVAILABLE naming the directory. The crash test
   * checks it while its child holds the directory; false by default, as a store on a shared server
   * need not hold anything. An embedded database or index that two processes would corrupt
   * overrides this to return true.
   */
  protected boolean locksDataDirectory() {
    return false;
  }

  /**
   * Checks what a {@code kill -9} must not leave behind once a store has opened {@code
   * dataDirectory} again (the store of {@link #store()}), such as temporary files. Called at the
   * end of {@link #acknowledgedWritesSurviveKillOfTheProcess}; does nothing by default.
   *
   * @param dataDirectory the directory the killed process and the reopened store used
   */
  protected void assertCleanAfterCrash(Path dataDirectory) throws IOException {}

  private void assertOpenFailsWhileAnotherProcessHoldsTheDirectory() {
    MemoryStore second;
    try {
      second = open(dataDirectory, Map.of());
    } catch (MemoryException e) {
      assertEquals(Code.UNAVAILABLE, e.code(), "open while another process holds it: " + e);
      assertTrue(
          e.getMessage().contains(dataDirectory.toString()),
          "the error names the data directory " + dataDirectory + ": " + e.getMessage());
      return;
    }
    second.close();
    fail(provider.name() + " opened a data directory another process holds");
  }

  /**
   * Of the records put one after another until the kill, every acknowledged one is there, and no
   * later one without all those before it.
   */
  private void assertSequenceIsAPrefix(CrashChild.Workload work) {
    List<MemoryRecord> written = work.sequence();
    Map<String, Integer> step = new HashMap<>();
    for (int i = 0; i < written.size(); i++) {
      step.put(written.get(i).id(), i);
    }
    List<MemoryRecord> held = listAll(work.sequenceNamespace(), 100, true);
    int last = -1;
    for (MemoryRecord r : held) {
      Integer i = step.get(r.id());
      assertNotNull(i, "a record the crash child never put: " + r.id());
      assertEquals(written.get(i), r, "a record put one after another is torn");
      last = Math.max(last, i);
    }
    int acknowledged = CrashChild.Workload.SEQUENCE_ACKNOWLEDGED;
    assertTrue(
        held.size() >= acknowledged,
        "lost the acknowledged puts of a sequence: "
            + held.size()
            + " of the first "
            + acknowledged
            + " records held");
    assertEquals(
        last + 1,
        held.size(),
        "record " + last + " of a sequence survived the kill, but not all those before it");
  }

  // ---------------------------------------------------------------- records: put, get, delete

  @Test
  public void putThenGetReturnsAnEqualRecord() {
    requireRecords();
    Namespace ns = gen.namespace();
    List<MemoryRecord> records = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      records.add(gen.fullRecord(ns, gen.id()));
    }
    Instant t = gen.instant();
    records.add(
        gen.record(ns, gen.id(), "Unicode: Grüße, naïve café, 用户喜欢简洁的回答, 日本語のメモ, 한국어, 🚀 𝔘𝔫𝔦", t)
            .tags(List.of("zulu", "alpha", "标签", "mike"))
            .metadata(Map.of("k", "v", "键", "值", "empty", "", "quote\"key", "back\\slash\nvalue"))
            .summary("summary")
            .context("user: hi\nassistant: hello")
            .confidence(0.375f)
            .gateScore(7.25f)
            .sensitivity("pii")
            .sourceRefs(List.of("run:1", "remember:req-1"))
            .expireTime(null)
            .build());
    records.add(
        gen.record(ns, gen.id(), "short-term " + gen.word(), t)
            .updateTime(t.plusNanos(1))
            .validity(Validity.SHORT_TERM)
            .expireTime(t.plus(Duration.ofDays(7)).plusNanos(123_456_789))
            .build());
    putAll(records);
    for (MemoryRecord r : records) {
      assertEquals(Optional.of(r), store.get(ns, r.id()), "get of '" + r.id() + "' after put");
    }
  }

  @Test
  public void putReplacesTheRecordWithTheSameId() {
    requireRecords();
    Namespace ns = gen.namespace();
    String oldWord = gen.word();
    String newWord = gen.word();
    Instant t = gen.instant();
    MemoryRecord first = gen.record(ns, gen.id(), "about " + oldWord, t).tags(List.of("a")).build();
    MemoryRecord witness = gen.record(ns, gen.id(), oldWord + " " + gen.word(), t).build();
    putAll(List.of(first, witness));
    assertEquals(
        sorted(first.id(), witness.id()),
        sortedIds(search(ns, query(oldWord, 10, t))),
        "before replace");

    MemoryRecord second =
        first.toBuilder()
            .content("now about " + newWord)
            .kind(MemoryKind.EPISODIC)
            .tags(List.of("b", "a"))
            .metadata(Map.of("version", "2"))
            .updateTime(t.plusSeconds(60))
            .build();
    store.put(second);

    assertEquals(Optional.of(second), store.get(ns, first.id()), "get after replace");
    List<MemoryRecord> listed = listAll(ns, 10, true);
    assertEquals(2, listed.size(), "replace must not add a record: " + recordIds(listed));
    assertTrue(listed.contains(second), "list shows the replacement");
    for (ScoredRecord hit : search(ns, query(oldWord, 10, t))) {
      if (hit.record().id().equals(first.id())) {
        assertEquals(second, hit.record(), "search returns a stale version");
      }
    }
    assertEquals(
        List.of(witness.id()),
        hitIds(search(ns, query(oldWord, 1, t))),
        "the old content is still indexed: the replaced record outranks one holding the word");
    List<ScoredRecord> hits = search(ns, query(newWord, 1, t));
    assertEquals(List.of(first.id()), hitIds(hits), "the new content is not indexed");
    assertEquals(second, hits.get(0).record(), "search returns the replacement");
  }

  @Test
  public void deleteRemovesTheRecordAndSaysWhetherItExisted() {
    requireRecords();
    Namespace ns = gen.namespace();
    String word = gen.word();
    Instant t = gen.instant();
    MemoryRecord doomed = gen.record(ns, gen.id(), word + " doomed", t).build();
    MemoryRecord kept = gen.record(ns, gen.id(), word + " kept", t.plusSeconds(1)).build();
    putAll(List.of(doomed, kept));
    assertEquals(2, search(ns, query(word, 10, t)).size(), "both found before delete");

    assertTrue(store.delete(ns, doomed.id()), "delete of an existing record returns true");
    assertEquals(Optional.empty(), store.get(ns, doomed.id()), "get after delete");
    assertFalse(store.delete(ns, doomed.id()), "second delete returns false");
    assertEquals(List.of(kept), listAll(ns, 10, true), "list after delete");
    assertEquals(List.of(kept.id()), hitIds(search(ns, query(word, 10, t))), "search after delete");
    assertEquals(Optional.of(kept), store.get(ns, kept.id()), "the other record is untouched");
  }

  @Test
  public void absentIdsAndEmptyNamespacesFindNothing() {
    requireRecords();
    Namespace ns = gen.namespace();
    String id = gen.id();
    assertEquals(Optional.empty(), store.get(ns, id), "get in an empty namespace");
    assertFalse(store.delete(ns, id), "delete in an empty namespace");
    Page page = store.list(ns, new ListQuery(10, null, true));
    assertEquals(List.of(), page.records(), "list of an empty namespace");
    assertNull(page.nextCursor(), "list of an empty namespace has no next page");
    assertEquals(List.of(), search(ns, query(gen.word(), 10, gen.instant())), "search");

    store.put(gen.fullRecord(ns, gen.id()));
    assertEquals(Optional.empty(), store.get(ns, id), "get of an absent id");
    assertFalse(store.delete(ns, id), "delete of an absent id");
  }

  @Test
  public void listPagesThroughEveryRecordOnceNewestFirst() {
    requireRecords();
    Namespace ns = gen.namespace();
    Instant base = gen.instant();
    List<MemoryRecord> all = new ArrayList<>();
    for (int i = 0; i < 57; i++) {
      // Few distinct create times, so many records tie on time and are ordered by id.
      Instant created = base.plusSeconds(random.nextInt(12)).plusNanos(random.nextInt(3));
      MemoryStatus status =
          switch (i) {
            case 0 -> MemoryStatus.FORGOTTEN;
            case 1 -> MemoryStatus.SUPERSEDED;
            default ->
                random.nextInt(10) < 7
                    ? MemoryStatus.ACTIVE
                    : random.nextBoolean() ? MemoryStatus.FORGOTTEN : MemoryStatus.SUPERSEDED;
          };
      MemoryRecord.Builder b =
          gen.record(ns, gen.plainId(), "record " + i + " " + gen.word(), created).status(status);
      if (random.nextInt(4) == 0) {
        // Expired records are still records: list has no clock and shows them.
        b.validity(Validity.SHORT_TERM).expireTime(created.minusSeconds(1));
      }
      all.add(b.build());
    }
    putAll(all);
    List<MemoryRecord> expectedAll = all.stream().sorted(ListCursor.NEWEST_FIRST).toList();
    List<MemoryRecord> expectedActive =
        expectedAll.stream().filter(r -> r.status() == MemoryStatus.ACTIVE).toList();

    for (int pageSize : new int[] {1, 7, 50, 1000}) {
      assertEquals(
          expectedAll, listAll(ns, pageSize, true), "includeInactive, page size " + pageSize);
      assertEquals(expectedActive, listAll(ns, pageSize, false), "active only, size " + pageSize);
    }
    Set<String> activeIds = new HashSet<>(recordIds(listAll(ns, 1000, false)));
    for (MemoryRecord r : all) {
      assertEquals(
          r.status() == MemoryStatus.ACTIVE,
          activeIds.contains(r.id()),
          "a " + r.status() + " record is listed by default only when ACTIVE: " + r.id());
    }
  }

  @Test
  public void listCursorIsStableWhenNewerRecordsArrive() {
    requireRecords();
    Namespace ns = gen.namespace();
    Instant base = gen.instant();
    List<MemoryRecord> older = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      older.add(gen.record(ns, gen.plainId(), gen.word(), base.plusSeconds(i % 5)).build());
    }
    putAll(older);
    List<MemoryRecord> expected = older.stream().sorted(ListCursor.NEWEST_FIRST).toList();

    Page first = store.list(ns, new ListQuery(7, null, false));
    assertEquals(expected.subList(0, 7), first.records(), "first page");
    assertNotNull(first.nextCursor(), "more pages follow");
    for (int i = 0; i < 3; i++) {
      store.put(gen.record(ns, gen.plainId(), gen.word(), base.plusSeconds(3600 + i)).build());
    }
    List<MemoryRecord> rest = new ArrayList<>(first.records());
    rest.addAll(listFrom(ns, 7, false, first.nextCursor()));
    assertEquals(expected, rest, "pages after the first, with newer records inserted meanwhile");
  }

  @Test
  public void listRejectsAGarbageCursor() {
    requireRecords();
    Namespace ns = gen.namespace();
    store.put(gen.fullRecord(ns, gen.id()));
    for (String cursor : List.of("!!not a cursor!!", "%%%/../\u0000")) {
      assertCode(
          Code.INVALID_ARGUMENT,
          () -> store.list(ns, new ListQuery(10, cursor, true)),
          "list with cursor '" + cursor + "'");
    }
  }

  // ---------------------------------------------------------------- namespaces

  @Test
  public void sameIdInTwoNamespacesIsTwoUnrelatedRecords() {
    requireRecords();
    Namespace a = gen.namespace();
    Namespace b = gen.namespace();
    String wordA = gen.word();
    String wordB = gen.word();
    Instant t = gen.instant();
    List<String> shared = new ArrayList<>();
    Map<Namespace, List<MemoryRecord>> byNs = new LinkedHashMap<>();
    for (int i = 0; i < 10; i++) {
      String id = gen.id();
      shared.add(id);
      MemoryRecord ra = gen.record(a, id, wordA + " in a " + i, t.plusSeconds(i)).build();
      MemoryRecord rb =
          gen.record(b, id, wordB + " in b " + i, t.plusSeconds(i))
              .kind(MemoryKind.PROCEDURAL)
              .build();
      byNs.computeIfAbsent(a, k -> new ArrayList<>()).add(ra);
      byNs.computeIfAbsent(b, k -> new ArrayList<>()).add(rb);
      store.put(ra);
      store.put(rb);
    }
    for (int i = 0; i < shared.size(); i++) {
      assertEquals(Optional.of(byNs.get(a).get(i)), store.get(a, shared.get(i)), "get in a");
      assertEquals(Optional.of(byNs.get(b).get(i)), store.get(b, shared.get(i)), "get in b");
    }
    Map<String, MemoryRecord> inA = new HashMap<>();
    byNs.get(a).forEach(r -> inA.put(r.id(), r));
    for (ScoredRecord hit : search(a, query(wordB, 100, t))) {
      assertEquals(inA.get(hit.record().id()), hit.record(), "b's words searched in a");
    }
    assertEquals(10, search(a, query(wordA, 100, t)).size(), "a's words searched in a");

    String victim = shared.get(0);
    assertTrue(store.delete(a, victim), "delete in a");
    assertEquals(Optional.of(byNs.get(b).get(0)), store.get(b, victim), "b's twin survives");
    assertEquals(10, listAll(b, 3, true).size(), "b still lists all its records");
    assertEquals(10, search(b, query(wordB, 100, t)).size(), "b still finds all its records");
    assertEquals(9, listAll(a, 3, true).size(), "a lists one fewer");
  }

  @Test
  public void namespacesThatArePrefixesOfEachOtherNeverLeak() {
    requireRecords();
    Namespace base = gen.namespace();
    List<Namespace> family =
        List.of(
            base,
            Namespace.of(base.value() + ":x"),
            Namespace.of(base.value() + "x"),
            Namespace.of(base.value().substring(0, base.value().length() - 1)),
            Namespace.of(base.value().toUpperCase(Locale.ROOT)));
    String word = gen.word();
    Instant t = gen.instant();
    Map<Namespace, List<MemoryRecord>> byNs = new LinkedHashMap<>();
    for (Namespace ns : new LinkedHashSet<>(family)) {
      List<MemoryRecord> records = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        records.add(
            gen.record(ns, gen.plainId(), word + " " + gen.word(), t.plusSeconds(i)).build());
      }
      putAll(records);
      byNs.put(ns, records);
    }
    for (Map.Entry<Namespace, List<MemoryRecord>> e : byNs.entrySet()) {
      Namespace ns = e.getKey();
      List<MemoryRecord> own = e.getValue().stream().sorted(ListCursor.NEWEST_FIRST).toList();
      assertEquals(own, listAll(ns, 2, true), "list of namespace '" + ns + "'");
      assertEquals(
          recordIds(own).stream().sorted().toList(),
          hitIds(search(ns, query(word, 100, t))).stream().sorted().toList(),
          "search of namespace '" + ns + "'");
      for (Map.Entry<Namespace, List<MemoryRecord>> other : byNs.entrySet()) {
        if (!other.getKey().equals(ns)) {
          String foreign = other.getValue().get(0).id();
          assertEquals(Optional.empty(), store.get(ns, foreign), "get of a foreign id in " + ns);
          assertFalse(store.delete(ns, foreign), "delete of a foreign id in " + ns);
        }
      }
    }
    for (Map.Entry<Namespace, List<MemoryRecord>> e : byNs.entrySet()) {
      assertEquals(3, listAll(e.getKey(), 10, true).size(), "nothing deleted in " + e.getKey());
    }
  }

  @Test
  public void searchOfASmallNamespaceBesideALargeOneReturnsAllItsRecords() {
    requireRecords();
    Namespace large = gen.namespace();
    Namespace small = gen.namespace();
    List<String> words = gen.words(2);
    String text = words.get(0) + " " + words.get(1);
    Instant t = gen.instant();
    List<MemoryRecord> bulk = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      // Stronger matches than the small namespace's: a store that ranks before it filters by
      // namespace loses the small namespace's records.
      bulk.add(gen.record(large, gen.plainId(), text + " " + text, t.plusMillis(i)).build());
    }
    putAll(bulk);
    List<MemoryRecord> few = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      few.add(
          gen.record(small, gen.plainId(), words.get(0) + " " + gen.word() + " " + gen.word(), t)
              .build());
    }
    putAll(few);

    List<ScoredRecord> hits = search(small, query(text, 10, t));
    assertEquals(
        few.stream().map(MemoryRecord::id).sorted().toList(),
        hitIds(hits).stream().sorted().toList(),
        "the small namespace's 5 records among 500 of another namespace");
    assertEquals(10, search(large, query(text, 10, t)).size(), "the large namespace fills top 10");
  }

  @Test
  public void searchAppliesTagAndKindFiltersBeforeTopK() {
    requireRecords();
    Namespace ns = gen.namespace();
    List<String> words = gen.words(2);
    String text = words.get(0) + " " + words.get(1);
    String rareTag = "rare-" + gen.word();
    Instant t = gen.instant();
    List<MemoryRecord> records = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      records.add(
          gen.record(ns, gen.plainId(), text + " " + text, t.plusMillis(i))
              .tags(List.of("common"))
              .build());
    }
    List<String> rare = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      MemoryRecord r =
          gen.record(ns, gen.plainId(), words.get(1) + " " + gen.word(), t)
              .kind(MemoryKind.PROCEDURAL)
              .tags(List.of("common", rareTag))
              .build();
      rare.add(r.id());
      records.add(r);
    }
    putAll(records);
    List<String> expected = rare.stream().sorted().toList();

    SearchQuery byTag =
        new SearchQuery(text, null, 10, Set.of(), List.of(rareTag), 0f, t.plusSeconds(1));
    assertEquals(expected, sortedIds(search(ns, byTag)), "tag filter before top 10");
    SearchQuery byKind =
        new SearchQuery(
            text, null, 10, Set.of(MemoryKind.PROCEDURAL), List.of(), 0f, t.plusSeconds(1));
    assertEquals(expected, sortedIds(search(ns, byKind)), "kind filter before top 10");
  }

  // ---------------------------------------------------------------- search

  @Test
  public void searchRanksTheRecordHoldingTheQueryWordsFirst() {
    requireRecords();
    Namespace ns = gen.namespace();
    List<String> vocabulary = gen.words(60);
    List<String> queryWords = gen.words(2);
    Instant t = gen.instant();
    List<MemoryRecord> records = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      records.add(
          gen.record(ns, gen.id(), gen.sentence(vocabulary, 3 + random.nextInt(6)), t)
              .kind(gen.pick(MemoryKind.values()))
              .build());
    }
    MemoryRecord target =
        gen.record(
                ns,
                gen.id(),
                gen.sentence(vocabulary, 2)
                    + " "
                    + queryWords.get(0)
                    + " "
                    + gen.sentence(vocabulary, 2)
                    + " "
                    + queryWords.get(1),
                t)
            .build();
    MemoryRecord partial =
        gen.record(ns, gen.id(), gen.sentence(vocabulary, 3) + " " + queryWords.get(1), t).build();
    records.add(random.nextInt(records.size()), target);
    records.add(random.nextInt(records.size()), partial);
    putAll(records);

    String text = "what about the " + queryWords.get(0) + " and " + queryWords.get(1) + "?";
    List<ScoredRecord> hits = search(ns, query(text, 10, t));
    assertFalse(hits.isEmpty(), "no hits for '" + text + "'");
    assertEquals(target.id(), hits.get(0).record().id(), "best hit for '" + text + "'");
    assertEquals(target, hits.get(0).record(), "search returns the record as stored");
    assertTrue(hits.size() > 1, "the partial match is a hit too");
    assertEquals(partial.id(), hits.get(1).record().id(), "a record holding one query word is 2nd");

    SearchQuery withVector =
        new SearchQuery(text, embedder.embed(text), 10, Set.of(), List.of(), 0f, t);
    List<ScoredRecord> vectorHits = search(ns, withVector);
    assertFalse(vectorHits.isEmpty(), "no hits with the query's vector given");
    assertEquals(target.id(), vectorHits.get(0).record().id(), "best hit with the vector given");
  }

  @Test
  public void searchKeepsOnlyTheGivenKinds() {
    requireRecords();
    Namespace ns = gen.namespace();
    String word = gen.word();
    Instant t = gen.instant();
    Map<MemoryKind, List<String>> byKind = new HashMap<>();
    List<MemoryRecord> records = new ArrayList<>();
    for (MemoryKind kind : MemoryKind.values()) {
      for (int i = 0; i < 2; i++) {
        MemoryRecord r = gen.record(ns, gen.id(), word + " " + gen.word(), t).kind(kind).build();
        records.add(r);
        byKind.computeIfAbsent(kind, k -> new ArrayList<>()).add(r.id());
      }
    }
    putAll(records);
    for (Set<MemoryKind> kinds :
        List.of(
            Set.of(MemoryKind.EPISODIC),
            Set.of(MemoryKind.SEMANTIC, MemoryKind.PROCEDURAL),
            Set.<MemoryKind>of())) {
      Set<MemoryKind> effective = kinds.isEmpty() ? Set.of(MemoryKind.values()) : kinds;
      List<String> expected =
          effective.stream().flatMap(k -> byKind.get(k).stream()).sorted().toList();
      SearchQuery q = new SearchQuery(word, null, 100, kinds, List.of(), 0f, t);
      assertEquals(expected, sortedIds(search(ns, q)), "kinds " + kinds);
    }
  }

  @Test
  public void searchKeepsOnlyRecordsCarryingEveryTag() {
    requireRecords();
    Namespace ns = gen.namespace();
    String word = gen.word();
    String a = "team:" + gen.word();
    String b = "标签-" + gen.word();
    String c = gen.word();
    Instant t = gen.instant();
    Map<String, MemoryRecord> byName = new LinkedHashMap<>();
    byName.put("abc", tagged(ns, word, t, List.of(a, b, c)));
    byName.put("ba", tagged(ns, word, t, List.of(b, a)));
    byName.put("a", tagged(ns, word, t, List.of(a)));
    byName.put("b", tagged(ns, word, t, List.of(b)));
    byName.put("none", tagged(ns, word, t, List.of()));
    putAll(byName.values());

    Map<List<String>, List<String>> expectations = new LinkedHashMap<>();
    expectations.put(List.of(a, b), List.of("abc", "ba"));
    expectations.put(List.of(b, a), List.of("abc", "ba"));
    expectations.put(List.of(c, a), List.of("abc"));
    expectations.put(List.of(a), List.of("abc", "ba", "a"));
    expectations.put(List.of(gen.word()), List.of());
    expectations.put(List.of(), List.of("abc", "ba", "a", "b", "none"));
    for (Map.Entry<List<String>, List<String>> e : expectations.entrySet()) {
      List<String> expected = e.getValue().stream().map(n -> byName.get(n).id()).sorted().toList();
      SearchQuery q = new SearchQuery(word, null, 100, Set.of(), e.getKey(), 0f, t);
      assertEquals(expected, sortedIds(search(ns, q)), "tags " + e.getKey());
    }
  }

  @Test
  public void searchDropsHitsBelowMinScore() {
    requireRecords();
    Namespace ns = gen.namespace();
    List<String> vocabulary = gen.words(30);
    List<String> queryWords = gen.words(2);
    String text = queryWords.get(0) + " " + queryWords.get(1);
    Instant t = gen.instant();
    List<MemoryRecord> records = new ArrayList<>();
    MemoryRecord target = gen.record(ns, gen.id(), text + " " + vocabulary.get(0), t).build();
    records.add(target);
    for (int i = 0; i < 5; i++) {
      records.add(
          gen.record(ns, gen.id(), queryWords.get(i % 2) + " " + gen.sentence(vocabulary, 4), t)
              .build());
    }
    for (int i = 0; i < 20; i++) {
      records.add(gen.record(ns, gen.id(), gen.sentence(vocabulary, 5), t).build());
    }
    putAll(records);

    List<ScoredRecord> all = search(ns, query(text, 1000, t));
    assertFalse(all.isEmpty(), "no hits for '" + text + "'");
    assertEquals(target.id(), all.get(0).record().id(), "best hit");
    float best = all.get(0).score();
    float worst = all.get(all.size() - 1).score();
    assertTrue(best > worst, "all " + all.size() + " hits score " + best);
    float threshold = (best + worst) / 2;
    SearchQuery q = new SearchQuery(text, null, 1000, Set.of(), List.of(), threshold, t);
    List<String> expected =
        all.stream()
            .filter(h -> h.score() >= threshold)
            .map(h -> h.record().id())
            .sorted()
            .toList();
    assertEquals(expected, sortedIds(search(ns, q)), "hits at minScore " + threshold);
  }

  @Test
  public void searchSkipsExpiredForgottenAndSupersededRecords() {
    requireRecords();
    Namespace ns = gen.namespace();
    String word = gen.word();
    Instant now = gen.instant();
    Instant created = now.minus(Duration.ofDays(2));
    MemoryRecord lasting = gen.record(ns, gen.id(), word + " lasting", created).build();
    MemoryRecord expiresLater = expiring(ns, word, created, now.plus(Duration.ofHours(1)));
    MemoryRecord expired = expiring(ns, word, created, now.minusSeconds(1));
    MemoryRecord expiresNow = expiring(ns, word, created, now);
    MemoryRecord forgotten =
        gen.record(ns, gen.id(), word + " forgotten", created)
            .status(MemoryStatus.FORGOTTEN)
            .build();
    MemoryRecord superseded =
        gen.record(ns, gen.id(), word + " superseded", created)
            .status(MemoryStatus.SUPERSEDED)
            .build();
    MemoryRecord forgottenLater =
        gen.record(ns, gen.id(), word + " forgotten later", created).build();
    putAll(
        List.of(lasting, expiresLater, expired, expiresNow, forgotten, superseded, forgottenLater));

    assertEquals(
        sorted(lasting.id(), expiresLater.id(), forgottenLater.id()),
        sortedIds(search(ns, query(word, 100, now))),
        "recallable at query.now()");

    store.put(forgottenLater.toBuilder().status(MemoryStatus.FORGOTTEN).build());
    assertEquals(
        sorted(lasting.id(), expiresLater.id()),
        sortedIds(search(ns, query(word, 100, now))),
        "after a record is forgotten");
    assertEquals(
        sorted(lasting.id()),
        sortedIds(search(ns, query(word, 100, now.plus(Duration.ofHours(2))))),
        "two hours after query.now(): expiry is judged at the query's instant");
    assertEquals(
        sorted(lasting.id(), expiresLater.id(), expired.id(), expiresNow.id()),
        sortedIds(search(ns, query(word, 100, now.minus(Duration.ofHours(1))))),
        "an hour before query.now(): nothing had expired yet");
  }

  @Test
  public void searchReturnsAtMostTopKBestFirst() {
    requireRecords();
    Namespace ns = gen.namespace();
    List<String> queryWords = gen.words(3);
    String text = String.join(" ", queryWords);
    Instant t = gen.instant();
    List<MemoryRecord> records = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      // 1..3 of the query's words, plus filler: a spread of scores.
      List<String> held = queryWords.subList(0, 1 + random.nextInt(3));
      records.add(
          gen.record(ns, gen.id(), String.join(" ", held) + " " + gen.word() + " " + gen.word(), t)
              .build());
    }
    putAll(records);

    List<ScoredRecord> all = search(ns, query(text, 1000, t));
    assertEquals(30, all.size(), "every record holding a query word is a hit");
    for (int topK : new int[] {1, 5, 29}) {
      List<ScoredRecord> hits = search(ns, query(text, topK, t));
      assertEquals(topK, hits.size(), "top " + topK + " of 30");
      for (int i = 0; i < topK; i++) {
        assertEquals(
            all.get(i).score(), hits.get(i).score(), 1e-5f, "score of hit " + i + " of " + topK);
      }
    }
  }

  // ---------------------------------------------------------------- durability, concurrency

  @Test
  public void recordsAndFilesSurviveCloseAndReopen() {
    Set<Capability> caps = provider.capabilities();
    Namespace ns = gen.namespace();
    Namespace other = gen.namespace();
    List<MemoryRecord> records = new ArrayList<>();
    String word = gen.word();
    MemoryRecord target = null;
    MemoryRecord deleted = null;
    if (caps.contains(Capability.RECORDS)) {
      for (int i = 0; i < 30; i++) {
        records.add(gen.fullRecord(i % 5 == 0 ? other : ns, gen.id()));
      }
      target = gen.record(ns, gen.id(), "findable " + word, gen.instant()).build();
      records.add(target);
      putAll(records);
      deleted = gen.fullRecord(ns, gen.id());
      store.put(deleted);
      assertTrue(store.delete(ns, deleted.id()), "delete before close");
    }
    String fileA = "# Notes\n\n- 用户喜欢简洁的回答\n- " + gen.word() + "\n";
    String fileB = "# Other\n" + gen.unicodeFragment() + "\n";
    // Files in namespaces of their own: a store may keep a namespace's records in its file.
    Namespace fileNs = gen.namespace();
    Namespace fileOther = gen.namespace();
    if (caps.contains(Capability.FILES)) {
      store.writeFile(fileNs, fileA, null);
      store.writeFile(fileOther, fileB, null);
    }

    reopen();

    if (caps.contains(Capability.RECORDS)) {
      for (MemoryRecord r : records) {
        assertEquals(Optional.of(r), store.get(r.namespace(), r.id()), "after reopen: " + r.id());
      }
      assertEquals(Optional.empty(), store.get(ns, deleted.id()), "deleted stays deleted");
      assertEquals(
          records.stream()
              .filter(r -> r.namespace().equals(ns))
              .sorted(ListCursor.NEWEST_FIRST)
              .toList(),
          listAll(ns, 7, true),
          "list after reopen");
      List<ScoredRecord> hits = search(ns, query(word, 10, target.createTime()));
      assertFalse(hits.isEmpty(), "search after reopen finds nothing");
      assertEquals(target, hits.get(0).record(), "search after reopen");
    }
    if (caps.contains(Capability.FILES)) {
      assertFileHolds(fileA, store.readFile(fileNs), "file after reopen");
      assertFileHolds(fileB, store.readFile(fileOther), "other namespace's file after reopen");
    }
  }

  @Test
  public void concurrentWritersAllLand() throws Exception {
    requireRecords();
    Namespace ns = gen.namespace();
    int threads = 8;
    int perThread = 25;
    List<List<MemoryRecord>> work = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      List<MemoryRecord> mine = new ArrayList<>();
      for (int j = 0; j < perThread; j++) {
        mine.add(gen.fullRecord(ns, gen.id()));
      }
      work.add(mine);
    }
    String word = gen.word();
    CountDownLatch start = new CountDownLatch(1);
    List<Callable<Void>> tasks = new ArrayList<>();
    for (List<MemoryRecord> mine : work) {
      tasks.add(
          () -> {
            start.await();
            for (MemoryRecord r : mine) {
              store.put(r);
              assertEquals(Optional.of(r), store.get(ns, r.id()), "read of own write " + r.id());
            }
            return null;
          });
    }
    // A reader alongside the writers: it must never fail nor see another namespace.
    tasks.add(
        () -> {
          start.await();
          for (int i = 0; i < 20; i++) {
            store.list(ns, new ListQuery(50, null, true));
            search(ns, query(word, 10, Instant.parse("2025-06-01T00:00:00Z")));
          }
          return null;
        });
    runAll(tasks, start);

    List<MemoryRecord> all = work.stream().flatMap(List::stream).toList();
    for (MemoryRecord r : all) {
      assertEquals(Optional.of(r), store.get(ns, r.id()), "get after concurrent puts: " + r.id());
    }
    assertEquals(
        all.stream().sorted(ListCursor.NEWEST_FIRST).toList(),
        listAll(ns, 64, true),
        "list after " + all.size() + " concurrent puts");
  }

  // ---------------------------------------------------------------- ids, provider, capabilities

  @Test
  public void badIdsAreRejectedBeforeAnyStoreSeesThem() {
    Namespace ns = gen.namespace();
    for (String bad : List.of("a b", "..", ".", "", "a/b", "a\\b", "x".repeat(65), "ü", "a\nb")) {
      MemoryException e =
          assertCode(
              Code.INVALID_ARGUMENT,
              () -> gen.record(ns, bad, "content", gen.instant()).build(),
              "MemoryRecord with id '" + bad + "'");
      assertEquals("id", e.field(), "the field at fault");
    }
    for (String bad : List.of("", "a b", "ns?x", "x".repeat(301))) {
      assertCode(Code.INVALID_ARGUMENT, () -> Namespace.of(bad), "namespace '" + bad + "'");
    }
    assertCode(Code.INVALID_ARGUMENT, () -> new ListQuery(0, null, false), "page size 0");
    assertCode(Code.INVALID_ARGUMENT, () -> new ListQuery(1001, null, false), "page size 1001");
    assertCode(Code.INVALID_ARGUMENT, () -> query("x", 0, Instant.EPOCH), "top k 0");
  }

  @Test
  public void providerDeclaresItsNameAndCapabilities() {
    String name = provider.name();
    assertNotNull(name, "name()");
    assertFalse(name.isBlank(), "name() is blank");
    assertEquals(name.toLowerCase(Locale.ROOT), name, "name() must be lower case");
    assertFalse(name.chars().anyMatch(Character::isWhitespace), "name() has whitespace: " + name);
    Set<String> aliases = provider.aliases();
    assertNotNull(aliases, "aliases()");
    for (String alias : aliases) {
      assertEquals(alias.toLowerCase(Locale.ROOT), alias, "aliases must be lower case");
      assertNotEquals(name, alias, "an alias repeats the name");
    }
    Set<Capability> caps = provider.capabilities();
    assertNotNull(caps, "capabilities()");
    assertFalse(caps.isEmpty(), "a provider declares at least one capability");
  }

  @Test
  public void openRejectsAnUnknownSettingNamingIt() throws IOException {
    String key = "conformance.no-such-setting";
    Path dir = Files.createDirectories(tempDirectory.resolve("unknown-setting"));
    MemoryStore opened;
    try {
      opened = open(dir, Map.of(key, "x"));
    } catch (MemoryException e) {
      assertEquals(Code.INVALID_ARGUMENT, e.code(), "open with unknown setting: " + e);
      String said = e.getMessage() + " " + e.field();
      assertTrue(said.contains(key), "the error names the setting: " + said);
      return;
    }
    opened.close();
    fail("open() accepted the unknown setting '" + key + "'");
  }

  @Test
  public void undeclaredRecordsCapabilityFailsUnimplemented() {
    requireUndeclared(Capability.RECORDS);
    Namespace ns = gen.namespace();
    MemoryRecord r = gen.fullRecord(ns, gen.id());
    assertCode(Code.UNIMPLEMENTED, () -> store.put(r), "put without RECORDS");
    assertCode(Code.UNIMPLEMENTED, () -> store.get(ns, r.id()), "get without RECORDS");
    assertCode(
        Code.UNIMPLEMENTED,
        () -> store.list(ns, new ListQuery(10, null, true)),
        "list without RECORDS");
    assertCode(
        Code.UNIMPLEMENTED,
        () -> store.search(ns, query("x", 10, Instant.EPOCH)),
        "search without RECORDS");
    assertCode(Code.UNIMPLEMENTED, () -> store.delete(ns, r.id()), "delete without RECORDS");
  }

  @Test
  public void undeclaredFilesCapabilityFailsUnimplemented() {
    requireUndeclared(Capability.FILES);
    Namespace ns = gen.namespace();
    assertCode(Code.UNIMPLEMENTED, () -> store.readFile(ns), "readFile without FILES");
    assertCode(
        Code.UNIMPLEMENTED, () -> store.writeFile(ns, "# x", null), "writeFile without FILES");
    assertCode(
        Code.UNIMPLEMENTED,
        () -> store.writeFile(ns, "# x", MemoryFile.etagOf("")),
        "conditional writeFile");
  }

  // ---------------------------------------------------------------- memory files

  @Test
  public void absentMemoryFileReadsEmpty() {
    requireFiles();
    MemoryFile file = store.readFile(gen.namespace());
    assertEquals("", file.content(), "content of an absent file");
    assertEquals(MemoryFile.etagOf(""), file.etag(), "etag of an absent file");
    assertNull(file.updateTime(), "update time of an absent file");
  }

  @Test
  public void memoryFileWritesAreConditionalOnTheEtag() {
    requireFiles();
    Namespace ns = gen.namespace();
    String absentEtag = MemoryFile.etagOf("");
    String v1 = "# Memory\n\n- prefers 简洁 answers\n- " + gen.word() + " 🚀\n";
    MemoryFile written = store.writeFile(ns, v1, absentEtag);
    assertFileHolds(v1, written, "write if absent returns the file");
    assertFileHolds(v1, store.readFile(ns), "read after write");

    String v2 = v1 + "- " + gen.word() + "\n";
    assertCode(Code.ABORTED, () -> store.writeFile(ns, v2, absentEtag), "write with stale etag");
    assertFileHolds(v1, store.readFile(ns), "a refused write changes nothing");

    MemoryFile second = store.writeFile(ns, v2, written.etag());
    assertFileHolds(v2, second, "write with the current etag");
    assertFileHolds(v2, store.readFile(ns), "read after conditional write");

    String v3 = "# Replaced\n";
    assertFileHolds(v3, store.writeFile(ns, v3, null), "unconditional write (null etag)");
    String v4 = "# Replaced again\n";
    assertFileHolds(v4, store.writeFile(ns, v4, ""), "unconditional write (empty etag)");
    assertFileHolds(v4, store.readFile(ns), "read after unconditional writes");
  }

  @Test
  public void namespacesListsEveryNamespaceHoldingSomething() {
    boolean records = provider.capabilities().contains(Capability.RECORDS);
    boolean files = provider.capabilities().contains(Capability.FILES);
    Namespace withRecords = gen.namespace();
    Namespace withFile = Namespace.of(withRecords.value() + ":f");
    Namespace untouched = Namespace.of(withRecords.value() + ":none");
    Instant t = gen.instant();
    List<Namespace> expected = new ArrayList<>();
    if (records) {
      store.put(gen.record(withRecords, gen.id(), "listed " + gen.word(), t).build());
      store.put(
          gen.record(withRecords, gen.id(), "superseded " + gen.word(), t)
              .status(MemoryStatus.SUPERSEDED)
              .build());
      expected.add(withRecords);
    }
    if (files) {
      store.writeFile(withFile, "# notes\n- " + gen.word() + "\n", null);
      expected.add(withFile);
    }
    List<Namespace> listed;
    try {
      listed = store.namespaces();
    } catch (MemoryException e) {
      assertEquals(Code.UNIMPLEMENTED, e.code(), "a store that cannot list says UNIMPLEMENTED");
      assumeTrue(false, "the store does not list its namespaces (optional)");
      return;
    }
    assertTrue(
        listed.containsAll(expected), "namespaces() " + listed + " holds every one of " + expected);
    assertFalse(listed.contains(untouched), "a namespace never written is not listed");
    assertEquals(Set.copyOf(listed).size(), listed.size(), "each namespace once: " + listed);
  }

  @Test
  public void memoryFilesAreIsolatedPerNamespace() {
    requireFiles();
    Namespace a = gen.namespace();
    Namespace b = Namespace.of(a.value() + ":x");
    String contentA = "# A\n" + gen.word() + "\n";
    store.writeFile(a, contentA, null);
    MemoryFile fileB = store.readFile(b);
    assertEquals("", fileB.content(), "b sees nothing of a's file");
    assertNull(fileB.updateTime(), "b's file does not exist");

    String contentB = "# B\n" + gen.word() + "\n";
    store.writeFile(b, contentB, MemoryFile.etagOf(""));
    assertFileHolds(contentA, store.readFile(a), "a's file after b's write");
    assertFileHolds(contentB, store.readFile(b), "b's file");
  }

  @Test
  public void concurrentConditionalFileWritesHaveOneWinner() throws Exception {
    requireFiles();
    Namespace ns = gen.namespace();
    String base = "# Base\n";
    String etag = store.writeFile(ns, base, null).etag();
    int writers = 8;
    List<String> contents = new ArrayList<>();
    for (int i = 0; i < writers; i++) {
      contents.add(base + "- writer " + i + " " + gen.word() + "\n");
    }
    CountDownLatch start = new CountDownLatch(1);
    List<Callable<String>> tasks = new ArrayList<>();
    for (String content : contents) {
      tasks.add(
          () -> {
            start.await();
            try {
              store.writeFile(ns, content, etag);
              return content;
            } catch (MemoryException e) {
              assertEquals(Code.ABORTED, e.code(), "a losing conditional write: " + e);
              return null;
            }
          });
    }
    List<String> winners = runAll(tasks, start).stream().filter(w -> w != null).toList();
    assertEquals(1, winners.size(), "writers that won with the same etag: " + winners.size());
    assertFileHolds(winners.get(0), store.readFile(ns), "the winner's content");
  }

  // ---------------------------------------------------------------- close

  @Test
  public void closeIsIdempotentAndLaterCallsFail() {
    Namespace ns = gen.namespace();
    MemoryRecord r = gen.fullRecord(ns, gen.id());
    Set<Capability> caps = provider.capabilities();
    if (caps.contains(Capability.RECORDS)) {
      store.put(r);
    }
    store.close();
    store.close();
    Code closed = Code.FAILED_PRECONDITION;
    if (caps.contains(Capability.RECORDS)) {
      assertCode(closed, () -> store.put(r), "put after close");
      assertCode(closed, () -> store.get(ns, r.id()), "get after close");
      assertCode(closed, () -> store.list(ns, new ListQuery(10, null, true)), "list after close");
      assertCode(
          closed, () -> store.search(ns, query("x", 10, Instant.EPOCH)), "search after close");
      assertCode(closed, () -> store.delete(ns, r.id()), "delete after close");
    }
    if (caps.contains(Capability.FILES)) {
      assertCode(closed, () -> store.readFile(ns), "readFile after close");
      assertCode(closed, () -> store.writeFile(ns, "x", null), "writeFile after close");
    }
  }

  // ---------------------------------------------------------------- helpers

  private MemoryStore open(Path dir, Map<String, String> extraSettings) {
    Map<String, String> settings = new HashMap<>(settings(dir));
    settings.putAll(extraSettings);
    MemoryStore opened =
        provider.open(new ProviderContext(RandomMemories.PROFILE, dir, settings, embedder));
    assertNotNull(opened, provider.name() + ".open() returned null");
    return opened;
  }

  private void requireRecords() {
    assumeTrue(
        provider.capabilities().contains(Capability.RECORDS),
        provider.name() + " does not declare RECORDS");
  }

  private void requireFiles() {
    assumeTrue(
        provider.capabilities().contains(Capability.FILES),
        provider.name() + " does not declare FILES");
  }

  private void requireUndeclared(Capability capability) {
    assumeFalse(
        provider.capabilities().contains(capability), provider.name() + " declares " + capability);
  }

  private void putAll(Collection<MemoryRecord> records) {
    for (MemoryRecord r : records) {
      store.put(r);
    }
  }

  private static SearchQuery query(String text, int topK, Instant now) {
    return new SearchQuery(text, null, topK, Set.of(), List.of(), 0f, now);
  }

  /** Searches and checks what holds for every search: see {@link MemoryStore#search}. */
  private List<ScoredRecord> search(Namespace ns, SearchQuery q) {
    List<ScoredRecord> hits = store.search(ns, q);
    assertNotNull(hits, "search returned null");
    String what = "search '" + q.text() + "' in '" + ns + "'";
    assertTrue(hits.size() <= q.topK(), what + ": " + hits.size() + " hits > topK " + q.topK());
    Set<String> seen = new HashSet<>();
    ScoredRecord previous = null;
    for (ScoredRecord hit : hits) {
      MemoryRecord r = hit.record();
      assertEquals(ns, r.namespace(), what + ": a record of another namespace: " + r.id());
      assertTrue(seen.add(r.id()), what + ": record '" + r.id() + "' returned twice");
      assertTrue(q.admits(r), what + ": record '" + r.id() + "' does not pass the filters: " + r);
      float s = hit.score();
      assertTrue(s >= 0f && s <= 1f, what + ": score " + s + " outside 0..1");
      assertTrue(s >= q.minScore(), what + ": score " + s + " below minScore " + q.minScore());
      if (previous != null && ScoredRecord.BEST_FIRST.compare(previous, hit) >= 0) {
        fail(what + ": not in BEST_FIRST order: " + describe(previous) + " then " + describe(hit));
      }
      previous = hit;
    }
    return hits;
  }

  /** Every record of {@code ns} by pages of {@code pageSize}, checking each page. */
  private List<MemoryRecord> listAll(Namespace ns, int pageSize, boolean includeInactive) {
    return listFrom(ns, pageSize, includeInactive, null);
  }

  private List<MemoryRecord> listFrom(
      Namespace ns, int pageSize, boolean includeInactive, String cursor) {
    List<MemoryRecord> out = new ArrayList<>();
    int pages = 0;
    do {
      Page page = store.list(ns, new ListQuery(pageSize, cursor, includeInactive));
      assertNotNull(page, "list returned null");
      String what = "list of '" + ns + "', page " + pages + " of size " + pageSize;
      int size = page.records().size();
      assertTrue(size <= pageSize, what + ": " + size + " records");
      for (MemoryRecord r : page.records()) {
        assertEquals(ns, r.namespace(), what + ": a record of another namespace: " + r.id());
      }
      cursor = page.nextCursor();
      assertTrue(
          cursor == null || !page.records().isEmpty(), what + ": an empty page before the end");
      out.addAll(page.records());
      pages++;
      assertTrue(pages <= 10_000, what + ": paging does not end");
    } while (cursor != null);
    return out;
  }

  private MemoryRecord tagged(Namespace ns, String word, Instant t, List<String> tags) {
    return gen.record(ns, gen.id(), word + " " + gen.word(), t).tags(tags).build();
  }

  private MemoryRecord expiring(Namespace ns, String word, Instant created, Instant expire) {
    return gen.record(ns, gen.id(), word + " expires " + expire, created)
        .validity(Validity.SHORT_TERM)
        .expireTime(expire)
        .build();
  }

  private static void assertFileHolds(String content, MemoryFile file, String what) {
    assertNotNull(file, what + ": null file");
    assertEquals(content, file.content(), what + ": content");
    assertEquals(MemoryFile.etagOf(content), file.etag(), what + ": etag");
    assertNotNull(file.updateTime(), what + ": a written file has an update time");
  }

  private static MemoryException assertCode(Code code, Executable call, String what) {
    MemoryException e = assertThrows(MemoryException.class, call, what);
    assertEquals(code, e.code(), what + ": " + e.getMessage());
    return e;
  }

  private static String describe(ScoredRecord hit) {
    return hit.record().id()
        + " (score "
        + hit.score()
        + ", updated "
        + hit.record().updateTime()
        + ")";
  }

  private static List<String> recordIds(List<MemoryRecord> records) {
    return records.stream().map(MemoryRecord::id).toList();
  }

  private static List<String> hitIds(List<ScoredRecord> hits) {
    return hits.stream().map(h -> h.record().id()).toList();
  }

  private static List<String> sortedIds(List<ScoredRecord> hits) {
    return hitIds(hits).stream().sorted().toList();
  }

  private static List<String> sorted(String... ids) {
    return Arrays.stream(ids).sorted().toList();
  }

  /**
   * Runs {@code tasks} on their own threads, opens {@code start}, and returns their results in
   * order; the first failure is rethrown as it was.
   */
  private static <T> List<T> runAll(List<Callable<T>> tasks, CountDownLatch start)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (Callable<T> task : tasks) {
        futures.add(pool.submit(task));
      }
      start.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> f : futures) {
        try {
          results.add(f.get(WORKER_DEADLINE.toMinutes(), TimeUnit.MINUTES));
        } catch (ExecutionException e) {
          if (e.getCause() instanceof Exception cause) {
            throw cause;
          }
          if (e.getCause() instanceof Error error) {
            throw error;
          }
          throw e;
        } catch (TimeoutException e) {
          fail("a worker did not finish within " + WORKER_DEADLINE + ": deadlock?");
        }
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }

  private static long mix(long seed, String name) {
    long h = seed ^ (name.hashCode() * 0x9E3779B97F4A7C15L);
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    return h ^ (h >>> 33);
  }
}
