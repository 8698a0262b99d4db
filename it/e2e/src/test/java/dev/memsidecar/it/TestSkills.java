package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.assertStatus;
import static dev.memsidecar.it.Fixtures.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.proto.v1.Acceptance;
import dev.memsidecar.proto.v1.ApprovalState;
import dev.memsidecar.proto.v1.BeginRunRequest;
import dev.memsidecar.proto.v1.BeginRunResponse;
import dev.memsidecar.proto.v1.EndRunRequest;
import dev.memsidecar.proto.v1.EndRunResponse;
import dev.memsidecar.proto.v1.ListSkillCandidatesRequest;
import dev.memsidecar.proto.v1.ListSkillsRequest;
import dev.memsidecar.proto.v1.MemoryFile;
import dev.memsidecar.proto.v1.MemoryKind;
import dev.memsidecar.proto.v1.PromptSection;
import dev.memsidecar.proto.v1.PublishSkillRequest;
import dev.memsidecar.proto.v1.PublishSkillResponse;
import dev.memsidecar.proto.v1.ReadMemoryFileRequest;
import dev.memsidecar.proto.v1.RecordAcceptanceRequest;
import dev.memsidecar.proto.v1.ReviewDecision;
import dev.memsidecar.proto.v1.ReviewSkillCandidateRequest;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.Skill;
import dev.memsidecar.proto.v1.SkillCandidate;
import dev.memsidecar.proto.v1.SkillCandidateStatus;
import dev.memsidecar.proto.v1.SkillEffect;
import dev.memsidecar.proto.v1.SkillEvidence;
import dev.memsidecar.proto.v1.SkillEvidenceKind;
import dev.memsidecar.proto.v1.ToolCall;
import dev.memsidecar.proto.v1.WriteMemoryFileRequest;
import dev.memsidecar.proto.v1.WriteOutcome;
import io.grpc.Status;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Skill learning over real gRPC on the built jar (issue 18, part 3), the seed's long-running test
 * as ours: sessions teaching one procedure in other words and accepted tasks that used it give one
 * candidate for review; approval and publishing write one SKILL.md; a later BeginRun lists the
 * skill; an abandoned task lowers its success rate; a rejected candidate never comes back. Then bad
 * input and isolation between workspaces.
 */
class TestSkills {
  /** One procedure, worded three ways. */
  private static final List<String> TAUGHT =
      List.of(
          "To release the billing service, always run the integration tests first, then tag the"
              + " release and announce it in the billing channel.",
          "Before shipping billing, make sure the integration tests pass; after that tag the"
              + " release and tell the billing channel.",
          "When we deploy billing, first run the integration tests, then create a release tag and"
              + " post an announcement to the billing channel.");

  @TempDir static Path workspaceDir;

  private static SidecarProcess sidecar;

  @BeforeAll
  static void start() {
    Fixtures.writeServerConfig(workspaceDir, "memory:\n  embedder: hash\n");
    sidecar = SidecarProcess.start(workspaceDir);
  }

  @AfterAll
  static void stop() {
    if (sidecar != null) {
      sidecar.close();
      sidecar = null;
    }
  }

  private static Scope scope(String workspace, String user, String session) {
    return Scope.newBuilder()
        .setWorkspaceId(workspace)
        .setUserId(user)
        .setSessionId(session)
        .build();
  }

  private static Scope workspace(String workspace) {
    return Scope.newBuilder().setWorkspaceId(workspace).build();
  }

  /**
   * A run that teaches a procedure; the rules extractor keeps it as a procedural memory (or merges
   * it into the one that says it already).
   */
  private static void teach(Scope scope, String runId, String procedure) {
    EndRunResponse end =
        sidecar
            .memory()
            .endRun(
                EndRunRequest.newBuilder()
                    .setScope(scope)
                    .setRunId(runId)
                    .setInput(procedure)
                    .setOutput("Noted.")
                    .build());
    assertTrue(
        end.getDecisionsList().stream()
            .anyMatch(
                d ->
                    d.getOutcome() != WriteOutcome.WRITE_OUTCOME_REJECTED
                        && d.getMemory().getKind() == MemoryKind.MEMORY_KIND_PROCEDURAL),
        end::toString);
  }

  /** A run of a task: what was asked, what the agent answered, a tool it called. */
  private static void work(
      Scope scope, String runId, String task, String skills, String input, String output) {
    EndRunRequest.Builder b =
        EndRunRequest.newBuilder()
            .setScope(scope)
            .setRunId(runId)
            .setInput(input)
            .setOutput(output)
            .addToolCalls(ToolCall.newBuilder().setToolName("ci_run").setOk(true))
            .putMetadata("task_id", task);
    if (!skills.isEmpty()) {
      b.putMetadata("skills", skills);
    }
    sidecar.memory().endRun(b.build());
  }

  private static void verdict(Scope scope, String task, Acceptance acceptance, String finalRun) {
    sidecar
        .learning()
        .recordAcceptance(
            RecordAcceptanceRequest.newBuilder()
                .setScope(scope)
                .setTaskId(task)
                .setAcceptance(acceptance)
                .setFinalRunId(finalRun)
                .build());
  }

  private static List<SkillCandidate> candidates(Scope scope, SkillCandidateStatus status) {
    return sidecar
        .learning()
        .listSkillCandidates(
            ListSkillCandidatesRequest.newBuilder().setScope(scope).setStatus(status).build())
        .getCandidatesList();
  }

  private static SkillCandidate review(
      Scope scope, String candidateId, ReviewDecision decision, String reason) {
    return sidecar
        .learning()
        .reviewSkillCandidate(
            ReviewSkillCandidateRequest.newBuilder()
                .setScope(scope)
                .setCandidateId(candidateId)
                .setDecision(decision)
                .setReason(reason)
                .build())
        .getCandidate();
  }

  private static PublishSkillResponse publish(Scope scope, String candidateId, String etag) {
    return sidecar
        .learning()
        .publishSkill(
            PublishSkillRequest.newBuilder()
                .setScope(scope)
                .setCandidateId(candidateId)
                .setEtag(etag)
                .build());
  }

  private static List<Skill> skills(Scope scope) {
    return sidecar
        .learning()
        .listSkills(ListSkillsRequest.newBuilder().setScope(scope).build())
        .getSkillsList();
  }

  private static BeginRunResponse begin(Scope scope, String runId, String input) {
    return sidecar
        .memory()
        .beginRun(
            BeginRunRequest.newBuilder().setScope(scope).setRunId(runId).setInput(input).build());
  }

  private static String section(BeginRunResponse r, String id) {
    return r.getSectionsList().stream()
        .filter(s -> s.getId().equals(id))
        .map(PromptSection::getBody)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no section " + id + " in " + r));
  }

  private static MemoryFile read(Scope scope, String path) {
    return sidecar
        .files()
        .readMemoryFile(ReadMemoryFileRequest.newBuilder().setScope(scope).setPath(path).build())
        .getFile();
  }

  /** Every SKILL.md under the sidecar's workspace folder (its data folder lies inside it). */
  private static List<Path> skillFilesOnDisk() {
    try (Stream<Path> files = Files.walk(workspaceDir)) {
      return files.filter(p -> p.getFileName().toString().equals("SKILL.md")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static SkillEffect effect(Skill skill, String version) {
    return skill.getEffectsList().stream()
        .filter(e -> e.getSkill().getVersion().equals(version))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no effect of version " + version + ": " + skill));
  }

  @Test
  void sessionsTeachingAProcedureAndAcceptedTasksBecomeOneReviewedPublishedSkill()
      throws IOException {
    String ws = uniqueId("ws");
    Scope admin = workspace(ws);
    for (int i = 0; i < TAUGHT.size(); i++) {
      teach(scope(ws, "alice", "teach-" + i), "teach-" + i, TAUGHT.get(i));
    }
    Scope aliceWork = scope(ws, "alice", "work-1");
    work(
        aliceWork,
        "ship-1a",
        "ship-1",
        "",
        "Release the billing service to production today.",
        "Ran the integration tests, tagged the release and announced it in the billing channel.");
    verdict(aliceWork, "ship-1", Acceptance.ACCEPT, "ship-1a");
    Scope bobWork = scope(ws, "bob", "work-2");
    work(
        bobWork,
        "ship-2a",
        "ship-2",
        "",
        "Please release billing again, the hotfix is merged.",
        "The integration tests passed; I tagged the billing release.");
    work(
        bobWork,
        "ship-2b",
        "ship-2",
        "",
        "Announce it too.",
        "Done: the billing release is tagged and announced in the billing channel.");
    verdict(bobWork, "ship-2", Acceptance.ACCEPT, "ship-2b");

    // Exactly one candidate, waiting for review, with its evidence.
    List<SkillCandidate> found =
        candidates(admin, SkillCandidateStatus.SKILL_CANDIDATE_STATUS_UNSPECIFIED);
    assertEquals(1, found.size(), found::toString);
    SkillCandidate c = found.get(0);
    assertEquals(SkillCandidateStatus.REVIEW_REQUIRED, c.getStatus());
    assertEquals(ApprovalState.APPROVAL_STATE_PENDING, c.getApproval().getState());
    assertEquals("skill_candidate", c.getApproval().getKind());
    assertEquals(List.of(c), candidates(admin, SkillCandidateStatus.REVIEW_REQUIRED));
    assertEquals(List.of(), candidates(admin, SkillCandidateStatus.APPROVED));
    List<SkillEvidence> memories =
        c.getEvidenceList().stream()
            .filter(e -> e.getKind() == SkillEvidenceKind.SKILL_EVIDENCE_KIND_MEMORY)
            .toList();
    assertEquals(3, memories.size(), c::toString);
    assertEquals(
        List.of("teach-0", "teach-1", "teach-2"),
        memories.stream().map(e -> e.getRunIds(0)).toList());
    List<SkillEvidence> tasks =
        c.getEvidenceList().stream()
            .filter(e -> e.getKind() == SkillEvidenceKind.SKILL_EVIDENCE_KIND_TASK)
            .toList();
    assertEquals(
        List.of("ship-1", "ship-2"), tasks.stream().map(SkillEvidence::getTaskId).toList());
    assertEquals(List.of("ship-2a", "ship-2b"), tasks.get(1).getRunIdsList());
    assertEquals("ship-2b", tasks.get(1).getFinalRunId());
    assertEquals("bob", tasks.get(1).getUserId());
    assertEquals(List.of("ci_run"), tasks.get(1).getToolsList());
    assertEquals(2, c.getTaskCount());
    assertEquals(5, c.getEvidenceTotal());
    assertEquals(5, c.getSessionCount());
    String name = c.getName();
    assertTrue(c.getDraft().startsWith("---\nname: " + name + "\ndescription: "), c::getDraft);
    assertTrue(c.getDraft().contains("## Steps"), c::getDraft);
    assertTrue(c.getDraft().contains("## Evidence"), c::getDraft);

    // Nothing is published before approval.
    assertStatus(Status.Code.FAILED_PRECONDITION, () -> publish(admin, c.getCandidateId(), ""));
    SkillCandidate approved = review(admin, c.getCandidateId(), ReviewDecision.APPROVE, "");
    assertEquals(SkillCandidateStatus.APPROVED, approved.getStatus());
    assertEquals(ApprovalState.APPROVAL_STATE_APPROVED, approved.getApproval().getState());
    assertEquals(c.getDraft(), approved.getDraft());
    PublishSkillResponse published = publish(admin, c.getCandidateId(), "");
    Skill skill = published.getSkill();
    assertEquals(name, skill.getName());
    assertEquals("1", skill.getVersion());
    assertEquals("/skills/" + name + "/SKILL.md", skill.getPath());
    assertEquals(published.getFile().getEtag(), skill.getEtag());

    // One SKILL.md, on disk and through the files API.
    List<Path> onDisk = skillFilesOnDisk();
    assertEquals(1, onDisk.size(), onDisk::toString);
    assertTrue(
        onDisk.get(0).endsWith(Path.of("workspaces", ws, "skills", name, "SKILL.md")),
        onDisk::toString);
    String content = Files.readString(onDisk.get(0), StandardCharsets.UTF_8);
    assertEquals(published.getFile().getContent(), content);
    assertTrue(content.contains("\nversion: \"1\"\n"), content);
    MemoryFile viaApi = read(scope(ws, "carol", ""), "/skills/" + name + "/SKILL.md");
    assertEquals(content, viaApi.getContent());
    assertEquals(skill.getEtag(), viaApi.getEtag());
    assertEquals(viaApi, read(admin, "skills/" + name + "/SKILL.md"));

    // A later run about that task lists the skill, by name and description only.
    BeginRunResponse later =
        begin(scope(ws, "carol", "later"), "later-1", "Please release the billing service now.");
    assertEquals(List.of(name), later.getSkillsList().stream().map(Skill::getName).toList());
    assertEquals("1", later.getSkills(0).getVersion());
    String listed = section(later, "skills");
    assertEquals("- **" + name + "**: " + skill.getDescription(), listed);
    BeginRunResponse unrelated =
        begin(scope(ws, "carol", "later"), "later-2", "What is the capital of France?");
    assertEquals(0, unrelated.getSkillsCount(), unrelated::toString);
    assertEquals("", section(unrelated, "skills"));

    // Tasks that use the published version: accepted, then abandoned, halves its success rate.
    work(
        scope(ws, "carol", "work-3"),
        "ship-3a",
        "ship-3",
        name + "@1",
        "Release billing with the skill.",
        "Released.");
    verdict(scope(ws, "carol", "work-3"), "ship-3", Acceptance.ACCEPT, "ship-3a");
    assertEquals(1.0, effect(skills(admin).get(0), "1").getSuccessRate());
    work(
        scope(ws, "carol", "work-4"),
        "ship-4a",
        "ship-4",
        name + "@1",
        "Release billing to the new region.",
        "The region is not ready.");
    verdict(scope(ws, "carol", "work-4"), "ship-4", Acceptance.ABANDON, "");
    List<Skill> listedSkills = skills(admin);
    assertEquals(1, listedSkills.size(), listedSkills::toString);
    SkillEffect lowered = effect(listedSkills.get(0), "1");
    assertEquals(1, lowered.getAcceptedTasks());
    assertEquals(1, lowered.getAbandonedTasks());
    assertEquals(0.5, lowered.getSuccessRate());

    // A second publish is a new version; a stale etag changes nothing.
    assertStatus(Status.Code.ABORTED, () -> publish(admin, c.getCandidateId(), "0123456789abcdef"));
    PublishSkillResponse second = publish(admin, c.getCandidateId(), skill.getEtag());
    assertEquals("2", second.getSkill().getVersion());
    assertEquals(1, skillFilesOnDisk().size());
    assertEquals(
        List.of("2", "1"),
        skills(admin).get(0).getEffectsList().stream()
            .map(e -> e.getSkill().getVersion())
            .toList());
    List<SkillCandidate> all =
        candidates(admin, SkillCandidateStatus.SKILL_CANDIDATE_STATUS_UNSPECIFIED);
    assertEquals(1, all.size(), all::toString);
    assertEquals(SkillCandidateStatus.PUBLISHED, all.get(0).getStatus());
    assertEquals("2", all.get(0).getPublished().getVersion());
  }

  @Test
  void aRejectedCandidateNeverComesBack() {
    String ws = uniqueId("ws");
    Scope admin = workspace(ws);
    teach(
        scope(ws, "alice", "keys-s"),
        "keys-teach",
        "To rotate the gateway API keys, always run the revoke script first, then store the new"
            + " key in the vault and restart the gateway.");
    Scope work = scope(ws, "alice", "keys-w");
    work(
        work,
        "keys-1a",
        "keys-1",
        "",
        "Rotate the gateway API keys.",
        "Revoked the old key, stored the new key in the vault and restarted the gateway.");
    verdict(work, "keys-1", Acceptance.ACCEPT, "keys-1a");
    List<SkillCandidate> found =
        candidates(admin, SkillCandidateStatus.SKILL_CANDIDATE_STATUS_UNSPECIFIED);
    assertEquals(1, found.size(), found::toString);
    SkillCandidate c = found.get(0);
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "reason",
        () -> review(admin, c.getCandidateId(), ReviewDecision.REJECT, ""));
    SkillCandidate rejected =
        review(admin, c.getCandidateId(), ReviewDecision.REJECT, "keys are rotated by the vault");
    assertEquals(SkillCandidateStatus.REJECTED, rejected.getStatus());
    assertEquals(ApprovalState.APPROVAL_STATE_REJECTED, rejected.getApproval().getState());
    assertEquals("keys are rotated by the vault", rejected.getApproval().getReason());
    assertTrue(rejected.getApproval().hasDecideTime());

    // The same procedure taught again and another accepted task that used it propose nothing.
    teach(
        scope(ws, "bob", "keys-s2"),
        "keys-teach-2",
        "To rotate the gateway API keys, always run the revoke script first, then store the new"
            + " key in the vault and restart the gateway.");
    Scope again = scope(ws, "bob", "keys-w2");
    work(
        again,
        "keys-2a",
        "keys-2",
        "",
        "Rotate the gateway API keys again, please.",
        "Revoked the old key, put the new one in the vault, restarted the gateway.");
    verdict(again, "keys-2", Acceptance.ACCEPT, "keys-2a");
    List<SkillCandidate> after =
        candidates(admin, SkillCandidateStatus.SKILL_CANDIDATE_STATUS_UNSPECIFIED);
    assertEquals(1, after.size(), after::toString);
    assertEquals(SkillCandidateStatus.REJECTED, after.get(0).getStatus());
    assertEquals(List.of(), candidates(admin, SkillCandidateStatus.REVIEW_REQUIRED));
    assertStatus(
        Status.Code.FAILED_PRECONDITION,
        () -> review(admin, c.getCandidateId(), ReviewDecision.APPROVE, ""));
    assertStatus(Status.Code.FAILED_PRECONDITION, () -> publish(admin, c.getCandidateId(), ""));
    assertEquals(List.of(), skills(admin));
  }

  @Test
  void badInputIsRefusedNamingTheField() {
    String ws = uniqueId("ws");
    Scope admin = workspace(ws);
    Scope work = scope(ws, "alice", "w");
    work(work, "t-1a", "t-1", "", "Summarise the weekly metrics.", "Here is the summary.");
    verdict(work, "t-1", Acceptance.ACCEPT, "t-1a");
    SkillCandidate c =
        candidates(admin, SkillCandidateStatus.SKILL_CANDIDATE_STATUS_UNSPECIFIED).get(0);

    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "scope.workspace_id",
        () -> candidates(Scope.getDefaultInstance(), SkillCandidateStatus.REVIEW_REQUIRED));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "page_size",
        () ->
            sidecar
                .learning()
                .listSkillCandidates(
                    ListSkillCandidatesRequest.newBuilder()
                        .setScope(admin)
                        .setPageSize(-1)
                        .build()));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "page_token",
        () ->
            sidecar
                .learning()
                .listSkillCandidates(
                    ListSkillCandidatesRequest.newBuilder()
                        .setScope(admin)
                        .setPageToken("not-a-token")
                        .build()));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "status",
        () ->
            sidecar
                .learning()
                .listSkillCandidates(
                    ListSkillCandidatesRequest.newBuilder()
                        .setScope(admin)
                        .setStatusValue(42)
                        .build()));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "candidate_id",
        () -> review(admin, "", ReviewDecision.APPROVE, ""));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "decision",
        () -> review(admin, c.getCandidateId(), ReviewDecision.REVIEW_DECISION_UNSPECIFIED, ""));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "decision",
        () ->
            sidecar
                .learning()
                .reviewSkillCandidate(
                    ReviewSkillCandidateRequest.newBuilder()
                        .setScope(admin)
                        .setCandidateId(c.getCandidateId())
                        .setDecisionValue(42)
                        .build()));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "draft",
        () ->
            sidecar
                .learning()
                .reviewSkillCandidate(
                    ReviewSkillCandidateRequest.newBuilder()
                        .setScope(admin)
                        .setCandidateId(c.getCandidateId())
                        .setDecision(ReviewDecision.APPROVE)
                        .setDraft("# no front matter\n")
                        .build()));
    assertStatus(
        Status.Code.NOT_FOUND,
        () -> review(admin, "no-such-candidate", ReviewDecision.APPROVE, ""));
    assertStatus(
        Status.Code.PERMISSION_DENIED,
        () ->
            sidecar
                .learning()
                .reviewSkillCandidate(
                    ReviewSkillCandidateRequest.newBuilder()
                        .setScope(admin)
                        .setCandidateId(c.getCandidateId())
                        .setDecision(ReviewDecision.APPROVE)
                        .putMetadata("memoryWrite", "false")
                        .build()));
    assertStatus(Status.Code.INVALID_ARGUMENT, "candidate_id", () -> publish(admin, "bad id", ""));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "name",
        () ->
            sidecar
                .learning()
                .listSkills(
                    ListSkillsRequest.newBuilder().setScope(admin).setName("not a name").build()));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "path",
        () ->
            sidecar
                .files()
                .writeMemoryFile(
                    WriteMemoryFileRequest.newBuilder()
                        .setScope(admin)
                        .setPath("/skills/" + c.getName() + "/SKILL.md")
                        .setContent("---\nname: x\ndescription: y\n---\n")
                        .build()));
    assertStatus(Status.Code.NOT_FOUND, () -> read(admin, "/skills/" + c.getName() + "/SKILL.md"));
    // Nothing a refused call touched changed.
    assertEquals(
        List.of(SkillCandidateStatus.REVIEW_REQUIRED),
        candidates(admin, SkillCandidateStatus.SKILL_CANDIDATE_STATUS_UNSPECIFIED).stream()
            .map(SkillCandidate::getStatus)
            .toList());
  }

  @Test
  void oneWorkspaceNeverSeesAnotherWorkspacesCandidatesOrSkills() {
    String a = uniqueId("ws");
    String b = uniqueId("ws");
    Scope work = scope(a, "alice", "w");
    work(
        work,
        "r-1",
        "report",
        "",
        "Build the weekly finance report.",
        "Exported the ledger and built the report.");
    verdict(work, "report", Acceptance.ACCEPT, "r-1");
    SkillCandidate c =
        candidates(workspace(a), SkillCandidateStatus.SKILL_CANDIDATE_STATUS_UNSPECIFIED).get(0);
    review(workspace(a), c.getCandidateId(), ReviewDecision.APPROVE, "");
    Skill published = publish(workspace(a), c.getCandidateId(), "").getSkill();

    for (Scope other : List.of(workspace(b), scope(b, "alice", "w"))) {
      assertEquals(
          List.of(), candidates(other, SkillCandidateStatus.SKILL_CANDIDATE_STATUS_UNSPECIFIED));
      assertEquals(List.of(), skills(other));
      assertStatus(
          Status.Code.NOT_FOUND,
          () -> review(other, c.getCandidateId(), ReviewDecision.REJECT, "not ours"));
      assertStatus(Status.Code.NOT_FOUND, () -> publish(other, c.getCandidateId(), ""));
      assertStatus(Status.Code.NOT_FOUND, () -> read(other, published.getPath()));
      BeginRunResponse begin =
          begin(scope(b, "alice", "w"), uniqueId("run"), "Build the weekly finance report.");
      assertEquals(0, begin.getSkillsCount(), begin::toString);
    }
    // The same user in workspace a sees them.
    assertFalse(skills(scope(a, "bob", "")).isEmpty());
    assertEquals(
        List.of(published.getName()),
        begin(scope(a, "bob", "w"), uniqueId("run"), "Build the weekly finance report.")
            .getSkillsList()
            .stream()
            .map(Skill::getName)
            .toList());
  }
}
