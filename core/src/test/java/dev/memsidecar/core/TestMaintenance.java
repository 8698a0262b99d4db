package dev.memsidecar.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.Capability;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryFile;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.api.Validity;
import dev.memsidecar.conformance.InMemoryProvider;
import dev.memsidecar.core.config.Flags;
import dev.memsidecar.core.config.Maintenance;
import dev.memsidecar.core.config.MaintenanceSchedule;
import dev.memsidecar.core.config.RunConfig;
import dev.memsidecar.core.config.ScopeKind;
import dev.memsidecar.core.control.ControlStore;
import dev.memsidecar.core.control.ControlStoresForTests;
import dev.memsidecar.core.events.EventBus;
import dev.memsidecar.core.events.RuntimeEvent;
import dev.memsidecar.core.events.Watch;
import dev.memsidecar.core.maintenance.LangMemTarget;
import dev.memsidecar.core.maintenance.MaintenancePass;
import dev.memsidecar.core.maintenance.MaintenanceService;
import dev.memsidecar.core.maintenance.MaintenanceTarget;
import dev.memsidecar.core.maintenance.TargetRun;
import dev.memsidecar.core.run.BeginRunInput;
import dev.memsidecar.core.run.Dedupe;
import dev.memsidecar.toolkit.HashEmbedder;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Maintenance in core: the langmem target's merge, supersede, expiry, drop and retention on a
 * records-only store; housekeeping of snapshots and the audit; the deepagents target's compaction;
 * the service's independence of targets, events, kept runs, unknown names and schedule.
 */
class TestMaintenance {
  private static final Scope ACME = Scope.workspace("acme");
  private static final Namespace NS = Namespace.of("acme:workspace:workspace");

  @TempDir Path data;

  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.parse("2026-05-01T10:00:00Z"));
  private final Clock clock = Engines.clock(now::get);
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : open.reversed()) {
      c.close();
    }
  }

  private MemoryEngine engine(Maintenance maintenance, Set<Capability> capabilities) {
    MemoryEngine e =
        Engines.open(
            data,
            Flags.ALL_ON,
            List.of(Engines.profile("workspace", ScopeKind.WORKSPACE)),
            clock,
            Engines.providers(new InMemoryProvider(capabilities)),
            null,
            ScriptedExtractor.provider(),
            RunConfig.DEFAULT,
            maintenance);
    open.add(e);
    return e;
  }

  private MemoryEngine recordsEngine(Maintenance maintenance) {
    return engine(maintenance, Set.of(Capability.RECORDS));
  }

  /** The profile's store, opened beside the engine on the same in-memory disk. */
  private MemoryStore store() {
    MemoryStore s =
        new InMemoryProvider(Set.of(Capability.RECORDS))
            .open(
                new ProviderContext(
                    "workspace",
                    data.resolve("profiles").resolve("workspace"),
                    Map.of(),
                    new HashEmbedder()));
    open.add(s);
    return s;
  }

  private static MemoryRecord.Builder record(
      String id, String content, Instant created, float score, String source) {
    return MemoryRecord.builder()
        .id(id)
        .namespace(NS)
        .profile("workspace")
        .kind(MemoryKind.SEMANTIC)
        .content(content)
        .times(created)
        .gateScore(score)
        .confidence(0.8f)
        .sourceRefs(List.of(source));
  }

  private static Map<String, Long> counts(MemoryEngine e, String target) {
    TargetRun run = e.maintenance().runNow(List.of(target)).get(0);
    assertTrue(run.ok(), target + " failed: " + run.error());
    return run.counts();
  }

  private static MemoryRecord get(MemoryStore s, String id) {
    return s.get(NS, id).orElseThrow(() -> new AssertionError("no record " + id));
  }

  @Test
  void langmemMergesDuplicatesAndSupersedesContradictionsKeepingHistory() {
    MemoryEngine e = recordsEngine(Maintenance.DEFAULT);
    MemoryStore s = store();
    Instant t = now.get().minus(Duration.ofDays(2));
    s.put(record("tuesday", "The deploy day is Tuesday.", t, 8.0f, "run:r1").build());
    s.put(
        record("coffee-1", "Alice prefers dark roast coffee.", t.plusSeconds(1), 7.8f, "run:r2")
            .build());
    s.put(record("lyon", "The office is in Lyon.", t.plusSeconds(2), 7.5f, "run:r3").build());
    s.put(
        record("coffee-2", "Alice prefers dark roast coffee.", t.plusSeconds(3), 7.8f, "run:r4")
            .tags(List.of("drinks"))
            .build());
    s.put(
        record("thursday", "The deploy day is now Thursday.", t.plusSeconds(4), 8.2f, "run:r5")
            .build());

    Map<String, Long> c = counts(e, "langmem");
    assertEquals(1, c.get("merged"), c.toString());
    assertEquals(1, c.get("superseded"), c.toString());
    assertEquals(5, c.get("records"), c.toString());
    assertEquals(1, c.get("namespaces"), c.toString());

    MemoryRecord kept = get(s, "coffee-1");
    assertEquals(MemoryStatus.ACTIVE, kept.status());
    assertEquals(List.of("run:r2", "run:r4"), kept.sourceRefs(), "the duplicate's source joins");
    assertEquals(List.of("drinks"), kept.tags());
    MemoryRecord dup = get(s, "coffee-2");
    assertEquals(MemoryStatus.SUPERSEDED, dup.status(), "the duplicate is kept, not recalled");
    assertEquals("coffee-1", dup.metadata().get(Dedupe.SUPERSEDED_BY));
    assertEquals(MemoryStatus.SUPERSEDED, get(s, "tuesday").status());
    assertEquals("thursday", get(s, "tuesday").metadata().get(Dedupe.SUPERSEDED_BY));
    assertEquals("tuesday", get(s, "thursday").metadata().get(Dedupe.SUPERSEDES));
    assertEquals(MemoryStatus.ACTIVE, get(s, "lyon").status());

    Map<String, Long> again = counts(e, "langmem");
    assertEquals(0, again.get("merged") + again.get("superseded"), "a second pass finds nothing");
  }

  @Test
  void langmemExpiresDropsLowScoresAndKeepsExplicitAndUnscoredRecords() {
    MemoryEngine e = recordsEngine(Maintenance.DEFAULT);
    MemoryStore s = store();
    Instant t = now.get().minus(Duration.ofDays(8));
    s.put(
        record("swamped", "Jon is swamped this week.", t, 7.0f, "run:r1")
            .validity(Validity.SHORT_TERM)
            .expireTime(now.get().minusSeconds(60))
            .build());
    s.put(record("weak", "Jon likes some things sometimes.", t, 4.3f, "run:r2").build());
    s.put(record("asked", "Jon's locker code is 4411.", t, 4.3f, "remember:q1").build());
    s.put(record("unscored", "Jon imported this note.", t, 0f, "import").build());
    s.put(record("strong", "Jon's manager is Priya.", t, 7.8f, "run:r3").build());

    Map<String, Long> c = counts(e, "langmem");
    assertEquals(1, c.get("expired"), c.toString());
    assertEquals(1, c.get("dropped"), c.toString());
    assertTrue(s.get(NS, "swamped").isEmpty(), "an expired short-term record is deleted");
    MemoryRecord weak = get(s, "weak");
    assertEquals(MemoryStatus.FORGOTTEN, weak.status(), "dropped from recall, kept as history");
    assertEquals(
        "re-scored 4.3, below the cleanup threshold 5.0",
        weak.metadata().get(LangMemTarget.DROPPED));
    assertEquals(MemoryStatus.ACTIVE, get(s, "asked").status(), "explicit: floored at 8");
    assertEquals(MemoryStatus.ACTIVE, get(s, "unscored").status(), "never scored: not re-scored");
    assertEquals(MemoryStatus.ACTIVE, get(s, "strong").status());
  }

  @Test
  void retentionDeletesOldHistoryThenTheLeastValuableRecords() {
    Maintenance m = withRecords(new Maintenance.RecordRetention(5.0, Duration.ofDays(30), 3, 0));
    MemoryEngine e = recordsEngine(m);
    MemoryStore s = store();
    Instant old = now.get().minus(Duration.ofDays(40));
    s.put(
        record("history", "The team used Jenkins.", old, 7.5f, "run:r0")
            .status(MemoryStatus.SUPERSEDED)
            .build());
    Instant t = now.get().minus(Duration.ofDays(1));
    s.put(record("a", "Alpha ships on Mondays.", t, 7.0f, "run:r1").build());
    s.put(record("b", "Beta uses Postgres 16.", t.plusSeconds(1), 9.0f, "run:r2").build());
    s.put(record("c", "Gamma is owned by Rui.", t.plusSeconds(2), 8.0f, "run:r3").build());
    s.put(record("d", "Delta runs on Fridays.", t.plusSeconds(3), 7.5f, "run:r4").build());

    Map<String, Long> c = counts(e, "langmem");
    assertEquals(1, c.get("deleted_age"), c.toString());
    assertEquals(1, c.get("deleted_count"), c.toString());
    assertTrue(s.get(NS, "history").isEmpty(), "history past maxAge is deleted");
    assertTrue(s.get(NS, "a").isEmpty(), "over maxCount, the lowest score goes first");
    for (String id : List.of("b", "c", "d")) {
      assertEquals(MemoryStatus.ACTIVE, get(s, id).status(), id);
    }
  }

  @Test
  void housekeepingDeletesExpiredSnapshotsAndPrunesTheAuditByAgeAndSize() {
    Maintenance m =
        new Maintenance(
            true,
            Maintenance.DEFAULT.schedule(),
            "",
            List.of(),
            Maintenance.RecordRetention.DEFAULT,
            new Maintenance.Housekeeping(Duration.ofDays(30), 0));
    MemoryEngine e = recordsEngine(m);
    e.beginRun(
        new BeginRunInput(ACME, "run-1", "what is the deploy day?", List.of(), 0, Map.of()),
        RequestOptions.DEFAULT);
    remember(e, "The deploy day is Thursday.", "q1");
    remember(e, "The build uses Maven.", "q2");
    now.set(now.get().plus(Duration.ofDays(31)));
    remember(e, "The office is in Lyon.", "q3");

    Map<String, Long> c = counts(e, "housekeeping");
    assertEquals(1, c.get("snapshots_deleted"), c.toString());
    assertEquals(2, c.get("decisions_deleted_age"), c.toString());
    assertEquals(1, e.writeDecisions(ACME, "", null, 0, "").entries().size(), "the newest stays");
    e.close();
    open.remove(e);

    Maintenance small =
        new Maintenance(
            true,
            Maintenance.DEFAULT.schedule(),
            "",
            List.of(),
            Maintenance.RecordRetention.DEFAULT,
            new Maintenance.Housekeeping(Duration.ZERO, 1));
    MemoryEngine again = recordsEngine(small);
    Map<String, Long> bySize = counts(again, "housekeeping");
    assertEquals(1, bySize.get("decisions_deleted_size"), bySize.toString());
    assertTrue(again.writeDecisions(ACME, "", null, 0, "").entries().isEmpty());
  }

  @Test
  void deepagentsCompactsMemoryFilesThroughTheFilesCapability() {
    MemoryEngine e = engine(Maintenance.DEFAULT, Set.of(Capability.RECORDS, Capability.FILES));
    String path = "/memories/workspace.md";
    e.files()
        .write(
            ACME,
            path,
            "# Notes\n- Alice likes tea\n- Alice likes tea\n\n\n\n- Bob\n",
            "",
            RequestOptions.DEFAULT);
    Map<String, Long> c = counts(e, "deepagents");
    assertEquals(1, c.get("files_compacted"), c.toString());
    assertEquals(1, c.get("duplicate_lines_removed"), c.toString());
    assertEquals(
        "# Notes\n- Alice likes tea\n\n- Bob\n",
        e.files().read(ACME, path, RequestOptions.DEFAULT).file().content());
  }

  @Test
  void deepagentsLeavesAFileEditedMeanwhileAloneAndCountsIt() {
    // A store whose memory file someone edits right after the target read it.
    InMemoryProvider inner = new InMemoryProvider();
    MemoryProvider editing =
        ForwardingStore.wrapping(
            inner,
            store ->
                new ForwardingStore(store) {
                  @Override
                  public MemoryFile readFile(Namespace namespace) {
                    MemoryFile read = store.readFile(namespace);
                    store.writeFile(namespace, read.content() + "- edited meanwhile\n", null);
                    return read;
                  }
                });
    MemoryEngine e =
        Engines.open(
            data,
            Flags.ALL_ON,
            List.of(Engines.profile("workspace", ScopeKind.WORKSPACE)),
            clock,
            Engines.providers(editing),
            null,
            ScriptedExtractor.provider(),
            RunConfig.DEFAULT,
            Maintenance.DEFAULT);
    open.add(e);
    MemoryStore raw =
        inner.open(
            new ProviderContext(
                "workspace",
                data.resolve("profiles").resolve("workspace"),
                Map.of(),
                new HashEmbedder()));
    raw.writeFile(NS, "- a\n- a\n", null);

    Map<String, Long> c = counts(e, "deepagents");
    assertEquals(1, c.get("files_changed_meanwhile"), c.toString());
    assertEquals(0, c.get("files_compacted"), c.toString());
    assertEquals("- a\n- a\n- edited meanwhile\n", raw.readFile(NS).content(), "left alone");
  }

  private static void remember(MemoryEngine e, String content, String requestId) {
    e.remember(
        new RememberInput(
            ACME, "workspace", content, null, List.of(), Map.of(), null, null, requestId, ""),
        RequestOptions.DEFAULT);
  }

  private static Maintenance withRecords(Maintenance.RecordRetention records) {
    return new Maintenance(
        true,
        Maintenance.DEFAULT.schedule(),
        "",
        List.of(),
        records,
        Maintenance.Housekeeping.DEFAULT);
  }

  // ---------------------------------------------------------------- the service

  private static MaintenanceTarget target(String name, long count, RuntimeException failure) {
    return new MaintenanceTarget() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public void run(MaintenancePass pass) {
        pass.add("things", count);
        if (failure != null) {
          throw failure;
        }
      }
    };
  }

  private MaintenanceService service(
      ControlStore store, EventBus events, Maintenance config, MaintenanceTarget... targets) {
    MaintenanceService s = new MaintenanceService(List.of(targets), config, store, events, clock);
    open.add(s);
    return s;
  }

  private ControlStore control() {
    ControlStore c = ControlStoresForTests.open(data);
    open.add(c);
    return c;
  }

  @Test
  void aFailingTargetLeavesTheOthersDoneAndEveryRunIsKeptAndEmitted() {
    ControlStore store = control();
    EventBus events = new EventBus();
    open.add(events);
    List<RuntimeEvent> seen = new CopyOnWriteArrayList<>();
    Watch watch = events.watch(Scope.workspace("any"), List.of("maintenance."), () -> {});
    MaintenanceService s =
        service(
            store,
            events,
            Maintenance.DEFAULT,
            target("good", 3, null),
            target("bad", 1, new IllegalStateException("the disk is gone")));

    List<TargetRun> runs = s.runNow(List.of());
    assertEquals(List.of("bad", "good"), runs.stream().map(TargetRun::target).toList());
    TargetRun bad = runs.get(0);
    assertFalse(bad.ok());
    assertEquals("IllegalStateException: the disk is gone", bad.error());
    assertEquals(1, bad.counts().get("things"), "what it did before failing is counted");
    assertTrue(runs.get(1).ok());
    assertEquals(3, runs.get(1).counts().get("things"));

    for (RuntimeEvent ev; (ev = watch.poll()) != null; ) {
      seen.add(ev);
    }
    assertEquals(2, seen.size(), "one event per target, whatever the watcher's scope: " + seen);
    RuntimeEvent good =
        seen.stream()
            .filter(ev -> ev.type().equals(MaintenanceService.COMPLETED))
            .findFirst()
            .get();
    assertEquals("3", good.attributes().get("things"));
    assertEquals("good", good.attributes().get("target"));
    RuntimeEvent failed =
        seen.stream().filter(ev -> ev.type().equals(MaintenanceService.FAILED)).findFirst().get();
    assertEquals("IllegalStateException: the disk is gone", failed.attributes().get("error"));

    s.close();
    MaintenanceService reopened =
        service(
            store, events, Maintenance.DEFAULT, target("good", 0, null), target("bad", 0, null));
    MaintenanceService.TargetStatus kept = reopened.status().targets().get(1);
    assertEquals("good", kept.name());
    assertEquals(3, kept.last().orElseThrow().counts().get("things"), "kept across a restart");
  }

  @Test
  void unknownTargetsAreRefusedNamingThem() {
    ControlStore store = control();
    EventBus events = new EventBus();
    MaintenanceService s = service(store, events, Maintenance.DEFAULT, target("good", 1, null));
    MemoryException e =
        assertThrows(MemoryException.class, () -> s.runNow(List.of("good", "nope")));
    assertEquals(MemoryException.Code.INVALID_ARGUMENT, e.code());
    assertEquals("targets", e.field());
    assertTrue(
        e.getMessage().contains("'nope'") && e.getMessage().contains("good"), e.getMessage());

    Maintenance naming =
        new Maintenance(
            true,
            Maintenance.DEFAULT.schedule(),
            "",
            List.of("good", "skils"),
            Maintenance.RecordRetention.DEFAULT,
            Maintenance.Housekeeping.DEFAULT);
    ConfigurationException startup =
        assertThrows(
            ConfigurationException.class,
            () ->
                new MaintenanceService(
                    List.of(target("good", 1, null)), naming, store, events, clock));
    assertTrue(
        startup.getMessage().contains("memory.maintenance.targets")
            && startup.getMessage().contains("'skils'"),
        startup.getMessage());
  }

  @Test
  void theScheduleRunsTheTargetsByItself() throws Exception {
    ControlStore store = control();
    EventBus events = new EventBus();
    open.add(events);
    Watch watch = events.watch(ACME, List.of(MaintenanceService.COMPLETED), () -> {});
    Maintenance everySecond =
        new Maintenance(
            true,
            new MaintenanceSchedule.Periodic(Duration.ofSeconds(1)),
            "",
            List.of(),
            Maintenance.RecordRetention.DEFAULT,
            Maintenance.Housekeeping.DEFAULT);
    MaintenanceService s =
        new MaintenanceService(
            List.of(target("good", 2, null)), everySecond, store, events, Clock.systemUTC());
    open.add(s);
    s.start();
    assertNotNull(s.status().targets().get(0).nextRun(), "the next run is known");
    RuntimeEvent first = null;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (first == null && System.nanoTime() < deadline) {
      first = watch.poll();
      Thread.sleep(50);
    }
    assertNotNull(first, "a scheduled pass ran");
    assertEquals("schedule", first.attributes().get("trigger"));
    assertEquals("2", first.attributes().get("things"));
  }
}
