package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.assertStatus;
import static dev.memsidecar.it.Fixtures.listAll;
import static dev.memsidecar.it.Fixtures.uniqueId;
import static dev.memsidecar.it.Fixtures.user;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.proto.v1.BeginRunRequest;
import dev.memsidecar.proto.v1.BeginRunResponse;
import dev.memsidecar.proto.v1.EndRunRequest;
import dev.memsidecar.proto.v1.EndRunResponse;
import dev.memsidecar.proto.v1.GetMemoryRequest;
import dev.memsidecar.proto.v1.ListWriteDecisionsRequest;
import dev.memsidecar.proto.v1.ListWriteDecisionsResponse;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.MemoryStatus;
import dev.memsidecar.proto.v1.PromptSection;
import dev.memsidecar.proto.v1.RuntimeEvent;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.WatchEventsRequest;
import dev.memsidecar.proto.v1.WatchEventsResponse;
import dev.memsidecar.proto.v1.WriteDecision;
import dev.memsidecar.proto.v1.WriteOutcome;
import io.grpc.Status;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The agent's two calls over gRPC on the built jar, with the default rules extractor: the
 * stable-harness long-running test (N runs teaching the same facts leave one record each, and a
 * read-only run recalls them), frozen snapshots across a restart, the audit, and events.
 */
class TestRuns extends DefaultSidecarTest {
  private static final String TEACH =
      "Remember: before committing always run `npm run check:rules`. "
          + "My test token is EASYNET_USER_MEMORY_9137.";
  private static final String ACK = "OK, I will run npm run check:rules before every commit.";

  @TempDir Path restartDir;

  private static EndRunResponse endRun(Scope scope, String runId, String input, String output) {
    return memory()
        .endRun(
            EndRunRequest.newBuilder()
                .setScope(scope)
                .setRunId(runId)
                .setInput(input)
                .setOutput(output)
                .build());
  }

  private static String section(BeginRunResponse r, String id) {
    return r.getSectionsList().stream()
        .filter(s -> s.getId().equals(id))
        .map(PromptSection::getBody)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no section " + id + " in " + r));
  }

  @ParameterizedTest(name = "N = {0}")
  @ValueSource(ints = {3, 50})
  void runsTeachingTheSameFactsLeaveOneRecordEachAndAReadOnlyRunRecallsThem(int n) {
    Scope scope = user(uniqueId("ws-long"), "alice");
    for (int i = 0; i < n; i++) {
      EndRunResponse write = endRun(scope, "write-" + i, TEACH, ACK);
      assertTrue(write.getWritten(), write::toString);
      for (WriteDecision d : write.getDecisionsList()) {
        assertNotEquals(WriteOutcome.WRITE_OUTCOME_REJECTED, d.getOutcome(), d::toString);
      }

      BeginRunResponse read =
          memory()
              .beginRun(
                  BeginRunRequest.newBuilder()
                      .setScope(scope)
                      .setRunId("read-" + i)
                      .setInput("What must I run before committing, and what is my test token?")
                      .putMetadata("memoryWrite", "false")
                      .build());
      String recalled = section(read, "recalled_memory");
      assertTrue(recalled.contains("npm run check:rules"), recalled);
      assertTrue(recalled.contains("EASYNET_USER_MEMORY_9137"), recalled);
      EndRunRequest readEnd =
          EndRunRequest.newBuilder()
              .setScope(scope)
              .setRunId("read-" + i)
              .setInput("What must I run before committing, and what is my test token?")
              .setOutput("Run npm run check:rules; your token is EASYNET_USER_MEMORY_9137.")
              .putMetadata("memoryWrite", "false")
              .build();
      assertFalse(memory().endRun(readEnd).getWritten(), "a read-only run writes nothing");
    }
    List<Memory> workspace = listAll(memory(), scope, "workspace", 0, true);
    List<Memory> users = listAll(memory(), scope, "user", 0, true);
    assertEquals(1, workspace.size(), workspace::toString);
    assertTrue(workspace.get(0).getContent().contains("npm run check:rules"));
    assertEquals(n, workspace.get(0).getSourceRefsCount(), "every write run merged into it");
    assertEquals(1, users.size(), users::toString);
    assertTrue(users.get(0).getContent().contains("EASYNET_USER_MEMORY_9137"));
  }

  @Test
  void aCorrectionSupersedesTheOldFactWhichGetMemoryStillShowsLinked() {
    Scope scope = user(uniqueId("ws-supersede"), "gina");
    EndRunResponse first = endRun(scope, "v1", "Our deploy day is Tuesday.", "");
    Memory old = first.getDecisions(0).getMemory();
    EndRunResponse second = endRun(scope, "v2", "Correction: our deploy day is now Thursday.", "");
    Memory successor = second.getDecisions(0).getMemory();
    assertEquals(WriteOutcome.WRITE_OUTCOME_STORED, second.getDecisions(0).getOutcome());
    assertTrue(
        second.getDecisions(0).getReason().contains("supersedes " + old.getId()), second::toString);
    Memory oldNow =
        memory()
            .getMemory(
                GetMemoryRequest.newBuilder()
                    .setScope(scope)
                    .setProfile(old.getProfile())
                    .setId(old.getId())
                    .build())
            .getMemory();
    assertEquals(MemoryStatus.MEMORY_STATUS_SUPERSEDED, oldNow.getStatus());
    assertEquals(successor.getId(), oldNow.getMetadataOrThrow("superseded_by"));
    assertEquals(old.getId(), successor.getMetadataOrThrow("supersedes"));
    String recalled =
        section(
            memory()
                .beginRun(
                    BeginRunRequest.newBuilder()
                        .setScope(scope)
                        .setRunId("read")
                        .setInput("which day do we deploy")
                        .build()),
            "recalled_memory");
    assertTrue(recalled.contains("Thursday"), recalled);
    assertFalse(recalled.contains("Tuesday"), recalled);
  }

  @Test
  void aRetryOfEndRunReturnsTheFirstDecisions() {
    Scope scope = user(uniqueId("ws-retry"), "bob");
    String input = "I prefer green tea over coffee. I work as a nurse at St Mary's hospital.";
    EndRunResponse first = endRun(scope, "r-1", input, "");
    assertTrue(first.getDecisionsCount() >= 2, first::toString);
    assertEquals(first, endRun(scope, "r-1", input, ""));
    assertEquals(
        first.getDecisionsList().stream()
            .filter(d -> d.getOutcome() == WriteOutcome.WRITE_OUTCOME_STORED)
            .count(),
        listAll(memory(), scope, "user", 0, true).size());
  }

  @Test
  void theAuditListsEveryDecisionOfARunPageByPageAndOnlyInItsScope() {
    Scope scope = user(uniqueId("ws-audit"), "carol");
    EndRunResponse r =
        endRun(scope, "audit-1", "Hi! I prefer window seats. My dog is called Biscuit.", "");
    List<WriteDecision> seen = new ArrayList<>();
    String token = "";
    do {
      ListWriteDecisionsResponse page =
          sidecar
              .admin()
              .listWriteDecisions(
                  ListWriteDecisionsRequest.newBuilder()
                      .setScope(scope)
                      .setRunId("audit-1")
                      .setPageSize(1)
                      .setPageToken(token)
                      .build());
      page.getDecisionsList().forEach(e -> seen.add(e.getDecision()));
      token = page.getNextPageToken();
    } while (!token.isEmpty());
    assertEquals(r.getDecisionsList(), seen);
    Scope other = user(scope.getWorkspaceId(), "mallory");
    assertEquals(
        0,
        sidecar
            .admin()
            .listWriteDecisions(
                ListWriteDecisionsRequest.newBuilder().setScope(other).setRunId("audit-1").build())
            .getDecisionsCount());
  }

  @Test
  void badTimeZoneOrRunIdIsInvalidArgumentNamingTheField() {
    Scope scope = user(uniqueId("ws-bad"), "dave");
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "metadata.timezone",
        () ->
            memory()
                .beginRun(
                    BeginRunRequest.newBuilder()
                        .setScope(scope)
                        .setInput("hi")
                        .putMetadata("timezone", "Nowhere/Atlantis")
                        .build()));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "run_id",
        () -> endRun(scope, "no spaces allowed", "I like jazz.", ""));
  }

  @Test
  void aWatcherSeesItsWorkspacesRunEventsAndNoOthers() throws Exception {
    Scope scope = user(uniqueId("ws-events"), "erin");
    Iterator<WatchEventsResponse> stream =
        sidecar
            .admin()
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .watchEvents(WatchEventsRequest.newBuilder().setScope(scope).build());
    // Another workspace's run first: the watcher must not see it.
    endRun(user(uniqueId("ws-other"), "erin"), "other", "I prefer dark chocolate.", "");
    memory()
        .beginRun(
            BeginRunRequest.newBuilder().setScope(scope).setRunId("e1").setInput("hi").build());
    endRun(scope, "e1", "I prefer dark chocolate over milk chocolate.", "");
    List<String> types = new ArrayList<>();
    while (!types.contains("run.end")) {
      RuntimeEvent e = stream.next().getEvent();
      assertEquals("e1", e.getRunId(), e::toString);
      types.add(e.getType());
    }
    assertEquals("run.begin", types.get(0), types::toString);
    assertTrue(types.contains("memory.stored"), types::toString);
  }

  @Test
  void anEndRunAcknowledgedBeforeAKillIsReturnedAgainAndStoredOnce() {
    Scope scope = user("ws-crash", "hana");
    EndRunRequest run =
        EndRunRequest.newBuilder()
            .setScope(scope)
            .setRunId("before-crash")
            .setInput("I prefer aisle seats. I am allergic to penicillin.")
            .build();
    EndRunResponse first;
    int stored;
    try (SidecarProcess one = SidecarProcess.start(restartDir)) {
      first = one.memory().endRun(run);
      stored = listAll(one.memory(), scope, "user", 0, true).size();
      assertTrue(stored >= 2, first::toString);
      one.kill9();
    }
    try (SidecarProcess two = SidecarProcess.start(restartDir)) {
      assertEquals(first, two.memory().endRun(run));
      assertEquals(stored, listAll(two.memory(), scope, "user", 0, true).size());
    }
  }

  @Test
  void aSnapshotIsServedAgainAfterARestart() {
    Scope scope = user("ws-restart", "frank");
    BeginRunRequest begin =
        BeginRunRequest.newBuilder()
            .setScope(scope)
            .setRunId("frozen")
            .setInput("what do I like to drink")
            .build();
    BeginRunResponse first;
    try (SidecarProcess one = SidecarProcess.start(restartDir)) {
      one.memory()
          .endRun(
              EndRunRequest.newBuilder()
                  .setScope(scope)
                  .setRunId("teach")
                  .setInput("I prefer oolong tea.")
                  .build());
      first = one.memory().beginRun(begin);
      assertTrue(section(first, "recalled_memory").contains("oolong"), first::toString);
      assertEquals(0, one.terminate(), one::stderrTail);
    }
    try (SidecarProcess two = SidecarProcess.start(restartDir)) {
      two.memory()
          .endRun(
              EndRunRequest.newBuilder()
                  .setScope(scope)
                  .setRunId("teach-2")
                  .setInput("I also like to drink yerba mate.")
                  .build());
      assertEquals(first, two.memory().beginRun(begin), "byte-identical sections after a restart");
    }
  }
}
