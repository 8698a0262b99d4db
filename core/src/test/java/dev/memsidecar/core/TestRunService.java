package dev.memsidecar.core;

import static dev.memsidecar.core.ScriptedExtractor.line;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.ExtractionRequest;
import dev.memsidecar.api.Extractor;
import dev.memsidecar.api.ExtractorProvider;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.Settings;
import dev.memsidecar.api.ToolCall;
import dev.memsidecar.conformance.InMemoryProvider;
import dev.memsidecar.core.config.Flags;
import dev.memsidecar.core.config.RunConfig;
import dev.memsidecar.core.config.ScopeKind;
import dev.memsidecar.core.events.RuntimeEvent;
import dev.memsidecar.core.events.Watch;
import dev.memsidecar.core.run.BeginRunInput;
import dev.memsidecar.core.run.DecisionEntry;
import dev.memsidecar.core.run.EndRunInput;
import dev.memsidecar.core.run.EndRunResult;
import dev.memsidecar.core.run.RunService;
import dev.memsidecar.core.run.RunSnapshot;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** BeginRun and EndRun over the in-memory provider, with a scripted extractor. */
class TestRunService {
  private static final Scope ALICE = Scope.user("acme", "alice");

  @TempDir Path data;

  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.parse("2026-03-02T09:30:00Z"));
  private final List<MemoryEngine> open = new ArrayList<>();

  @AfterEach
  void closeAll() {
    open.forEach(MemoryEngine::close);
  }

  private MemoryEngine engine() {
    return engine(Flags.ALL_ON, ScriptedExtractor.provider());
  }

  private MemoryEngine engine(
      Flags flags, dev.memsidecar.core.NamedServices<dev.memsidecar.api.ExtractorProvider> x) {
    MemoryEngine e =
        Engines.open(
            data,
            flags,
            List.of(
                Engines.profile("workspace", ScopeKind.WORKSPACE),
                Engines.profile("user", ScopeKind.USER)),
            Engines.clock(now::get),
            Engines.providers(new InMemoryProvider()),
            InMemoryProvider.NAME,
            x,
            new RunConfig("rules", Map.of(), Duration.ofHours(24), Duration.ofDays(7), true));
    open.add(e);
    return e;
  }

  private static EndRunResult endRun(MemoryEngine e, String runId, String... lines) {
    return endRun(e, runId, Map.of(), lines);
  }

  private static EndRunResult endRun(
      MemoryEngine e, String runId, Map<String, String> metadata, String... lines) {
    return e.endRun(
        new EndRunInput(ALICE, runId, String.join("\n", lines), "", List.of(), metadata),
        RequestOptions.fromMetadata(metadata));
  }

  private static RunSnapshot beginRun(MemoryEngine e, String runId, String input) {
    return e.beginRun(
        new BeginRunInput(ALICE, runId, input, List.of(), 0, Map.of()), RequestOptions.DEFAULT);
  }

  private static String section(RunSnapshot s, String id) {
    return s.sections().stream().filter(x -> x.id().equals(id)).findFirst().orElseThrow().body();
  }

  private static List<MemoryRecord> records(MemoryEngine e, Scope scope, String profile) {
    return e
        .list(new ListInput(scope, profile, 500, "", true), RequestOptions.DEFAULT)
        .memories()
        .stream()
        .map(StoredMemory::record)
        .toList();
  }

  @Test
  void aFactAndTheTurnItWasExtractedFromNeverBothTakeASlot() {
    MemoryEngine e = engine();
    endRun(e, "teach-1", line("user", "semantic", 9, false, "Alice prefers dark roast coffee"));
    endRun(e, "chat-1", "we talked about the weather and the coffee machine");
    RunSnapshot s = beginRun(e, "run-1", "what coffee does alice prefer, dark roast?");
    long fromTeach =
        s.recalled().stream()
                .filter(h -> h.memory().record().sourceRefs().contains("run:teach-1"))
                .count()
            + s.evidence().stream().filter(h -> h.message().runId().equals("teach-1")).count();
    assertEquals(1, fromTeach, s::toString);
    // The other run's turn, which no fact stands for, is evidence beside it.
    assertTrue(
        s.evidence().stream().anyMatch(h -> h.message().runId().equals("chat-1")), s::toString);
  }

  @Test
  void aFactQuotesTheTurnItWasExtractedFromWhenBothRank() {
    MemoryEngine e = engine();
    // The turn says more than the fact extracted from it ("sister", "breakfast").
    endRun(
        e,
        "teach-1",
        "My sister told me at breakfast, she swears by it",
        line("user", "semantic", 9, false, "Alice prefers dark roast coffee"));
    RunSnapshot s = beginRun(e, "run-1", "what coffee does alice prefer, dark roast?");
    assertEquals(1, s.recalled().size(), s::toString);
    assertTrue(
        s.evidence().stream().noneMatch(h -> h.message().runId().equals("teach-1")), s::toString);
    String recalled = section(s, RunService.RECALLED_MEMORY);
    assertEquals(1, recalled.lines().count(), recalled);
    assertTrue(recalled.contains("Alice prefers dark roast coffee"), recalled);
    assertTrue(recalled.contains(" (from [2 March 2026, "), recalled);
    assertTrue(recalled.contains("] user: My sister told me at breakfast"), recalled);
  }

  @Test
  void beginRunFreezesItsSectionsForTheRunEvenAcrossARestart() {
    MemoryEngine e = engine();
    endRun(e, "teach-1", line("user", "semantic", 9, false, "Alice prefers dark roast coffee"));
    RunSnapshot first = beginRun(e, "run-1", "what coffee does alice like");
    assertEquals(
        List.of(
            RunService.RUNTIME_CONTEXT,
            RunService.TOOL_RULES,
            RunService.RECALLED_MEMORY,
            RunService.SESSION_EVIDENCE,
            RunService.MEMORY_FILES,
            RunService.CURATED,
            RunService.SKILLS),
        first.sections().stream().map(RunSnapshot.Section::id).toList());
    assertTrue(
        section(first, RunService.RECALLED_MEMORY)
            .contains("- [user, semantic] Alice prefers dark roast coffee"),
        first::toString);

    endRun(e, "teach-2", line("user", "semantic", 9, false, "Alice also likes oat milk coffee"));
    now.set(now.get().plusSeconds(60));
    assertEquals(first, beginRun(e, "run-1", "what coffee does alice like"), "same run, same");
    e.close();
    open.remove(e);
    assertEquals(first, beginRun(engine(), "run-1", "ignored: the snapshot is frozen"));

    now.set(now.get().plus(Duration.ofHours(25)));
    RunSnapshot later = beginRun(engine(), "run-1", "what coffee does alice like");
    assertNotEquals(first.snapshotId(), later.snapshotId(), "a new snapshot after expiry");
    assertTrue(section(later, RunService.RECALLED_MEMORY).contains("oat milk"), later::toString);
  }

  @Test
  void runtimeContextUsesTheRequestTimeZoneAndRefusesAnUnknownOne() {
    MemoryEngine e = engine();
    RunSnapshot s =
        e.beginRun(
            new BeginRunInput(
                ALICE, "tz", "hello", List.of(), 0, Map.of("timezone", "Asia/Shanghai")),
            RequestOptions.DEFAULT);
    String body = section(s, RunService.RUNTIME_CONTEXT);
    assertTrue(body.contains("UTC time: 2026-03-02T09:30:00Z"), body);
    assertTrue(body.contains("Local time: 2026-03-02 17:30:00, Monday"), body);
    assertTrue(body.contains("Asia/Shanghai (UTC+08:00)"), body);
    MemoryException bad =
        assertThrows(
            MemoryException.class,
            () ->
                e.beginRun(
                    new BeginRunInput(
                        ALICE, "tz2", "hi", List.of(), 0, Map.of("timezone", "Mars/Olympus")),
                    RequestOptions.DEFAULT));
    assertEquals(MemoryException.Code.INVALID_ARGUMENT, bad.code());
    assertEquals("metadata.timezone", bad.field());
  }

  @Test
  void memoryFilesAreListedAndTheirContentCutWithAMarker() {
    MemoryEngine e = engine();
    e.files()
        .write(
            ALICE,
            "/memories/user.md",
            "# Alice\n" + "x".repeat(20_000),
            "",
            RequestOptions.DEFAULT);
    RunSnapshot s = beginRun(e, "files", "anything");
    assertEquals(List.of("/memories/workspace.md", "/memories/user.md"), s.memoryFilePaths());
    String body = section(s, RunService.MEMORY_FILES);
    assertTrue(body.startsWith("### /memories/user.md\n# Alice\n"), body.substring(0, 60));
    assertTrue(body.contains("more bytes of /memories/user.md not shown"), body);
    assertTrue(body.length() < 9_000, "cut to the per-file bound: " + body.length());

    MemoryEngine closed = engine(new Flags(false, true, true, true), ScriptedExtractor.provider());
    RunSnapshot none = beginRun(closed, "files-2", "anything");
    assertEquals(List.of(), none.memoryFilePaths());
    assertEquals("", section(none, RunService.MEMORY_FILES));
  }

  @Test
  void theSameFactTaughtByManyRunsLeavesOneRecordThatRecallFinds() {
    MemoryEngine e = engine();
    for (int i = 0; i < 50; i++) {
      EndRunResult r =
          endRun(
              e,
              "write-" + i,
              line(
                  "workspace",
                  "procedural",
                  8,
                  false,
                  "Run `npm run check:rules` before committing"));
      assertEquals(
          i == 0 ? WriteDecision.Outcome.STORED : WriteDecision.Outcome.MERGED,
          r.decisions().get(0).outcome(),
          r.decisions().get(0).reason());
    }
    List<MemoryRecord> kept = records(e, ALICE, "workspace");
    assertEquals(1, kept.size(), kept::toString);
    assertEquals(50, kept.get(0).sourceRefs().size());
    assertTrue(kept.get(0).confidence() >= 0.99f);
    RunSnapshot read = beginRun(e, "read", "how do I check the rules before a commit?");
    assertTrue(section(read, RunService.RECALLED_MEMORY).contains("npm run check:rules"));
  }

  @Test
  void aRetryOfTheSameRunReturnsTheFirstDecisionsAndStoresNothingTwice() {
    MemoryEngine e = engine();
    String[] lines = {
      line("user", "semantic", 9, false, "Alice's daughter Mia turns 7 in June"),
      line("workspace", "semantic", 9, false, "The VPN gateway is vpn.acme.test")
    };
    EndRunResult first = endRun(e, "r-1", lines);
    assertEquals(first, endRun(e, "r-1", lines));
    e.close();
    open.remove(e);
    MemoryEngine restarted = engine();
    assertEquals(first, endRun(restarted, "r-1", lines));
    assertEquals(1, records(restarted, ALICE, "user").size());
    assertEquals(1, records(restarted, ALICE, "workspace").size());
    List<DecisionEntry> audit = restarted.writeDecisions(ALICE, "r-1", null, 100, "").entries();
    assertEquals(2, audit.size(), "decisions audited once");
  }

  @Test
  void withWritesOffOrAReadOnlyRequestNothingIsWrittenAndEveryDecisionSaysWhy() {
    String fact = line("user", "semantic", 9, false, "Alice moved to Lisbon in 2024");
    MemoryEngine off = engine(new Flags(true, true, true, false), ScriptedExtractor.provider());
    EndRunResult r = endRun(off, "off", fact);
    assertFalse(r.written());
    assertEquals(WriteDecision.Outcome.REJECTED, r.decisions().get(0).outcome());
    assertTrue(r.decisions().get(0).reason().contains("LangMem.write"), r::toString);
    off.close();
    open.remove(off);

    MemoryEngine on = engine();
    EndRunResult ro = endRun(on, "ro", Map.of("memoryWrite", "false"), fact);
    assertFalse(ro.written());
    assertTrue(ro.decisions().get(0).reason().contains("read-only"), ro::toString);
    assertEquals(0, records(on, ALICE, "user").size());
    assertEquals(List.of(), on.writeDecisions(ALICE, "", null, 100, "").entries());
    // Not kept: the same run may still write once writes are allowed.
    assertTrue(endRun(on, "ro", fact).written());
  }

  @Test
  void writesOffAndReadOnlyGiveTheSameReasonsWordForWordAsBefore() {
    String[] lines = {
      line("user", "semantic", 9, false, "Alice moved to Lisbon in 2024"),
      line("user", "semantic", 9, false, "Thanks, that's great!"),
      line("user", "semantic", 2, false, "Alice had a sandwich")
    };
    MemoryEngine off = engine(new Flags(true, true, true, false), ScriptedExtractor.provider());
    for (WriteDecision d : endRun(off, "off", lines).decisions()) {
      assertEquals(WriteDecision.Outcome.REJECTED, d.outcome());
      assertEquals("not written: memory.LangMem.write is false", d.reason());
    }
    off.close();
    open.remove(off);
    MemoryEngine on = engine();
    for (WriteDecision d : endRun(on, "ro", Map.of("memoryWrite", "false"), lines).decisions()) {
      assertEquals(WriteDecision.Outcome.REJECTED, d.outcome());
      assertEquals(
          "not written: the request is read-only (metadata.memoryWrite = \"false\")", d.reason());
    }
  }

  @Test
  void aRememberOfWhatARunTaughtMergesIntoTheRunsRecord() {
    MemoryEngine e = engine();
    MemoryRecord taught =
        endRun(e, "teach", line("user", "semantic", 9, false, "Alice is allergic to peanuts"))
            .decisions()
            .get(0)
            .memory()
            .record();
    assertEquals(0.8f, taught.confidence());
    WriteDecision d =
        e.remember(
            new RememberInput(
                ALICE,
                "user",
                "Alice is allergic to peanuts.",
                null,
                List.of("health"),
                Map.of(),
                null,
                null,
                "r-1",
                ""),
            RequestOptions.DEFAULT);
    assertEquals(WriteDecision.Outcome.MERGED, d.outcome(), d.reason());
    MemoryRecord merged = d.memory().record();
    assertEquals(taught.id(), merged.id());
    assertEquals(List.of("run:teach", "remember:r-1"), merged.sourceRefs());
    assertEquals(1.0f, merged.confidence(), "raised from the run's 0.8");
    assertTrue(merged.tags().contains("health"), merged::toString);
    assertEquals(1, records(e, ALICE, "user").size());
  }

  @Test
  void lowValueAndLowScoresAreRejectedWithTheirReason() {
    MemoryEngine e = engine();
    EndRunResult r =
        endRun(
            e,
            "noise",
            line("user", "semantic", 9, false, "Thanks, that's great!"),
            line("user", "episodic", 4, false, "Alice had a sandwich for lunch"),
            line("user", "semantic", 2, true, "Remember that Alice's locker is number 42"));
    List<WriteDecision> d = r.decisions();
    assertEquals(WriteDecision.Outcome.REJECTED, d.get(0).outcome());
    assertTrue(d.get(0).reason().startsWith("low-value"), d.get(0).reason());
    assertEquals(WriteDecision.Outcome.REJECTED, d.get(1).outcome());
    assertTrue(d.get(1).reason().contains("below threshold 7.0"), d.get(1).reason());
    assertEquals(WriteDecision.Outcome.STORED, d.get(2).outcome(), "explicit: floored at 8.0");
    assertEquals(8.0f, d.get(2).gateScore());
  }

  @Test
  void usersMemoriesLandInTheUserProfileAndWorkspaceFactsInTheWorkspaceProfile() {
    MemoryEngine e = engine();
    EndRunResult r =
        endRun(
            e,
            "route",
            line("user", "semantic", 9, false, "Alice is allergic to peanuts"),
            line("workspace", "procedural", 9, false, "Deploy with `make deploy ENV=prod`"));
    assertEquals("user", r.decisions().get(0).memory().record().profile());
    assertEquals(
        "acme:user:alice:user", r.decisions().get(0).memory().record().namespace().value());
    assertEquals("workspace", r.decisions().get(1).memory().record().profile());
    // Without a user id the user's memory falls back to the workspace profile.
    EndRunResult ws =
        e.endRun(
            new EndRunInput(
                Scope.workspace("acme"),
                "route-2",
                line("user", "semantic", 9, false, "Bob is allergic to shellfish"),
                "",
                List.of(),
                Map.of()),
            RequestOptions.DEFAULT);
    assertEquals("workspace", ws.decisions().get(0).memory().record().profile());
  }

  @Test
  void aNewValueSupersedesTheOldOneWhichIsKeptLinkedAndNoLongerRecalled() {
    MemoryEngine e = engine();
    String oldId =
        endRun(e, "v1", line("workspace", "semantic", 9, false, "The deploy day is Tuesday"))
            .decisions()
            .get(0)
            .memory()
            .record()
            .id();
    EndRunResult r =
        endRun(e, "v2", line("workspace", "semantic", 9, false, "The deploy day is now Thursday"));
    MemoryRecord successor = r.decisions().get(0).memory().record();
    assertEquals(WriteDecision.Outcome.STORED, r.decisions().get(0).outcome());
    assertTrue(r.decisions().get(0).reason().contains("supersedes " + oldId), r::toString);
    MemoryRecord old = e.get(ALICE, "workspace", oldId, RequestOptions.DEFAULT).record();
    assertEquals(MemoryStatus.SUPERSEDED, old.status());
    assertEquals(successor.id(), old.metadata().get("superseded_by"));
    assertEquals(oldId, successor.metadata().get("supersedes"));
    String recalled =
        section(beginRun(e, "read", "which day is the deploy"), RunService.RECALLED_MEMORY);
    assertTrue(recalled.contains("Thursday"), recalled);
    assertFalse(recalled.contains("Tuesday"), recalled);
  }

  @Test
  void shortTermMemoriesExpireAndAreNotRecalledAfterwards() {
    MemoryEngine e = engine();
    EndRunResult r =
        endRun(
            e,
            "st",
            ScriptedExtractor.shortTerm("user", "episodic", 9, "Alice is in Oslo this week"));
    MemoryRecord m = r.decisions().get(0).memory().record();
    assertEquals(now.get().plus(Duration.ofDays(7)), m.expireTime());
    assertTrue(
        section(beginRun(e, "a", "where is alice"), RunService.RECALLED_MEMORY).contains("Oslo"));
    now.set(now.get().plus(Duration.ofDays(8)));
    assertFalse(
        section(beginRun(e, "b", "where is alice"), RunService.RECALLED_MEMORY).contains("Oslo"));
  }

  @Test
  void aFailingExtractorFallsBackToTheRulesAndSaysSoInAnEvent() {
    MemoryEngine e =
        Engines.open(
            data,
            Flags.ALL_ON,
            List.of(Engines.profile("user", ScopeKind.USER)),
            Engines.clock(now::get),
            Engines.providers(new InMemoryProvider()),
            null,
            ScriptedExtractor.provider("llm", "rules"),
            new RunConfig("llm", Map.of(), Duration.ofHours(1), Duration.ofDays(1), true));
    open.add(e);
    try (Watch watch = e.events().watch(ALICE, List.of("memory.extraction.failed"), () -> {})) {
      EndRunResult r =
          endRun(e, "f", "FAIL", line("user", "semantic", 9, false, "Alice speaks Portuguese"));
      assertEquals(WriteDecision.Outcome.STORED, r.decisions().get(0).outcome());
      RuntimeEvent failed = watch.poll();
      assertEquals("memory.extraction.failed", failed.type());
      assertEquals("llm", failed.attributes().get("extractor"));
      assertEquals("rules", failed.attributes().get("fallback"));
    }
  }

  @Test
  void everyDecisionIsAuditedAndEmitted() {
    MemoryEngine e = engine();
    try (Watch watch = e.events().watch(ALICE, List.of(), () -> {})) {
      endRun(
          e,
          "audit",
          line("user", "semantic", 9, false, "Alice's team is Payments"),
          line("user", "semantic", 3, false, "Alice said the weather is nice"));
      List<String> types = new ArrayList<>();
      for (RuntimeEvent ev = watch.poll(); ev != null; ev = watch.poll()) {
        types.add(ev.type());
      }
      assertEquals(
          List.of("memory.stored", "memory.rejected", "memory.plugin.completed", "run.end"), types);
    }
    List<DecisionEntry> rejected =
        e.writeDecisions(ALICE, "audit", WriteDecision.Outcome.REJECTED, 10, "").entries();
    assertEquals(1, rejected.size());
    assertTrue(rejected.get(0).decision().reason().contains("below threshold"));
    assertEquals(
        List.of(),
        e.writeDecisions(Scope.user("acme", "bob"), "audit", null, 10, "").entries(),
        "another user's decisions are not shown");
  }

  @Test
  void theExtractorReadsTheRunOnItsReferenceTimeAndNeverSeesTheInputsTimestamp() {
    AtomicReference<ExtractionRequest> seen = new AtomicReference<>();
    ExtractorProvider capturing =
        new ExtractorProvider() {
          @Override
          public String name() {
            return "rules";
          }

          @Override
          public Extractor open(Settings settings) {
            return request -> {
              seen.set(request);
              return List.of();
            };
          }
        };
    MemoryEngine e =
        engine(
            Flags.ALL_ON,
            NamedServices.of(
                "extractor", ExtractorProvider::name, x -> Set.of(), List.of(capturing)));
    endRun(e, "dated", Map.of("session_date", "1:56 pm on 8 May, 2023"), "I went there yesterday.");
    assertEquals(Instant.parse("2023-05-08T13:56:00Z"), seen.get().now());
    assertEquals("I went there yesterday.", seen.get().input());

    endRun(e, "stamped", Map.of("user_name", "Caroline"), "[2023-05-08 13:56] I went there.");
    assertEquals(Instant.parse("2023-05-08T13:56:00Z"), seen.get().now());
    assertEquals("I went there.", seen.get().input());
    assertEquals(
        Map.of("user_name", "Caroline", "session_date", "2023-05-08T13:56:00Z"),
        seen.get().metadata());

    endRun(e, "undated", "I went there yesterday.");
    assertEquals(now.get(), seen.get().now());
  }

  @Test
  void beginRunRefusesBadInput() {
    MemoryEngine e = engine();
    MemoryException badRun =
        assertThrows(MemoryException.class, () -> beginRun(e, "bad run id", "hi"));
    assertEquals("run_id", badRun.field());
    MemoryException bigInput =
        assertThrows(
            MemoryException.class,
            () -> beginRun(e, "r", "x".repeat(RunService.MAX_BEGIN_INPUT_BYTES + 1)));
    assertEquals(MemoryException.Code.RESOURCE_EXHAUSTED, bigInput.code());
    MemoryException badTool =
        assertThrows(
            MemoryException.class,
            () ->
                e.beginRun(
                    new BeginRunInput(ALICE, "r", "hi", List.of("send email"), 0, Map.of()),
                    RequestOptions.DEFAULT));
    assertEquals("tools", badTool.field());
    assertTrue(Set.of(MemoryException.Code.INVALID_ARGUMENT).contains(badTool.code()));
  }

  @Test
  void endRunRefusesOversizedToolCallErrorsAndRecordsNothing() {
    MemoryEngine e = engine();
    ToolCall longCategory =
        new ToolCall("send_email", false, "c".repeat(RunService.MAX_ERROR_CATEGORY_CHARS + 1), "");
    MemoryException badCategory =
        assertThrows(
            MemoryException.class,
            () ->
                e.endRun(
                    new EndRunInput(ALICE, "r1", "hi", "", List.of(longCategory), Map.of()),
                    RequestOptions.DEFAULT));
    assertEquals("tool_calls.error_category", badCategory.field());
    assertEquals(MemoryException.Code.INVALID_ARGUMENT, badCategory.code());
    ToolCall longMessage =
        new ToolCall(
            "send_email", false, "timeout", "m".repeat(RunService.MAX_ERROR_MESSAGE_BYTES + 1));
    MemoryException badMessage =
        assertThrows(
            MemoryException.class,
            () ->
                e.endRun(
                    new EndRunInput(ALICE, "r2", "hi", "", List.of(longMessage), Map.of()),
                    RequestOptions.DEFAULT));
    assertEquals("tool_calls.error_message", badMessage.field());
    assertEquals(MemoryException.Code.RESOURCE_EXHAUSTED, badMessage.code());
    assertEquals(
        0,
        e.toolRules().stats(ALICE, "send_email", RequestOptions.DEFAULT).calls(),
        "no call was counted");

    ToolCall atTheBounds =
        new ToolCall(
            "send_email",
            false,
            "c".repeat(RunService.MAX_ERROR_CATEGORY_CHARS),
            "m".repeat(RunService.MAX_ERROR_MESSAGE_BYTES));
    e.endRun(
        new EndRunInput(ALICE, "r3", "hi", "", List.of(atTheBounds), Map.of()),
        RequestOptions.DEFAULT);
    assertEquals(1, e.toolRules().stats(ALICE, "send_email", RequestOptions.DEFAULT).calls());
  }
}
