package dev.memsidecar.core;

import static dev.memsidecar.core.ScriptedExtractor.line;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.ToolCall;
import dev.memsidecar.conformance.InMemoryProvider;
import dev.memsidecar.core.config.Flags;
import dev.memsidecar.core.config.RunConfig;
import dev.memsidecar.core.config.ScopeKind;
import dev.memsidecar.core.learning.Acceptance;
import dev.memsidecar.core.learning.RunLabels;
import dev.memsidecar.core.run.BeginRunInput;
import dev.memsidecar.core.run.EndRunInput;
import dev.memsidecar.core.run.RunService;
import dev.memsidecar.core.run.RunSnapshot;
import dev.memsidecar.core.skills.Approval;
import dev.memsidecar.core.skills.CandidateEvidence;
import dev.memsidecar.core.skills.CandidateStatus;
import dev.memsidecar.core.skills.PublishedSkill;
import dev.memsidecar.core.skills.ReviewDecision;
import dev.memsidecar.core.skills.SkillCandidate;
import dev.memsidecar.core.skills.SkillMarkdown;
import dev.memsidecar.core.skills.SkillMiner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Skill learning and curated memory in core: the miner over procedures taught in several sessions
 * and over accepted tasks, review, publishing and versions, the skills and curated sections of
 * BeginRun; over the in-memory provider, the hash embedder and a scripted extractor.
 */
class TestSkills {
  private static final String WS = "acme";

  /** One procedure, worded three ways. */
  private static final List<String> TAUGHT =
      List.of(
          "To release the billing service, always run the integration tests first, then tag the"
              + " release and announce it in the billing channel.",
          "Before shipping billing, make sure the integration tests pass; after that tag the"
              + " release and tell the billing channel.",
          "When we deploy billing, first run the integration tests, then create a release tag and"
              + " post an announcement to the billing channel.");

  @TempDir Path data;

  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.parse("2026-03-02T09:30:00Z"));
  private final List<MemoryEngine> open = new ArrayList<>();

  @AfterEach
  void closeAll() {
    open.forEach(MemoryEngine::close);
  }

  private MemoryEngine engine() {
    MemoryEngine e =
        Engines.open(
            data,
            Flags.ALL_ON,
            List.of(
                Engines.profile("workspace", ScopeKind.WORKSPACE),
                Engines.profile("user", ScopeKind.USER)),
            Engines.clock(now::get),
            Engines.providers(new InMemoryProvider()),
            InMemoryProvider.NAME,
            ScriptedExtractor.provider(),
            new RunConfig("rules", Map.of(), Duration.ofHours(24), Duration.ofDays(7), true));
    open.add(e);
    return e;
  }

  private void tick() {
    now.updateAndGet(t -> t.plusSeconds(5));
  }

  private static Scope session(String user, String session) {
    return new Scope(WS, user, "", session);
  }

  /** A run that teaches {@code procedure} as a workspace procedure. */
  private void teach(MemoryEngine e, Scope scope, String runId, String procedure) {
    tick();
    e.endRun(
        new EndRunInput(
            scope,
            runId,
            line("workspace", "procedural", 8, false, procedure),
            "Noted.",
            List.of(),
            Map.of()),
        RequestOptions.DEFAULT);
  }

  /** A run of a task that names no procedure, with a tool call. */
  private void work(
      MemoryEngine e, Scope scope, String runId, String task, String input, String output) {
    tick();
    Map<String, String> md = new HashMap<>();
    md.put(RunLabels.TASK_ID, task);
    e.endRun(
        new EndRunInput(
            scope, runId, input, output, List.of(new ToolCall("ci_run", true, "", "")), md, null),
        RequestOptions.DEFAULT);
  }

  private void accept(MemoryEngine e, Scope scope, String task, String finalRun) {
    tick();
    e.learning().recordAcceptance(scope, task, Acceptance.ACCEPT, finalRun, RequestOptions.DEFAULT);
  }

  private static List<SkillCandidate> candidates(MemoryEngine e) {
    return e.skills().candidates(Scope.workspace(WS), null, 0, "").candidates();
  }

  private static MemoryException refused(MemoryException.Code code, Runnable call) {
    MemoryException e = assertThrows(MemoryException.class, call::run);
    assertEquals(code, e.code(), e::getMessage);
    return e;
  }

  @Test
  void aProcedureTaughtInThreeSessionsInOtherWordsIsProposedOnceForReview() {
    MemoryEngine e = engine();
    for (int i = 0; i < TAUGHT.size(); i++) {
      teach(e, session("alice", "s" + i), "teach-" + i, TAUGHT.get(i));
    }
    // Taught twice only: not stable yet.
    teach(e, session("alice", "s0"), "keys-0", "To rotate the API keys, revoke the old key first.");
    teach(e, session("alice", "s1"), "keys-1", "To rotate the API keys, revoke the old key first.");

    SkillMiner.Counts first = e.skills().miner().mine(List.of(WS));
    assertEquals(1, first.proposed(), first::toString);
    assertEquals(1, first.groups(), first::toString);
    List<SkillCandidate> found = candidates(e);
    assertEquals(1, found.size(), found::toString);
    SkillCandidate c = found.get(0);
    assertEquals(CandidateStatus.REVIEW_REQUIRED, c.status());
    assertEquals(Approval.State.PENDING, c.approval().state());
    assertEquals(Approval.SKILL_CANDIDATE, c.approval().kind());
    assertEquals("release-billing-service", c.name());
    assertEquals(3, c.evidence().size(), c::toString);
    assertTrue(c.evidence().stream().allMatch(x -> x.kind() == CandidateEvidence.Kind.MEMORY));
    assertEquals(3, c.sessionCount());
    SkillMarkdown draft = SkillMarkdown.parse("draft", c.draft());
    assertEquals("release-billing-service", draft.name());
    assertTrue(draft.description().startsWith("To release the billing service"), c::draft);
    assertTrue(c.draft().contains("1. Run the integration tests first."), c::draft);
    assertTrue(c.draft().contains("2. Tag the release and announce it"), c::draft);
    assertTrue(c.draft().contains("## Evidence"), c::draft);

    // Mined again, the same evidence changes nothing.
    SkillMiner.Counts again = e.skills().miner().mine(List.of());
    assertEquals(0, again.proposed(), again::toString);
    assertEquals(1, again.unchanged(), again::toString);
    assertEquals(found, candidates(e));
  }

  @Test
  void acceptedTasksJoinTheCandidateOfTheirProcedureAndRejectionKeepsItBack() {
    MemoryEngine e = engine();
    for (int i = 0; i < TAUGHT.size(); i++) {
      teach(e, session("alice", "s" + i), "teach-" + i, TAUGHT.get(i));
    }
    work(
        e,
        session("alice", "w1"),
        "ship-1a",
        "ship-1",
        "Release the billing service to production today.",
        "Ran the integration tests, tagged the release and told the billing channel.");
    accept(e, session("alice", "w1"), "ship-1", "ship-1a");
    List<SkillCandidate> after1 = candidates(e);
    assertEquals(1, after1.size(), after1::toString);
    assertEquals(1, after1.get(0).taskCount(), after1::toString);
    assertEquals(3, after1.get(0).evidence().size() - 1, after1::toString);

    work(
        e,
        session("bob", "w2"),
        "ship-2a",
        "ship-2",
        "Please release billing again, the hotfix is merged.",
        "Integration tests passed; tagged the billing release and announced it.");
    work(
        e,
        session("bob", "w2"),
        "ship-2b",
        "ship-2",
        "Release billing now, with the tag.",
        "Done: the billing release is tagged and announced in the billing channel.");
    accept(e, session("bob", "w2"), "ship-2", "ship-2b");
    List<SkillCandidate> after2 = candidates(e);
    assertEquals(1, after2.size(), after2::toString);
    SkillCandidate c = after2.get(0);
    assertEquals(CandidateStatus.REVIEW_REQUIRED, c.status());
    assertEquals(2, c.taskCount(), c::toString);
    CandidateEvidence task2 =
        c.evidence().stream().filter(x -> x.taskId().equals("ship-2")).findFirst().orElseThrow();
    assertEquals("bob", task2.userId());
    assertEquals("ship-2b", task2.finalRunId());
    assertEquals(List.of("ship-2a", "ship-2b"), task2.runIds());
    assertEquals(List.of("ci_run"), task2.tools());
    assertEquals(5, c.sessionCount(), c::toString);
    assertTrue(c.draft().contains("`ci_run`"), c::draft);

    // Rejected, it never comes back: not from mining, not from another accepted task.
    refused(
        MemoryException.Code.INVALID_ARGUMENT,
        () ->
            e.skills()
                .review(
                    Scope.workspace(WS),
                    c.candidateId(),
                    ReviewDecision.REJECT,
                    " ",
                    "",
                    RequestOptions.DEFAULT));
    SkillCandidate rejected =
        e.skills()
            .review(
                Scope.workspace(WS),
                c.candidateId(),
                ReviewDecision.REJECT,
                "we release by hand",
                "",
                RequestOptions.DEFAULT);
    assertEquals(CandidateStatus.REJECTED, rejected.status());
    assertEquals(Approval.State.REJECTED, rejected.approval().state());
    assertEquals("we release by hand", rejected.approval().reason());
    SkillMiner.Counts mined = e.skills().miner().mine(List.of(WS));
    assertEquals(0, mined.proposed(), mined::toString);
    teach(e, session("carol", "s9"), "teach-9", TAUGHT.get(0));
    work(
        e,
        session("carol", "w3"),
        "ship-3a",
        "ship-3",
        "Release the billing service.",
        "Integration tests ran; the release is tagged and the billing channel knows.");
    accept(e, session("carol", "w3"), "ship-3", "ship-3a");
    mined = e.skills().miner().mine(List.of(WS));
    assertEquals(0, mined.proposed(), mined::toString);
    List<SkillCandidate> all = candidates(e);
    assertEquals(1, all.size(), all::toString);
    assertEquals(CandidateStatus.REJECTED, all.get(0).status());
    refused(
        MemoryException.Code.FAILED_PRECONDITION,
        () ->
            e.skills()
                .review(
                    Scope.workspace(WS),
                    c.candidateId(),
                    ReviewDecision.APPROVE,
                    "",
                    "",
                    RequestOptions.DEFAULT));
  }

  @Test
  void approvedCandidatesArePublishedAsVersionedFilesThatBeginRunLists() throws Exception {
    MemoryEngine e = engine();
    for (int i = 0; i < TAUGHT.size(); i++) {
      teach(e, session("alice", "s" + i), "teach-" + i, TAUGHT.get(i));
    }
    e.skills().miner().mine(List.of(WS));
    SkillCandidate c = candidates(e).get(0);
    Scope ws = Scope.workspace(WS);
    refused(
        MemoryException.Code.FAILED_PRECONDITION,
        () -> e.skills().publish(ws, c.candidateId(), "", RequestOptions.DEFAULT));
    refused(
        MemoryException.Code.PERMISSION_DENIED,
        () ->
            e.skills()
                .review(
                    ws,
                    c.candidateId(),
                    ReviewDecision.APPROVE,
                    "",
                    "",
                    new RequestOptions(true, () -> false)));
    refused(
        MemoryException.Code.INVALID_ARGUMENT,
        () ->
            e.skills()
                .review(
                    ws,
                    c.candidateId(),
                    ReviewDecision.APPROVE,
                    "",
                    "no front matter",
                    RequestOptions.DEFAULT));
    SkillCandidate approved =
        e.skills()
            .review(ws, c.candidateId(), ReviewDecision.APPROVE, "", "", RequestOptions.DEFAULT);
    assertEquals(CandidateStatus.APPROVED, approved.status());
    assertEquals(c.draft(), approved.draft());

    var first = e.skills().publish(ws, c.candidateId(), "", RequestOptions.DEFAULT);
    assertEquals(1, first.skill().version());
    Path file = data.resolve("workspaces/acme/skills/release-billing-service/SKILL.md");
    String onDisk = Files.readString(file, StandardCharsets.UTF_8);
    assertEquals(first.file().content(), onDisk);
    assertTrue(onDisk.contains("version: \"1\""), onDisk);
    assertEquals(
        first.file().etag(),
        e.files()
            .read(ws, "/skills/release-billing-service/SKILL.md", RequestOptions.DEFAULT)
            .file()
            .etag());
    refused(
        MemoryException.Code.INVALID_ARGUMENT,
        () ->
            e.files()
                .write(
                    ws,
                    "skills/release-billing-service/SKILL.md",
                    "x",
                    "",
                    RequestOptions.DEFAULT));
    refused(
        MemoryException.Code.ABORTED,
        () -> e.skills().publish(ws, c.candidateId(), "0123456789abcdef", RequestOptions.DEFAULT));
    var second =
        e.skills().publish(ws, c.candidateId(), first.file().etag(), RequestOptions.DEFAULT);
    assertEquals(2, second.skill().version());
    assertNotEquals(first.file().etag(), second.file().etag());
    List<PublishedSkill.Listed> listed = e.skills().skills(ws, "", 0, "").skills();
    assertEquals(1, listed.size());
    assertEquals(2, listed.get(0).latest().version());
    assertEquals(
        List.of("2", "1"), listed.get(0).effects().stream().map(x -> x.skill().version()).toList());

    RunSnapshot begin =
        e.beginRun(
            new BeginRunInput(
                new Scope(WS, "alice", "", "later"),
                "later-1",
                "Please release the billing service to production.",
                List.of(),
                0,
                Map.of()),
            RequestOptions.DEFAULT);
    assertEquals(
        List.of("release-billing-service"),
        begin.skills().stream().map(RunSnapshot.SkillRef::name).toList());
    String section = section(begin, RunService.SKILLS);
    assertTrue(section.startsWith("- **release-billing-service**: To release"), section);
    RunSnapshot unrelated =
        e.beginRun(
            new BeginRunInput(
                new Scope(WS, "alice", "", "later"),
                "later-2",
                "What coffee does Alice like?",
                List.of(),
                0,
                Map.of()),
            RequestOptions.DEFAULT);
    assertEquals(List.of(), unrelated.skills());
    assertEquals("", section(unrelated, RunService.SKILLS));

    // Another workspace sees none of it.
    Scope other = Scope.workspace("other");
    assertEquals(List.of(), e.skills().candidates(other, null, 0, "").candidates());
    assertEquals(List.of(), e.skills().skills(other, "", 0, "").skills());
    refused(
        MemoryException.Code.NOT_FOUND,
        () -> e.skills().publish(other, c.candidateId(), "", RequestOptions.DEFAULT));
    refused(
        MemoryException.Code.NOT_FOUND,
        () ->
            e.files()
                .read(other, "/skills/release-billing-service/SKILL.md", RequestOptions.DEFAULT));
  }

  @Test
  void curatedFilesAreFrozenPerRunWithTheirHashAndNotRepeatedByRecall() {
    MemoryEngine e = engine();
    Scope alice = session("alice", "chat");
    e.files()
        .write(alice, "/MEMORY.md", "- The deploy day is Thursday.\n", "", RequestOptions.DEFAULT);
    e.files()
        .write(
            alice, "USER.md", "- Alice prefers dark roast coffee.\n", "", RequestOptions.DEFAULT);
    tick();
    e.endRun(
        new EndRunInput(
            alice,
            "teach",
            line("user", "semantic", 9, false, "Alice prefers dark roast coffee")
                + "\n"
                + line("user", "semantic", 9, false, "Alice lives in Lyon"),
            "",
            List.of(),
            Map.of()),
        RequestOptions.DEFAULT);
    RunSnapshot first =
        begin(e, alice, "run-1", "Which coffee does Alice prefer, and where does she live?");
    String curated = section(first, RunService.CURATED);
    assertEquals(
        "### MEMORY.md\n"
            + "- The deploy day is Thursday.\n\n"
            + "### USER.md\n"
            + "- Alice prefers dark roast coffee.",
        curated);
    assertEquals(dev.memsidecar.api.Digests.sha256Hex(curated, 64), first.curatedHash());
    String recalled = section(first, RunService.RECALLED_MEMORY);
    assertFalse(recalled.contains("dark roast"), recalled);
    assertTrue(recalled.contains("Lyon"), recalled);

    e.files().edit(alice, "/MEMORY.md", "Thursday", "Friday", "", RequestOptions.DEFAULT);
    assertEquals(first, begin(e, alice, "run-1", "Which coffee does Alice prefer?"));
    RunSnapshot next = begin(e, alice, "run-2", "Which coffee does Alice prefer?");
    assertTrue(section(next, RunService.CURATED).contains("Friday"));
    assertNotEquals(first.curatedHash(), next.curatedHash());

    // USER.md needs a user; a read-only request may not write.
    refused(
        MemoryException.Code.INVALID_ARGUMENT,
        () -> e.files().read(Scope.workspace(WS), "/USER.md", RequestOptions.DEFAULT));
    refused(
        MemoryException.Code.PERMISSION_DENIED,
        () -> e.files().write(alice, "/MEMORY.md", "x", "", new RequestOptions(true, () -> false)));
    refused(
        MemoryException.Code.ABORTED,
        () ->
            e.files().write(alice, "/MEMORY.md", "x", "0123456789abcdef", RequestOptions.DEFAULT));
  }

  private RunSnapshot begin(MemoryEngine e, Scope scope, String runId, String input) {
    return e.beginRun(
        new BeginRunInput(scope, runId, input, List.of(), 0, Map.of()), RequestOptions.DEFAULT);
  }

  private static String section(RunSnapshot s, String id) {
    return s.sections().stream().filter(x -> x.id().equals(id)).findFirst().orElseThrow().body();
  }
}
