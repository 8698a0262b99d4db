package dev.memsidecar.core;

import static dev.memsidecar.core.ScriptedExtractor.line;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.ToolCall;
import dev.memsidecar.conformance.InMemoryProvider;
import dev.memsidecar.core.config.Flags;
import dev.memsidecar.core.config.RunConfig;
import dev.memsidecar.core.config.ScopeKind;
import dev.memsidecar.core.learning.Acceptance;
import dev.memsidecar.core.learning.LearningService;
import dev.memsidecar.core.learning.RunLabels;
import dev.memsidecar.core.learning.RunReceipt;
import dev.memsidecar.core.learning.SkillVersion;
import dev.memsidecar.core.learning.Task;
import dev.memsidecar.core.learning.TaskState;
import dev.memsidecar.core.run.BeginRunInput;
import dev.memsidecar.core.run.EndRunInput;
import dev.memsidecar.core.run.RunSnapshot;
import dev.memsidecar.core.sessions.SessionService;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs and acceptance: the receipt EndRun writes, tasks and their verdicts, skill effects counted
 * again on every verdict, isolation, paging, bad labels, and what survives a reopen; over the
 * in-memory provider with a scripted extractor.
 */
class TestLearning {
  private static final Scope ALICE = new Scope("acme", "alice", "", "chat-1");
  private static final Scope BOB = new Scope("acme", "bob", "", "chat-1");

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

  private void tick(Duration d) {
    now.updateAndGet(t -> t.plus(d));
  }

  /** A run of {@code scope} on {@code task} (none when empty) that used {@code skills}. */
  private static void run(MemoryEngine e, Scope scope, String runId, String task, String skills) {
    Map<String, String> md = new HashMap<>();
    if (!task.isEmpty()) {
      md.put(RunLabels.TASK_ID, task);
    }
    if (!skills.isEmpty()) {
      md.put(RunLabels.SKILLS, skills);
    }
    e.endRun(
        new EndRunInput(scope, runId, "working on " + runId, "done", List.of(), md),
        RequestOptions.fromMetadata(md));
  }

  private static Task verdict(
      MemoryEngine e, Scope scope, String task, Acceptance acceptance, String finalRunId) {
    return e.learning()
        .recordAcceptance(scope, task, acceptance, finalRunId, RequestOptions.DEFAULT);
  }

  private static MemoryException refused(MemoryException.Code code, Runnable call) {
    MemoryException e = assertThrows(MemoryException.class, call::run);
    assertEquals(code, e.code(), e::getMessage);
    return e;
  }

  private static Task.SkillEffect effect(Task task, String name, String version) {
    return task.skillEffects().stream()
        .filter(x -> x.skill().equals(new SkillVersion(name, version)))
        .findFirst()
        .orElseThrow(() -> new AssertionError(name + "@" + version + " not in " + task));
  }

  private static List<String> runIds(LearningService.RunPage page) {
    return page.runs().stream().map(RunReceipt::runId).toList();
  }

  @Test
  void endRunWritesAReceiptOfToolsSkillsUsageAndDecisionCounts() {
    MemoryEngine e = engine();
    Instant begun = now.get();
    RunSnapshot snapshot =
        e.beginRun(
            new BeginRunInput(ALICE, "r1", "make the report", List.of(), 0, Map.of()),
            RequestOptions.DEFAULT);
    tick(Duration.ofSeconds(42));
    Map<String, String> md =
        Map.of(
            RunLabels.TASK_ID, "report-7",
            RunLabels.SKILLS, "pdf-report@1.2.0, web-search ,pdf-report@1.2.0");
    e.endRun(
        new EndRunInput(
            ALICE,
            "r1",
            String.join(
                "\n",
                line("user", "semantic", 9, false, "Alice wants quarterly reports as PDF"),
                line("user", "semantic", 9, false, "Alice works in the finance team"),
                line("user", "semantic", 3, false, "Alice said hello")),
            "Here is the report.",
            List.of(
                new ToolCall("web_search", true, "", ""),
                new ToolCall("web_search", false, "timeout", "took too long"),
                new ToolCall("render_pdf", false, "", "crashed"),
                new ToolCall("web_search", true, "", "")),
            md,
            new RunReceipt.Usage(1200, 340)),
        RequestOptions.fromMetadata(md));

    RunReceipt r = e.learning().run(ALICE, "r1");
    assertEquals("r1", r.runId());
    assertEquals(ALICE, r.scope());
    assertEquals("chat-1", r.sessionId());
    assertEquals("report-7", r.taskId());
    assertEquals(
        List.of(
            new RunReceipt.ToolUse("web_search", 3, 2, Map.of("timeout", 1)),
            new RunReceipt.ToolUse("render_pdf", 1, 0, Map.of("unknown", 1))),
        r.tools());
    assertEquals(1, r.tools().get(0).failedCalls());
    assertEquals(
        List.of(new SkillVersion("pdf-report", "1.2.0"), new SkillVersion("web-search", "")),
        r.skills());
    assertEquals(new RunReceipt.Usage(1200, 340), r.usage());
    assertEquals(begun, r.startTime());
    assertEquals(begun.plusSeconds(42), r.endTime());
    assertEquals(new RunReceipt.WriteCounts(2, 0, 1), r.writeDecisions());
    assertEquals(snapshot.snapshotId(), r.snapshotId());

    // A run without a BeginRun, in no session, that repeats a fact: it started when it ended.
    tick(Duration.ofMinutes(1));
    Scope noSession = Scope.user("acme", "alice");
    e.endRun(
        new EndRunInput(
            noSession,
            "r2",
            line("user", "semantic", 9, false, "Alice wants quarterly reports as PDF"),
            "",
            List.of(),
            Map.of()),
        RequestOptions.DEFAULT);
    RunReceipt r2 = e.learning().run(noSession, "r2");
    assertEquals(SessionService.DEFAULT_SESSION, r2.sessionId());
    assertEquals("", r2.taskId());
    assertEquals(List.of(), r2.tools());
    assertEquals(List.of(), r2.skills());
    assertNull(r2.usage());
    assertEquals(r2.endTime(), r2.startTime());
    assertEquals("", r2.snapshotId());
    assertEquals(new RunReceipt.WriteCounts(0, 1, 0), r2.writeDecisions());
  }

  @Test
  void aReadOnlyRunLeavesNoReceiptAndARetryNoSecond() {
    MemoryEngine e = engine();
    Map<String, String> readOnly =
        Map.of(RequestOptions.MEMORY_WRITE, "false", RunLabels.TASK_ID, "t1");
    e.endRun(
        new EndRunInput(ALICE, "quiet", "hi", "hello", List.of(), readOnly),
        RequestOptions.fromMetadata(readOnly));
    refused(MemoryException.Code.NOT_FOUND, () -> e.learning().run(ALICE, "quiet"));
    refused(MemoryException.Code.NOT_FOUND, () -> e.learning().task(ALICE, "t1"));

    run(e, ALICE, "loud", "t1", "");
    tick(Duration.ofMinutes(1));
    run(e, ALICE, "loud", "t1", "");
    assertEquals(List.of("loud"), runIds(e.learning().runs(ALICE, "", 0, "")));
    Task t1 = e.learning().task(ALICE, "t1");
    assertEquals(List.of("loud"), t1.runIds());
    assertEquals(1, t1.runCount());
  }

  @Test
  void verdictsMoveTheTaskAndCheckTheFinalRun() {
    MemoryEngine e = engine();
    Instant first = now.get();
    run(e, ALICE, "a1", "essay", "");
    tick(Duration.ofMinutes(5));
    run(e, ALICE, "a2", "essay", "");
    run(e, ALICE, "other", "poem", "");
    run(e, ALICE, "loose", "", "");

    Task open = e.learning().task(ALICE, "essay");
    assertEquals(TaskState.OPEN, open.state());
    assertEquals(List.of("a1", "a2"), open.runIds());
    assertEquals(2, open.runCount());
    assertEquals("", open.finalRunId());
    assertEquals(first, open.createTime());
    assertEquals(first.plus(Duration.ofMinutes(5)), open.updateTime());
    assertNull(open.acceptanceTime());

    tick(Duration.ofMinutes(1));
    Task revise = verdict(e, ALICE, "essay", Acceptance.REVISE, "");
    assertEquals(TaskState.REVISE, revise.state());
    assertEquals(now.get(), revise.acceptanceTime());
    assertEquals(now.get(), revise.updateTime());

    MemoryException noFinal =
        refused(
            MemoryException.Code.INVALID_ARGUMENT,
            () -> verdict(e, ALICE, "essay", Acceptance.ACCEPT, ""));
    assertEquals("final_run_id", noFinal.field());
    MemoryException otherTask =
        refused(
            MemoryException.Code.INVALID_ARGUMENT,
            () -> verdict(e, ALICE, "essay", Acceptance.ACCEPT, "other"));
    assertEquals("final_run_id", otherTask.field());
    assertTrue(otherTask.getMessage().contains("'poem'"), otherTask::getMessage);
    refused(
        MemoryException.Code.INVALID_ARGUMENT,
        () -> verdict(e, ALICE, "essay", Acceptance.ACCEPT, "loose"));
    MemoryException unknownRun =
        refused(
            MemoryException.Code.NOT_FOUND,
            () -> verdict(e, ALICE, "essay", Acceptance.ACCEPT, "nope"));
    assertTrue(unknownRun.getMessage().contains("final_run_id"), unknownRun::getMessage);
    refused(
        MemoryException.Code.NOT_FOUND,
        () -> verdict(e, ALICE, "no-such-task", Acceptance.ABANDON, ""));
    MemoryException noVerdict =
        refused(MemoryException.Code.INVALID_ARGUMENT, () -> verdict(e, ALICE, "essay", null, ""));
    assertEquals("acceptance", noVerdict.field());
    MemoryException badTask =
        refused(
            MemoryException.Code.INVALID_ARGUMENT,
            () -> verdict(e, ALICE, "bad task", Acceptance.ABANDON, ""));
    assertEquals("task_id", badTask.field());
    refused(
        MemoryException.Code.PERMISSION_DENIED,
        () ->
            e.learning()
                .recordAcceptance(
                    ALICE,
                    "essay",
                    Acceptance.ACCEPT,
                    "a2",
                    RequestOptions.fromMetadata(Map.of(RequestOptions.MEMORY_WRITE, "false"))));
    assertEquals(revise, e.learning().task(ALICE, "essay"), "refused verdicts change nothing");

    tick(Duration.ofMinutes(1));
    Task accepted = verdict(e, ALICE, "essay", Acceptance.ACCEPT, "a2");
    assertEquals(TaskState.ACCEPTED, accepted.state());
    assertEquals("a2", accepted.finalRunId());
    assertEquals(now.get(), accepted.acceptanceTime());

    tick(Duration.ofMinutes(1));
    assertEquals(accepted, verdict(e, ALICE, "essay", Acceptance.ACCEPT, "a2"), "idempotent");

    Task abandoned = verdict(e, ALICE, "essay", Acceptance.ABANDON, "");
    assertEquals(TaskState.ABANDONED, abandoned.state());
    assertEquals("", abandoned.finalRunId());
    assertEquals(now.get(), abandoned.updateTime());
  }

  @Test
  void skillEffectsAreCountedAgainOnEveryVerdict() {
    MemoryEngine e = engine();
    run(e, ALICE, "a1", "task-a", "search@2, write");
    run(e, ALICE, "b1", "task-b", "search@2");
    run(e, BOB, "c1", "task-c", "search@2,search");

    Task a = e.learning().task(ALICE, "task-a");
    assertEquals(0, effect(a, "search", "2").acceptedTasks());
    assertEquals(0.0, effect(a, "search", "2").successRate());

    a = verdict(e, ALICE, "task-a", Acceptance.ACCEPT, "a1");
    assertEquals(
        new Task.SkillEffect(new SkillVersion("search", "2"), 1, 0), effect(a, "search", "2"));
    assertEquals(1.0, effect(a, "search", "2").successRate());
    assertEquals(1.0, effect(a, "write", "").successRate());

    Task b = verdict(e, ALICE, "task-b", Acceptance.ABANDON, "");
    Task.SkillEffect half = new Task.SkillEffect(new SkillVersion("search", "2"), 1, 1);
    assertEquals(half, effect(b, "search", "2"));
    assertEquals(0.5, effect(b, "search", "2").successRate());
    assertEquals(half, effect(e.learning().task(ALICE, "task-a"), "search", "2"));
    // Another user's open task that used the skill shows the workspace's effect too.
    assertEquals(half, effect(e.learning().task(BOB, "task-c"), "search", "2"));
    assertEquals(
        new Task.SkillEffect(new SkillVersion("search", ""), 0, 0),
        effect(e.learning().task(BOB, "task-c"), "search", ""));

    // A later verdict replaces the earlier one in the counts.
    a = verdict(e, ALICE, "task-a", Acceptance.REVISE, "");
    assertEquals(0.0, effect(a, "search", "2").successRate());
    assertEquals(1, effect(a, "search", "2").abandonedTasks());
    assertEquals(0, effect(a, "write", "").acceptedTasks());
    a = verdict(e, ALICE, "task-a", Acceptance.ACCEPT, "a1");
    assertEquals(half, effect(a, "search", "2"));

    // A decided task counts towards a skill version a later run of it used.
    run(e, ALICE, "b2", "task-b", "review@1");
    assertEquals(
        new Task.SkillEffect(new SkillVersion("review", "1"), 0, 1),
        effect(e.learning().task(ALICE, "task-b"), "review", "1"));

    // Skill effects are per workspace.
    Scope elsewhere = new Scope("globex", "alice", "", "");
    run(e, elsewhere, "g1", "task-a", "search@2");
    Task g = verdict(e, elsewhere, "task-a", Acceptance.ABANDON, "");
    assertEquals(
        new Task.SkillEffect(new SkillVersion("search", "2"), 0, 1), effect(g, "search", "2"));
    assertEquals(half, effect(e.learning().task(ALICE, "task-a"), "search", "2"));
  }

  @Test
  void concurrentVerdictsOnTasksSharingASkillCountEveryOne() throws Exception {
    MemoryEngine e = engine();
    int tasks = 24;
    for (int i = 0; i < tasks; i++) {
      run(e, ALICE, "run-" + i, "t-" + i, "shared@1");
    }
    ExecutorService pool = Executors.newFixedThreadPool(6);
    List<Future<Task>> done = new ArrayList<>();
    for (int i = 0; i < tasks; i++) {
      int n = i;
      done.add(
          pool.submit(
              () ->
                  n % 3 == 0
                      ? verdict(e, ALICE, "t-" + n, Acceptance.ABANDON, "")
                      : verdict(e, ALICE, "t-" + n, Acceptance.ACCEPT, "run-" + n)));
    }
    for (Future<Task> f : done) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertEquals(
        new Task.SkillEffect(new SkillVersion("shared", "1"), 16, 8),
        effect(e.learning().task(ALICE, "t-0"), "shared", "1"));
  }

  @Test
  void runsAndTasksStayInTheirWorkspaceAndUser() {
    MemoryEngine e = engine();
    run(e, ALICE, "a1", "same-task", "");
    run(e, BOB, "b1", "same-task", "");
    Scope otherWorkspace = new Scope("globex", "alice", "", "chat-1");

    refused(MemoryException.Code.NOT_FOUND, () -> e.learning().run(otherWorkspace, "a1"));
    refused(MemoryException.Code.NOT_FOUND, () -> e.learning().task(otherWorkspace, "same-task"));
    assertEquals(List.of(), e.learning().runs(otherWorkspace, "", 0, "").runs());
    refused(MemoryException.Code.NOT_FOUND, () -> e.learning().run(BOB, "a1"));
    assertEquals(List.of("b1"), runIds(e.learning().runs(BOB, "", 0, "")));
    assertEquals(List.of("b1"), runIds(e.learning().runs(BOB, "same-task", 0, "")));
    // The workspace's view holds every user's runs; a user's narrows to theirs.
    assertEquals(
        List.of("b1", "a1"), runIds(e.learning().runs(Scope.workspace("acme"), "", 0, "")));
    assertEquals("a1", e.learning().run(Scope.workspace("acme"), "a1").runId());
    refused(
        MemoryException.Code.NOT_FOUND,
        () -> e.learning().run(new Scope("acme", "alice", "", "chat-2"), "a1"));

    // The same task id under two users is two tasks; a user cannot accept another's run.
    assertEquals(List.of("a1"), e.learning().task(ALICE, "same-task").runIds());
    assertEquals(List.of("b1"), e.learning().task(BOB, "same-task").runIds());
    refused(
        MemoryException.Code.NOT_FOUND,
        () -> verdict(e, BOB, "same-task", Acceptance.ACCEPT, "a1"));
    verdict(e, BOB, "same-task", Acceptance.ABANDON, "");
    assertEquals(TaskState.OPEN, e.learning().task(ALICE, "same-task").state());
    refused(
        MemoryException.Code.NOT_FOUND,
        () -> e.learning().task(Scope.workspace("acme"), "same-task"));
  }

  @Test
  void listRunsPagesNewestFirstAndFiltersByTask() {
    MemoryEngine e = engine();
    for (int i = 1; i <= 5; i++) {
      tick(Duration.ofSeconds(1));
      run(e, ALICE, "r" + i, i % 2 == 1 ? "odd" : "", "");
    }
    List<String> all = new ArrayList<>();
    String token = "";
    int pages = 0;
    do {
      LearningService.RunPage page = e.learning().runs(ALICE, "", 2, token);
      all.addAll(runIds(page));
      token = page.nextPageToken();
      pages++;
    } while (!token.isEmpty());
    assertEquals(List.of("r5", "r4", "r3", "r2", "r1"), all);
    assertEquals(3, pages);

    LearningService.RunPage odd = e.learning().runs(ALICE, "odd", 2, "");
    assertEquals(List.of("r5", "r3"), runIds(odd));
    assertEquals(List.of("r1"), runIds(e.learning().runs(ALICE, "odd", 2, odd.nextPageToken())));
    MemoryException replayed =
        refused(
            MemoryException.Code.INVALID_ARGUMENT,
            () -> e.learning().runs(ALICE, "", 2, odd.nextPageToken()));
    assertEquals("page_token", replayed.field());
    assertEquals(
        "page_size",
        refused(MemoryException.Code.INVALID_ARGUMENT, () -> e.learning().runs(ALICE, "", -1, ""))
            .field());
    assertEquals(
        "task_id",
        refused(
                MemoryException.Code.INVALID_ARGUMENT,
                () -> e.learning().runs(ALICE, "no/slash", 0, ""))
            .field());
  }

  @Test
  void badLabelsAndUsageAreRefusedNamingTheFieldAndWriteNothing() {
    MemoryEngine e = engine();
    List<Map<String, String>> bad =
        List.of(
            Map.of(RunLabels.TASK_ID, "not an id"),
            Map.of(RunLabels.TASK_ID, "x".repeat(65)),
            Map.of(RunLabels.SKILLS, "a,,b"),
            Map.of(RunLabels.SKILLS, "pdf@"),
            Map.of(RunLabels.SKILLS, "@1"),
            Map.of(RunLabels.SKILLS, "a@1@2"),
            Map.of(RunLabels.SKILLS, String.join(",", java.util.Collections.nCopies(33, "s"))));
    List<String> fields =
        List.of(
            "metadata.task_id",
            "metadata.task_id",
            "metadata.skills",
            "metadata.skills",
            "metadata.skills",
            "metadata.skills",
            "metadata.skills");
    for (int i = 0; i < bad.size(); i++) {
      Map<String, String> md = bad.get(i);
      MemoryException x =
          refused(
              MemoryException.Code.INVALID_ARGUMENT,
              () ->
                  e.endRun(
                      new EndRunInput(ALICE, "bad", "hi", "", List.of(), md),
                      RequestOptions.fromMetadata(md)));
      assertEquals(fields.get(i), x.field(), md::toString);
    }
    MemoryException negative =
        refused(
            MemoryException.Code.INVALID_ARGUMENT,
            () ->
                e.endRun(
                    new EndRunInput(
                        ALICE, "bad", "hi", "", List.of(), Map.of(), new RunReceipt.Usage(-1, 0)),
                    RequestOptions.DEFAULT));
    assertEquals("usage.input_tokens", negative.field());
    refused(MemoryException.Code.NOT_FOUND, () -> e.learning().run(ALICE, "bad"));
    assertEquals(List.of(), e.sessions().history(ALICE, 0, "").items());

    // 32 skills are fine.
    Map<String, String> most = new HashMap<>();
    List<String> skills = new ArrayList<>();
    for (int i = 0; i < RunLabels.MAX_SKILLS; i++) {
      skills.add("skill-" + i + "@" + i);
    }
    most.put(RunLabels.SKILLS, String.join(",", skills));
    e.endRun(new EndRunInput(ALICE, "many", "hi", "", List.of(), most), RequestOptions.DEFAULT);
    assertEquals(RunLabels.MAX_SKILLS, e.learning().run(ALICE, "many").skills().size());
  }

  @Test
  void receiptsTasksAndEffectsSurviveAReopen() {
    MemoryEngine first = engine();
    run(first, ALICE, "r1", "kept", "search@2");
    Task accepted = verdict(first, ALICE, "kept", Acceptance.ACCEPT, "r1");
    RunReceipt receipt = first.learning().run(ALICE, "r1");
    first.close();
    open.remove(first);

    MemoryEngine second = engine();
    assertEquals(receipt, second.learning().run(ALICE, "r1"));
    assertEquals(accepted, second.learning().task(ALICE, "kept"));
    assertNotNull(second.learning().task(ALICE, "kept").acceptanceTime());
  }
}
