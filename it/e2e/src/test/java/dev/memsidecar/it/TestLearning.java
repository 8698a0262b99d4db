package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.assertStatus;
import static dev.memsidecar.it.Fixtures.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Timestamp;
import dev.memsidecar.proto.v1.Acceptance;
import dev.memsidecar.proto.v1.BeginRunRequest;
import dev.memsidecar.proto.v1.BeginRunResponse;
import dev.memsidecar.proto.v1.EndRunRequest;
import dev.memsidecar.proto.v1.EndRunResponse;
import dev.memsidecar.proto.v1.GetRunRequest;
import dev.memsidecar.proto.v1.GetTaskRequest;
import dev.memsidecar.proto.v1.LearningServiceGrpc;
import dev.memsidecar.proto.v1.LearningServiceGrpc.LearningServiceBlockingStub;
import dev.memsidecar.proto.v1.ListRunsRequest;
import dev.memsidecar.proto.v1.ListRunsResponse;
import dev.memsidecar.proto.v1.RecordAcceptanceRequest;
import dev.memsidecar.proto.v1.RunReceipt;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SkillEffect;
import dev.memsidecar.proto.v1.SkillVersion;
import dev.memsidecar.proto.v1.Task;
import dev.memsidecar.proto.v1.TaskState;
import dev.memsidecar.proto.v1.TokenUsage;
import dev.memsidecar.proto.v1.ToolCall;
import dev.memsidecar.proto.v1.ToolUse;
import dev.memsidecar.proto.v1.WriteCounts;
import dev.memsidecar.proto.v1.WriteOutcome;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * LearningService over real gRPC on the built jar (issue 18, part 1): the receipt EndRun writes,
 * tasks and their verdicts, the skill effects a verdict counts again, ListRuns paging, isolation
 * between workspaces and users, bad input, health and reflection, and a restart after kill -9.
 */
class TestLearning {
  @TempDir static Path workspaceDir;
  @TempDir Path restartDir;

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

  private static ToolCall call(String tool, boolean ok, String category) {
    return ToolCall.newBuilder().setToolName(tool).setOk(ok).setErrorCategory(category).build();
  }

  /** An EndRun of {@code scope} on {@code task} (none when empty) that used {@code skills}. */
  private static EndRunResponse endRun(
      SidecarProcess s, Scope scope, String runId, String task, String skills) {
    EndRunRequest.Builder b =
        EndRunRequest.newBuilder()
            .setScope(scope)
            .setRunId(runId)
            .setInput("Please draft the quarterly summary for run " + runId)
            .setOutput("Here is the draft.");
    if (!task.isEmpty()) {
      b.putMetadata("task_id", task);
    }
    if (!skills.isEmpty()) {
      b.putMetadata("skills", skills);
    }
    return s.memory().endRun(b.build());
  }

  private static Task verdict(
      SidecarProcess s, Scope scope, String task, Acceptance acceptance, String finalRunId) {
    return s.learning()
        .recordAcceptance(
            RecordAcceptanceRequest.newBuilder()
                .setScope(scope)
                .setTaskId(task)
                .setAcceptance(acceptance)
                .setFinalRunId(finalRunId)
                .build())
        .getTask();
  }

  private static RunReceipt getRun(SidecarProcess s, Scope scope, String runId) {
    return s.learning()
        .getRun(GetRunRequest.newBuilder().setScope(scope).setRunId(runId).build())
        .getRun();
  }

  private static Task getTask(SidecarProcess s, Scope scope, String task) {
    return s.learning()
        .getTask(GetTaskRequest.newBuilder().setScope(scope).setTaskId(task).build())
        .getTask();
  }

  private static ListRunsResponse listRuns(
      Scope scope, String task, int pageSize, String pageToken) {
    return sidecar
        .learning()
        .listRuns(
            ListRunsRequest.newBuilder()
                .setScope(scope)
                .setTaskId(task)
                .setPageSize(pageSize)
                .setPageToken(pageToken)
                .build());
  }

  private static List<String> runIds(List<RunReceipt> runs) {
    return runs.stream().map(RunReceipt::getRunId).toList();
  }

  private static SkillVersion skill(String name, String version) {
    return SkillVersion.newBuilder().setName(name).setVersion(version).build();
  }

  private static SkillEffect effect(Task task, String name, String version) {
    return task.getSkillEffectsList().stream()
        .filter(e -> e.getSkill().equals(skill(name, version)))
        .findFirst()
        .orElseThrow(() -> new AssertionError(name + "@" + version + " not in " + task));
  }

  private static long nanos(Timestamp t) {
    return t.getSeconds() * 1_000_000_000L + t.getNanos();
  }

  private static int count(EndRunResponse end, WriteOutcome outcome) {
    return (int) end.getDecisionsList().stream().filter(d -> d.getOutcome() == outcome).count();
  }

  @Test
  void endRunLeavesAReceiptThatGetRunShows() {
    Scope alice = scope(uniqueId("ws"), "alice", "chat-1");
    LearningServiceBlockingStub learning = sidecar.learning();
    BeginRunResponse begin =
        sidecar
            .memory()
            .beginRun(
                BeginRunRequest.newBuilder()
                    .setScope(alice)
                    .setRunId("r1")
                    .setInput("Draft the quarterly summary")
                    .build());
    EndRunResponse end =
        sidecar
            .memory()
            .endRun(
                EndRunRequest.newBuilder()
                    .setScope(alice)
                    .setRunId("r1")
                    .setInput(
                        "Remember that the quarterly summary goes to finance@acme.test. Hello!")
                    .setOutput("Sent the summary.")
                    .addToolCalls(call("web_search", true, ""))
                    .addToolCalls(call("web_search", false, "timeout"))
                    .addToolCalls(call("send_email", false, ""))
                    .putMetadata("task_id", "q3-summary")
                    .putMetadata("skills", "summarize@1.0.2, web-search")
                    .setUsage(TokenUsage.newBuilder().setInputTokens(1500).setOutputTokens(220))
                    .build());
    assertTrue(count(end, WriteOutcome.WRITE_OUTCOME_STORED) > 0, end::toString);

    RunReceipt r =
        learning.getRun(GetRunRequest.newBuilder().setScope(alice).setRunId("r1").build()).getRun();
    assertEquals("r1", r.getRunId());
    assertEquals(alice, r.getScope());
    assertEquals("chat-1", r.getSessionId());
    assertEquals("q3-summary", r.getTaskId());
    assertEquals(
        List.of(
            ToolUse.newBuilder()
                .setToolName("web_search")
                .setCalls(2)
                .setOkCalls(1)
                .setFailedCalls(1)
                .putFailuresByCategory("timeout", 1)
                .build(),
            ToolUse.newBuilder()
                .setToolName("send_email")
                .setCalls(1)
                .setFailedCalls(1)
                .putFailuresByCategory("unknown", 1)
                .build()),
        r.getToolsList());
    assertEquals(List.of(skill("summarize", "1.0.2"), skill("web-search", "")), r.getSkillsList());
    assertEquals(
        TokenUsage.newBuilder().setInputTokens(1500).setOutputTokens(220).build(), r.getUsage());
    assertEquals(
        WriteCounts.newBuilder()
            .setStored(count(end, WriteOutcome.WRITE_OUTCOME_STORED))
            .setMerged(count(end, WriteOutcome.WRITE_OUTCOME_MERGED))
            .setRejected(count(end, WriteOutcome.WRITE_OUTCOME_REJECTED))
            .build(),
        r.getWriteDecisions());
    assertEquals(begin.getSnapshotId(), r.getSnapshotId());
    assertTrue(r.hasStartTime() && r.hasEndTime(), r::toString);
    assertTrue(nanos(r.getStartTime()) < nanos(r.getEndTime()), r::toString);

    // A run with no BeginRun, no session, no labels: it started when it ended; no usage.
    Scope noSession = scope(alice.getWorkspaceId(), "alice", "");
    endRun(sidecar, noSession, "r2", "", "");
    RunReceipt r2 = getRun(sidecar, noSession, "r2");
    assertEquals("default", r2.getSessionId());
    assertEquals("", r2.getTaskId());
    assertEquals(r2.getEndTime(), r2.getStartTime());
    assertFalse(r2.hasUsage());
    assertEquals(0, r2.getSkillsCount());

    // A read-only run leaves no receipt, as it leaves no session message.
    sidecar
        .memory()
        .endRun(
            EndRunRequest.newBuilder()
                .setScope(alice)
                .setRunId("quiet")
                .setInput("Remember that the summary is due on Fridays.")
                .putMetadata("memoryWrite", "false")
                .putMetadata("task_id", "q3-summary")
                .build());
    assertStatus(Status.Code.NOT_FOUND, () -> getRun(sidecar, alice, "quiet"));
    assertEquals(List.of("r1"), getTask(sidecar, alice, "q3-summary").getRunIdsList());
  }

  @Test
  void acceptingOneTaskAndAbandoningAnotherHalvesASkillBothUsed() {
    Scope alice = scope(uniqueId("ws"), "alice", "chat-1");
    endRun(sidecar, alice, "a1", "task-a", "summarize@1, search@2");
    endRun(sidecar, alice, "a2", "task-a", "summarize@1");
    endRun(
        sidecar, scope(alice.getWorkspaceId(), "alice", "chat-2"), "b1", "task-b", "summarize@1");

    Task open = getTask(sidecar, alice, "task-a");
    assertEquals(TaskState.TASK_STATE_OPEN, open.getState());
    assertEquals(List.of("a1", "a2"), open.getRunIdsList());
    assertEquals(2, open.getRunCount());
    assertFalse(open.hasAcceptanceTime());

    Task a = verdict(sidecar, alice, "task-a", Acceptance.ACCEPT, "a2");
    assertEquals(TaskState.TASK_STATE_ACCEPTED, a.getState());
    assertEquals("a2", a.getFinalRunId());
    assertTrue(a.hasAcceptanceTime());
    assertEquals(1.0, effect(a, "summarize", "1").getSuccessRate());

    Task b = verdict(sidecar, alice, "task-b", Acceptance.ABANDON, "");
    assertEquals(TaskState.TASK_STATE_ABANDONED, b.getState());
    assertEquals(List.of("b1"), b.getRunIdsList());
    SkillEffect half =
        SkillEffect.newBuilder()
            .setSkill(skill("summarize", "1"))
            .setAcceptedTasks(1)
            .setAbandonedTasks(1)
            .setSuccessRate(0.5)
            .build();
    assertEquals(half, effect(b, "summarize", "1"));

    a = getTask(sidecar, alice, "task-a");
    assertEquals(TaskState.TASK_STATE_ACCEPTED, a.getState());
    assertEquals("a2", a.getFinalRunId());
    assertEquals(half, effect(a, "summarize", "1"));
    assertEquals(1.0, effect(a, "search", "2").getSuccessRate());
    assertEquals(
        List.of(skill("search", "2"), skill("summarize", "1")),
        a.getSkillEffectsList().stream().map(SkillEffect::getSkill).toList());

    // The same verdict again changes nothing; a later one replaces it: REVISE, then ACCEPT.
    assertEquals(a, verdict(sidecar, alice, "task-a", Acceptance.ACCEPT, "a2"));
    Task revised = verdict(sidecar, alice, "task-b", Acceptance.REVISE, "");
    assertEquals(TaskState.TASK_STATE_REVISE, revised.getState());
    assertEquals(1.0, effect(revised, "summarize", "1").getSuccessRate());
    Task accepted = verdict(sidecar, alice, "task-b", Acceptance.ACCEPT, "b1");
    assertEquals(TaskState.TASK_STATE_ACCEPTED, accepted.getState());
    assertEquals("b1", accepted.getFinalRunId());
    assertEquals(2, effect(accepted, "summarize", "1").getAcceptedTasks());
    assertEquals(0, effect(accepted, "summarize", "1").getAbandonedTasks());
  }

  @Test
  void listRunsPagesNewestFirstAndFiltersByTask() {
    Scope alice = scope(uniqueId("ws"), "alice", "chat-1");
    for (int i = 1; i <= 7; i++) {
      endRun(sidecar, alice, "r" + i, i <= 5 ? "paged" : "", "");
    }
    List<String> seen = new ArrayList<>();
    String token = "";
    int pages = 0;
    do {
      ListRunsResponse page = listRuns(alice, "paged", 2, token);
      assertTrue(page.getRunsCount() <= 2, page::toString);
      seen.addAll(runIds(page.getRunsList()));
      token = page.getNextPageToken();
      pages++;
    } while (!token.isEmpty());
    assertEquals(List.of("r5", "r4", "r3", "r2", "r1"), seen);
    assertEquals(3, pages);
    assertEquals(
        List.of("r7", "r6", "r5", "r4", "r3", "r2", "r1"),
        runIds(listRuns(alice, "", 0, "").getRunsList()));
    String next = listRuns(alice, "paged", 2, "").getNextPageToken();
    assertStatus(Status.Code.INVALID_ARGUMENT, "page_token", () -> listRuns(alice, "", 2, next));
    assertStatus(Status.Code.INVALID_ARGUMENT, "page_size", () -> listRuns(alice, "", -1, ""));
  }

  @Test
  void runsAndTasksOfOneWorkspaceOrUserAreInvisibleToAnother() {
    String ws = uniqueId("ws");
    Scope alice = scope(ws, "alice", "chat-1");
    Scope bob = scope(ws, "bob", "chat-1");
    Scope otherWorkspace = scope(uniqueId("ws"), "alice", "chat-1");
    endRun(sidecar, alice, "secret-run", "shared-task", "summarize@1");
    endRun(sidecar, bob, "bob-run", "shared-task", "");

    assertStatus(Status.Code.NOT_FOUND, () -> getRun(sidecar, otherWorkspace, "secret-run"));
    assertStatus(Status.Code.NOT_FOUND, () -> getTask(sidecar, otherWorkspace, "shared-task"));
    assertEquals(0, listRuns(otherWorkspace, "", 0, "").getRunsCount());
    assertStatus(
        Status.Code.NOT_FOUND,
        () -> verdict(sidecar, otherWorkspace, "shared-task", Acceptance.ABANDON, ""));

    assertStatus(Status.Code.NOT_FOUND, () -> getRun(sidecar, bob, "secret-run"));
    assertEquals(List.of("bob-run"), runIds(listRuns(bob, "", 0, "").getRunsList()));
    assertEquals(List.of("bob-run"), runIds(listRuns(bob, "shared-task", 0, "").getRunsList()));
    assertEquals(List.of("bob-run"), getTask(sidecar, bob, "shared-task").getRunIdsList());
    assertStatus(
        Status.Code.NOT_FOUND,
        "final_run_id",
        () -> verdict(sidecar, bob, "shared-task", Acceptance.ACCEPT, "secret-run"));
    verdict(sidecar, bob, "shared-task", Acceptance.ABANDON, "");
    assertEquals(TaskState.TASK_STATE_OPEN, getTask(sidecar, alice, "shared-task").getState());

    // The workspace's own view holds every user's runs.
    assertEquals(
        List.of("bob-run", "secret-run"),
        runIds(listRuns(scope(ws, "", ""), "", 0, "").getRunsList()));
  }

  @Test
  void badInputIsRefusedNamingTheField() {
    Scope alice = scope(uniqueId("ws"), "alice", "chat-1");
    endRun(sidecar, alice, "r1", "essay", "");
    endRun(sidecar, alice, "r2", "poem", "");
    LearningServiceBlockingStub learning = sidecar.learning();

    assertStatus(Status.Code.INVALID_ARGUMENT, "run_id", () -> getRun(sidecar, alice, ""));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "scope.workspace_id",
        () -> getRun(sidecar, Scope.getDefaultInstance(), "r1"));
    assertStatus(Status.Code.NOT_FOUND, () -> getRun(sidecar, alice, "no-such-run"));
    assertStatus(Status.Code.INVALID_ARGUMENT, "task_id", () -> getTask(sidecar, alice, ""));
    assertStatus(Status.Code.NOT_FOUND, () -> getTask(sidecar, alice, "no-such-task"));
    assertStatus(
        Status.Code.INVALID_ARGUMENT, "task_id", () -> listRuns(alice, "not a task id", 0, ""));

    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "task_id",
        () -> verdict(sidecar, alice, "", Acceptance.ABANDON, ""));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "acceptance",
        () -> verdict(sidecar, alice, "essay", Acceptance.ACCEPTANCE_UNSPECIFIED, ""));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "acceptance",
        () ->
            learning.recordAcceptance(
                RecordAcceptanceRequest.newBuilder()
                    .setScope(alice)
                    .setTaskId("essay")
                    .setAcceptanceValue(42)
                    .build()));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "final_run_id",
        () -> verdict(sidecar, alice, "essay", Acceptance.ACCEPT, ""));
    assertStatus(
        Status.Code.NOT_FOUND,
        "final_run_id",
        () -> verdict(sidecar, alice, "essay", Acceptance.ACCEPT, "no-such-run"));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "final_run_id",
        () -> verdict(sidecar, alice, "essay", Acceptance.ACCEPT, "r2"));
    assertStatus(
        Status.Code.NOT_FOUND,
        () -> verdict(sidecar, alice, "no-such-task", Acceptance.ABANDON, ""));
    assertStatus(
        Status.Code.PERMISSION_DENIED,
        () ->
            learning.recordAcceptance(
                RecordAcceptanceRequest.newBuilder()
                    .setScope(alice)
                    .setTaskId("essay")
                    .setAcceptance(Acceptance.ACCEPT)
                    .setFinalRunId("r1")
                    .putMetadata("memoryWrite", "false")
                    .build()));
    assertEquals(TaskState.TASK_STATE_OPEN, getTask(sidecar, alice, "essay").getState());

    for (Map.Entry<String, String> bad :
        List.of(
            Map.entry("task_id", "not an id"),
            Map.entry("skills", "a,,b"),
            Map.entry("skills", "summarize@"),
            Map.entry("skills", "s,".repeat(32) + "s"))) {
      assertStatus(
          Status.Code.INVALID_ARGUMENT,
          "metadata." + bad.getKey(),
          () ->
              sidecar
                  .memory()
                  .endRun(
                      EndRunRequest.newBuilder()
                          .setScope(alice)
                          .setRunId("bad")
                          .setInput("Remember the deploy day is Thursday.")
                          .putMetadata(bad.getKey(), bad.getValue())
                          .build()));
    }
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "usage.output_tokens",
        () ->
            sidecar
                .memory()
                .endRun(
                    EndRunRequest.newBuilder()
                        .setScope(alice)
                        .setRunId("bad")
                        .setInput("Remember the deploy day is Thursday.")
                        .setUsage(TokenUsage.newBuilder().setOutputTokens(-5))
                        .build()));
    assertStatus(Status.Code.NOT_FOUND, () -> getRun(sidecar, alice, "bad"));
  }

  @Test
  void learningServiceIsServingAndListedByReflection() throws Exception {
    assertEquals(
        ServingStatus.SERVING,
        sidecar
            .health()
            .check(
                HealthCheckRequest.newBuilder()
                    .setService(LearningServiceGrpc.SERVICE_NAME)
                    .build())
            .getStatus());
    List<String> names = sidecar.reflectedServices();
    assertTrue(names.contains("memsidecar.v1.LearningService"), names::toString);
  }

  @Test
  void receiptsTasksAndEffectsSurviveKillNine() {
    Fixtures.writeServerConfig(restartDir, "memory:\n  embedder: hash\n");
    Scope alice = scope("ws-restart", "alice", "chat-1");
    RunReceipt receipt;
    Task accepted;
    Task abandoned;
    try (SidecarProcess one = SidecarProcess.start(restartDir)) {
      endRun(one, alice, "r1", "kept", "summarize@1");
      endRun(one, alice, "r2", "dropped", "summarize@1");
      receipt = getRun(one, alice, "r1");
      accepted = verdict(one, alice, "kept", Acceptance.ACCEPT, "r1");
      abandoned = verdict(one, alice, "dropped", Acceptance.ABANDON, "r2");
      assertEquals(0.5, effect(abandoned, "summarize", "1").getSuccessRate());
      one.kill9();
    }
    try (SidecarProcess two = SidecarProcess.start(restartDir)) {
      assertEquals(receipt, getRun(two, alice, "r1"));
      assertEquals(withEffectsOf(accepted, abandoned), getTask(two, alice, "kept"));
      assertEquals(abandoned, getTask(two, alice, "dropped"));
    }
  }

  /**
   * {@code accepted} as it reads after {@code abandoned}'s verdict: the same, but for the skill
   * effects that verdict counted again.
   */
  private static Task withEffectsOf(Task accepted, Task abandoned) {
    return accepted.toBuilder()
        .clearSkillEffects()
        .addAllSkillEffects(abandoned.getSkillEffectsList())
        .build();
  }
}
