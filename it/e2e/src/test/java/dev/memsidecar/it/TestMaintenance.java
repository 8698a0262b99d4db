package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.assertStatus;
import static dev.memsidecar.it.Fixtures.listAll;
import static dev.memsidecar.sidecar.bench.LockerFacts.fact;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.proto.v1.BeginRunRequest;
import dev.memsidecar.proto.v1.EndRunRequest;
import dev.memsidecar.proto.v1.EndRunResponse;
import dev.memsidecar.proto.v1.GetStatusRequest;
import dev.memsidecar.proto.v1.MaintenanceResult;
import dev.memsidecar.proto.v1.MaintenanceStatus;
import dev.memsidecar.proto.v1.MaintenanceTargetStatus;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.MemoryStatus;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.RunMaintenanceRequest;
import dev.memsidecar.proto.v1.RunMaintenanceResponse;
import dev.memsidecar.proto.v1.RuntimeEvent;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.WatchEventsRequest;
import dev.memsidecar.proto.v1.WatchEventsResponse;
import dev.memsidecar.proto.v1.WriteDecision;
import dev.memsidecar.proto.v1.WriteMemoryFileRequest;
import dev.memsidecar.proto.v1.WriteOutcome;
import dev.memsidecar.sidecar.bench.LockerFacts;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Maintenance over real gRPC on the built jar (issue 18, part 2): on a 2 s schedule it merges
 * duplicates, supersedes a contradicted fact, drops what re-scores below the cleanup threshold,
 * deletes expired BeginRun snapshots and prunes the audit, on langmem-sqlite and lucene-hnsw, with
 * its counts in {@code maintenance.completed} events that any watcher sees; a target that fails (a
 * memory file that cannot be read) leaves the others done; a {@code kill -9} in the middle of a
 * pass loses no active fact; an unknown schedule or target stops start-up naming it.
 *
 * <p>The duplicates are written straight into the profile's store while the sidecar is stopped,
 * with the provider itself: records that the write path never compared (a bulk import, data of a
 * release before dedupe), which only maintenance can consolidate.
 */
class TestMaintenance {
  private static final Scope ACME = Scope.newBuilder().setWorkspaceId("acme").build();
  private static final Namespace NS = Namespace.of("acme:workspace:workspace");
  private static final Duration LIMIT = Duration.ofMinutes(3);

  @TempDir Path dir;

  private static MemoryRecord record(String id, String content, Instant created, String source) {
    return MemoryRecord.builder()
        .id(id)
        .namespace(NS)
        .profile("workspace")
        .kind(MemoryKind.SEMANTIC)
        .content(content)
        .times(created)
        .gateScore(8.0f)
        .confidence(0.8f)
        .sourceRefs(List.of(source))
        .build();
  }

  /** Facts f0..f(n-1), then duplicates d0..d(dups-1) of the first ones, newer. */
  private static List<MemoryRecord> factsAndDuplicates(int n, int dups, Instant t) {
    List<MemoryRecord> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(record("f" + i, fact(i), t.plusMillis(i), "run:seed-" + i));
    }
    for (int i = 0; i < dups; i++) {
      out.add(record("d" + i, fact(i), t.plusSeconds(3600).plusMillis(i), "run:again-" + i));
    }
    return out;
  }

  /** Puts {@code records} into the workspace profile's store of {@code workspace}. */
  private static void seed(Path workspace, String provider, List<MemoryRecord> records)
      throws Exception {
    LockerFacts.seed(
        workspace.resolve(".memsidecar").resolve("profiles").resolve("workspace"),
        provider,
        records);
  }

  private static void configure(Path workspace, String provider, String maintenance) {
    Fixtures.writeServerConfig(
        workspace,
        "memory:\n  embedder: hash\n  gate: { threshold: 5.0 }\n  runs: { snapshotTtl: 2s }\n"
            + "  maintenance:\n"
            + maintenance.indent(4));
    try {
      Files.createDirectories(workspace.resolve("config/memory"));
      Files.writeString(
          workspace.resolve("config/memory/workspace.yaml"),
          """
          apiVersion: memsidecar.dev/v1
          kind: Memory
          metadata: { name: workspace }
          spec: { provider: %s, profile: workspace }
          """
              .formatted(provider));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Collects the maintenance events a watcher of another workspace sees. */
  private static List<RuntimeEvent> watch(SidecarProcess sidecar) {
    List<RuntimeEvent> events = new CopyOnWriteArrayList<>();
    dev.memsidecar.proto.v1.AdminServiceGrpc.newStub(sidecar.channel())
        .watchEvents(
            WatchEventsRequest.newBuilder()
                .setScope(Scope.newBuilder().setWorkspaceId("observer"))
                .addTypes("maintenance.")
                .build(),
            new StreamObserver<WatchEventsResponse>() {
              @Override
              public void onNext(WatchEventsResponse value) {
                events.add(value.getEvent());
              }

              @Override
              public void onError(Throwable t) {}

              @Override
              public void onCompleted() {}
            });
    return events;
  }

  private static long sum(List<RuntimeEvent> events, String target, String count) {
    return events.stream()
        .filter(e -> target.equals(e.getAttributesMap().get("target")))
        .mapToLong(e -> Long.parseLong(e.getAttributesMap().getOrDefault(count, "0")))
        .sum();
  }

  private static Map<String, Memory> byId(SidecarProcess s) {
    Map<String, Memory> out = new HashMap<>();
    for (Memory m : listAll(s.memory(), ACME, "workspace", 500, true)) {
      out.put(m.getId(), m);
    }
    return out;
  }

  private static void await(String what, BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + LIMIT.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + LIMIT + ": " + what);
      }
      Thread.sleep(250);
    }
  }

  private static void remember(SidecarProcess s, String content, String requestId) {
    s.memory()
        .remember(
            RememberRequest.newBuilder()
                .setScope(ACME)
                .setProfile("workspace")
                .setContent(content)
                .setRequestId(requestId)
                .build());
  }

  @ParameterizedTest
  @ValueSource(strings = {"langmem-sqlite", "lucene-hnsw"})
  void onItsScheduleMaintenanceMergesDropsAndPrunes(String provider) throws Exception {
    configure(
        dir,
        provider,
        """
        schedule: periodic
        interval: 2s
        langmem: { cleanupThreshold: 7.0 }
        housekeeping: { audit: { maxSize: 4KiB } }
        """);
    Instant t = Instant.parse("2026-04-01T09:00:00Z");
    List<MemoryRecord> seeded = new ArrayList<>(factsAndDuplicates(40, 15, t));
    seeded.add(record("old-deploy", "The deploy day is Tuesday.", t.plusSeconds(10), "run:x1"));
    seeded.add(
        record("new-deploy", "The deploy day is now Thursday.", t.plusSeconds(7200), "run:x2"));
    seed(dir, provider, seeded);

    try (SidecarProcess sidecar = SidecarProcess.start(dir)) {
      List<RuntimeEvent> events = watch(sidecar);
      MaintenanceStatus status =
          sidecar.admin().getStatus(GetStatusRequest.getDefaultInstance()).getMaintenance();
      assertTrue(status.getEnabled(), status::toString);
      assertEquals(
          List.of("deepagents", "housekeeping", "langmem", "skills"),
          status.getTargetsList().stream().map(MaintenanceTargetStatus::getName).toList());
      assertTrue(
          status.getTargetsList().stream().allMatch(MaintenanceTargetStatus::hasNextRunTime),
          status::toString);

      sidecar
          .memory()
          .beginRun(
              BeginRunRequest.newBuilder()
                  .setScope(ACME)
                  .setRunId("b1")
                  .setInput("Where does Zora keep the violin?")
                  .build());
      EndRunResponse weak =
          sidecar
              .memory()
              .endRun(
                  EndRunRequest.newBuilder()
                      .setScope(ACME)
                      .setRunId("weak-1")
                      .setInput("Jon: I'm feeling confident and won't give up.")
                      .build());
      WriteDecision kept =
          weak.getDecisionsList().stream()
              .filter(d -> d.getOutcome() == WriteOutcome.WRITE_OUTCOME_STORED)
              .findFirst()
              .orElseThrow(() -> new AssertionError("gate 5.0 keeps a weak fact: " + weak));
      assertTrue(kept.getGateScore() < 7.0, kept::toString);
      String weakId = kept.getMemory().getId();
      for (int k = 0; k < 12; k++) {
        remember(sidecar, fact(100 + k), "r" + k);
      }

      await(
          "duplicates merged, contradiction superseded, weak fact dropped: " + events,
          () -> {
            Map<String, Memory> all = byId(sidecar);
            return Stream.iterate(0, i -> i < 15, i -> i + 1)
                    .allMatch(
                        i -> all.get("d" + i).getStatus() == MemoryStatus.MEMORY_STATUS_SUPERSEDED)
                && all.get("old-deploy").getStatus() == MemoryStatus.MEMORY_STATUS_SUPERSEDED
                && all.get(weakId).getStatus() == MemoryStatus.MEMORY_STATUS_FORGOTTEN;
          });
      await(
          "an expired snapshot deleted and the audit pruned: " + events,
          () ->
              sum(events, "housekeeping", "snapshots_deleted") >= 1
                  && sum(events, "housekeeping", "decisions_deleted_size") >= 1);

      Map<String, Memory> all = byId(sidecar);
      for (int i = 0; i < 40; i++) {
        assertEquals(MemoryStatus.MEMORY_STATUS_ACTIVE, all.get("f" + i).getStatus(), "f" + i);
      }
      for (int i = 0; i < 15; i++) {
        assertEquals("f" + i, all.get("d" + i).getMetadataMap().get("superseded_by"));
        assertEquals(
            List.of("run:seed-" + i, "run:again-" + i), all.get("f" + i).getSourceRefsList());
      }
      assertEquals("new-deploy", all.get("old-deploy").getMetadataMap().get("superseded_by"));
      assertTrue(
          all.get(weakId).getMetadataMap().get("dropped").startsWith("re-scored"),
          all.get(weakId)::toString);
      assertEquals(15, sum(events, "langmem", "merged"), events::toString);
      assertEquals(1, sum(events, "langmem", "superseded"), events::toString);
      assertTrue(sum(events, "langmem", "dropped") >= 1, events::toString);
      assertTrue(
          events.stream()
              .allMatch(
                  e ->
                      e.getType().equals("maintenance.completed")
                          && "schedule".equals(e.getAttributesMap().get("trigger"))),
          events::toString);
      List<Memory> found =
          Fixtures.search(sidecar.memory(), ACME, "Zora violin locker", "workspace");
      assertEquals("f0", found.get(0).getId(), "the survivor is recalled, once");
      assertEquals(
          1, found.stream().filter(m -> m.getContent().equals(fact(0))).count(), found::toString);

      MaintenanceTargetStatus langmem =
          sidecar
              .admin()
              .getStatus(GetStatusRequest.getDefaultInstance())
              .getMaintenance()
              .getTargetsList()
              .stream()
              .filter(x -> x.getName().equals("langmem"))
              .findFirst()
              .orElseThrow();
      assertTrue(langmem.getLastRun().getOk(), langmem::toString);
      assertTrue(langmem.getLastRun().getCountsMap().containsKey("merged"), langmem::toString);
    }
  }

  @Test
  void aTargetThatFailsLeavesTheOthersDone() throws Exception {
    configure(dir, "langmem-sqlite", "enabled: false\n");
    try (SidecarProcess sidecar = SidecarProcess.start(dir)) {
      List<RuntimeEvent> events = watch(sidecar);
      sidecar
          .files()
          .writeMemoryFile(
              WriteMemoryFileRequest.newBuilder()
                  .setScope(ACME)
                  .setPath("/memories/workspace.md")
                  .setContent("- Zora keeps the violin\n- Zora keeps the violin\n")
                  .build());
      remember(sidecar, fact(1), "one");
      Path file;
      try (Stream<Path> walk = Files.walk(dir.resolve(".memsidecar"))) {
        file =
            walk.filter(p -> p.getFileName().toString().equals("workspace.md"))
                .findFirst()
                .orElseThrow();
      }
      // A memory file that cannot be read: a folder where the file was.
      Files.delete(file);
      Files.createDirectory(file);

      RunMaintenanceResponse res =
          sidecar.admin().runMaintenance(RunMaintenanceRequest.getDefaultInstance());
      Map<String, MaintenanceResult> byName = new HashMap<>();
      res.getResultsList().forEach(r -> byName.put(r.getName(), r));
      assertEquals(Set.of("langmem", "deepagents", "housekeeping", "skills"), byName.keySet());
      MaintenanceResult failed = byName.get("deepagents");
      assertFalse(failed.getOk(), failed::toString);
      assertTrue(failed.getError().contains("acme:workspace:workspace"), failed::toString);
      assertEquals(1, failed.getCountsMap().get("files_failed"), failed::toString);
      assertTrue(byName.get("langmem").getOk(), byName::toString);
      assertEquals(1, byName.get("langmem").getCountsMap().get("records"), byName::toString);
      assertTrue(byName.get("housekeeping").getOk(), byName::toString);
      assertTrue(byName.get("skills").getOk(), byName::toString);
      assertTrue(failed.getEndTime().getSeconds() >= failed.getStartTime().getSeconds());
      assertEquals("request", failed.getTrigger());

      await(
          "a maintenance.failed event",
          () -> events.stream().anyMatch(e -> e.getType().equals("maintenance.failed")));
      RuntimeEvent event =
          events.stream().filter(e -> e.getType().equals("maintenance.failed")).findFirst().get();
      assertEquals("deepagents", event.getAttributesMap().get("target"));
      assertEquals(failed.getError(), event.getAttributesMap().get("error"));

      MaintenanceStatus status =
          sidecar.admin().getStatus(GetStatusRequest.getDefaultInstance()).getMaintenance();
      assertFalse(status.getEnabled(), status::toString);
      for (MaintenanceTargetStatus target : status.getTargetsList()) {
        assertFalse(target.hasNextRunTime(), "schedule off: no next run " + target);
        assertEquals(byName.get(target.getName()), target.getLastRun());
      }

      assertStatus(
          Status.Code.INVALID_ARGUMENT,
          "targets",
          () ->
              sidecar
                  .admin()
                  .runMaintenance(RunMaintenanceRequest.newBuilder().addTargets("skils").build()));
      RunMaintenanceResponse one =
          sidecar
              .admin()
              .runMaintenance(
                  RunMaintenanceRequest.newBuilder().addTargets("housekeeping").build());
      assertEquals(1, one.getResultsCount());
      assertTrue(one.getResults(0).getOk());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"langmem-sqlite", "lucene-hnsw"})
  void aKillDuringAPassLosesNoActiveFact(String provider) throws Exception {
    int n = 1500;
    configure(dir, provider, "enabled: false\n");
    seed(dir, provider, factsAndDuplicates(n, n, Instant.parse("2026-04-01T09:00:00Z")));

    SidecarProcess first = SidecarProcess.start(dir);
    int supersededAtKill;
    try {
      ExecutorService caller = Executors.newSingleThreadExecutor();
      Future<RunMaintenanceResponse> pass =
          caller.submit(
              () ->
                  dev.memsidecar.proto.v1.AdminServiceGrpc.newBlockingStub(first.channel())
                      .withDeadlineAfter(5, TimeUnit.MINUTES)
                      .runMaintenance(
                          RunMaintenanceRequest.newBuilder().addTargets("langmem").build()));
      int[] superseded = {0};
      await(
          "the pass has merged some duplicates",
          () -> {
            superseded[0] =
                (int)
                    byId(first).values().stream()
                        .filter(m -> m.getStatus() == MemoryStatus.MEMORY_STATUS_SUPERSEDED)
                        .count();
            return superseded[0] >= 50 || pass.isDone();
          });
      assertFalse(pass.isDone(), "the pass is still running when the sidecar is killed");
      first.kill9();
      supersededAtKill = superseded[0];
      caller.shutdownNow();
    } finally {
      first.close();
    }

    try (SidecarProcess again = SidecarProcess.start(dir)) {
      Map<String, Memory> all = byId(again);
      Set<String> active = new HashSet<>();
      long superseded = 0;
      for (Memory m : all.values()) {
        if (m.getStatus() == MemoryStatus.MEMORY_STATUS_ACTIVE) {
          active.add(m.getContent());
        } else {
          superseded++;
        }
      }
      for (int i = 0; i < n; i++) {
        assertTrue(active.contains(fact(i)), "fact " + i + " has an active record after the kill");
      }
      assertTrue(
          superseded >= supersededAtKill && superseded < n,
          "the kill came mid-pass: " + superseded + " of " + n + " merged");

      RunMaintenanceResponse rest =
          again
              .admin()
              .withDeadlineAfter(5, TimeUnit.MINUTES)
              .runMaintenance(RunMaintenanceRequest.newBuilder().addTargets("langmem").build());
      assertTrue(rest.getResults(0).getOk(), rest::toString);
      List<Memory> after = listAll(again.memory(), ACME, "workspace", 500, false);
      assertEquals(n, after.size(), "one active record per fact once the pass completes");
      assertEquals(n, new HashSet<>(after.stream().map(Memory::getContent).toList()).size());
    }
  }

  @Test
  void anUnknownScheduleOrTargetStopsStartUpNamingIt() {
    for (String[] bad :
        new String[][] {
          {"schedule: weekly\n", "memory.maintenance.schedule", "'weekly'"},
          {"targets: [langmem, skils]\n", "memory.maintenance.targets", "'skils'"}
        }) {
      configure(dir, "langmem-sqlite", bad[0]);
      SidecarProcess.Completed run =
          SidecarProcess.run(
              Map.of(),
              Duration.ofMinutes(2),
              "serve",
              "--workspace",
              dir.toString(),
              "--port",
              "0");
      assertEquals(2, run.exitCode(), run::toString);
      assertTrue(
          run.stderr().contains(bad[1]) && run.stderr().contains(bad[2]),
          () -> "stderr names the key and the value:\n" + run);
      assertFalse(run.stdout().contains("listening on"), run::toString);
    }
  }
}
