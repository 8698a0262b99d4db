package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.listAll;
import static dev.memsidecar.it.Fixtures.search;
import static dev.memsidecar.it.Fixtures.uniqueId;
import static dev.memsidecar.it.Fixtures.workspace;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.proto.v1.EndRunRequest;
import dev.memsidecar.proto.v1.EndRunResponse;
import dev.memsidecar.proto.v1.GetMemoryRequest;
import dev.memsidecar.proto.v1.ListWriteDecisionsRequest;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.MemoryStatus;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.WriteDecision;
import dev.memsidecar.proto.v1.WriteOutcome;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Remember and EndRun share one write path, over gRPC on the built jar: a Remember of a repeated or
 * paraphrased fact merges into the memory already stored, a new value supersedes it, a retry of a
 * request that merged changes nothing; EndRun's decisions when writes are off are unchanged.
 */
class TestOneWritePath extends DefaultSidecarTest {
  private static final String EDITOR = "User prefers dark mode in the editor";

  @TempDir Path writesOffDir;

  private static WriteDecision remember(
      Scope scope, String content, String requestId, String... tags) {
    return memory()
        .remember(
            RememberRequest.newBuilder()
                .setScope(scope)
                .setProfile("workspace")
                .setContent(content)
                .setRequestId(requestId)
                .addAllTags(List.of(tags))
                .build())
        .getDecision();
  }

  private static Memory get(Scope scope, String id) {
    return memory()
        .getMemory(
            GetMemoryRequest.newBuilder().setScope(scope).setProfile("workspace").setId(id).build())
        .getMemory();
  }

  private static List<WriteDecision> audit(Scope scope) {
    return sidecar
        .admin()
        .listWriteDecisions(ListWriteDecisionsRequest.newBuilder().setScope(scope).build())
        .getDecisionsList()
        .stream()
        .map(e -> e.getDecision())
        .toList();
  }

  @Test
  void aParaphrasedRememberMergesIntoTheMemoryAlreadyStored() {
    Scope scope = workspace(uniqueId("ws-merge"));
    WriteDecision first = remember(scope, "The user prefers dark mode", "", "ui");
    assertEquals(WriteOutcome.WRITE_OUTCOME_STORED, first.getOutcome(), first::toString);
    WriteDecision paraphrase = remember(scope, EDITOR, "r-2", "editor");
    assertEquals(WriteOutcome.WRITE_OUTCOME_MERGED, paraphrase.getOutcome(), paraphrase::toString);
    Memory merged = paraphrase.getMemory();
    assertEquals(first.getMemory().getId(), merged.getId());
    assertTrue(
        paraphrase.getReason().startsWith("merged into " + merged.getId()), merged::toString);
    assertEquals(List.of("ui", "editor"), merged.getTagsList());
    assertEquals(List.of("remember", "remember:r-2"), merged.getSourceRefsList());
    assertEquals(List.of(merged.getId()), Fixtures.ids(listAll(memory(), scope, "", 0, true)));
    assertEquals(
        List.of(WriteOutcome.WRITE_OUTCOME_STORED, WriteOutcome.WRITE_OUTCOME_MERGED),
        audit(scope).stream().map(WriteDecision::getOutcome).toList());
  }

  @Test
  void aRememberWithANewValueSupersedesTheOldMemory() {
    Scope scope = workspace(uniqueId("ws-supersede"));
    Memory old = remember(scope, "The deploy day is Tuesday", "").getMemory();
    WriteDecision d = remember(scope, "The deploy day is now Thursday", "r-thu");
    assertEquals(WriteOutcome.WRITE_OUTCOME_STORED, d.getOutcome());
    assertTrue(d.getReason().contains("; supersedes " + old.getId()), d::toString);
    Memory oldNow = get(scope, old.getId());
    assertEquals(MemoryStatus.MEMORY_STATUS_SUPERSEDED, oldNow.getStatus());
    assertEquals(d.getMemory().getId(), oldNow.getMetadataOrThrow("superseded_by"));
    assertEquals(old.getId(), d.getMemory().getMetadataOrThrow("supersedes"));
    List<Memory> hits = search(memory(), scope, "which day is the deploy");
    assertEquals(
        List.of("The deploy day is now Thursday"), hits.stream().map(Memory::getContent).toList());
  }

  @Test
  void aRetryOfARequestThatMergedReturnsTheSameOutcomeAndMemoryAndChangesNothing() {
    Scope scope = workspace(uniqueId("ws-retry"));
    remember(scope, "The user prefers dark mode", "");
    WriteDecision first = remember(scope, EDITOR, "r-9", "editor");
    assertEquals(WriteOutcome.WRITE_OUTCOME_MERGED, first.getOutcome(), first::toString);
    Memory afterFirst = get(scope, first.getMemory().getId());
    int audited = audit(scope).size();

    WriteDecision retry = remember(scope, EDITOR, "r-9", "editor");
    assertEquals(WriteOutcome.WRITE_OUTCOME_MERGED, retry.getOutcome(), retry::toString);
    assertEquals(afterFirst, retry.getMemory());
    assertEquals(afterFirst, get(scope, afterFirst.getId()), "the retry changed the memory");
    assertEquals(1, listAll(memory(), scope, "", 0, true).size());
    assertEquals(audited, audit(scope).size(), "the retry was audited again");
  }

  @Test
  void theClientsOwnWordsAreStoredHoweverShort() {
    Scope scope = workspace(uniqueId("ws-verbatim"));
    for (String content : List.of("alpha", "hi")) {
      WriteDecision d = remember(scope, content, "");
      assertEquals(WriteOutcome.WRITE_OUTCOME_STORED, d.getOutcome(), d::toString);
    }
  }

  @Test
  void aReadOnlyEndRunWritesNothingAndSaysSoInEveryDecision() {
    Scope scope = workspace(uniqueId("ws-ro"));
    EndRunResponse r =
        memory()
            .endRun(
                EndRunRequest.newBuilder()
                    .setScope(scope)
                    .setRunId("ro")
                    .setInput("Please remember that the deploy day is Thursday. Thanks!")
                    .putMetadata("memoryWrite", "false")
                    .build());
    assertFalse(r.getWritten());
    assertTrue(r.getDecisionsCount() >= 1, r::toString);
    for (WriteDecision d : r.getDecisionsList()) {
      assertEquals(WriteOutcome.WRITE_OUTCOME_REJECTED, d.getOutcome());
      assertEquals(
          "not written: the request is read-only (metadata.memoryWrite = \"false\")",
          d.getReason());
    }
    assertEquals(0, listAll(memory(), scope, "", 0, true).size());
  }

  @Test
  void anEndRunWithLangMemWriteOffWritesNothingAndSaysSoInEveryDecision() {
    Path ws = writesOffDir.resolve("workspace");
    Fixtures.writeFlags(ws, true, true, true, false);
    try (SidecarProcess off =
        SidecarProcess.start(ws, "--data", writesOffDir.resolve("data").toString())) {
      EndRunResponse r =
          off.memory()
              .endRun(
                  EndRunRequest.newBuilder()
                      .setScope(workspace("ws-off"))
                      .setRunId("off")
                      .setInput("Please remember that the deploy day is Thursday. Thanks!")
                      .build());
      assertFalse(r.getWritten());
      assertTrue(r.getDecisionsCount() >= 1, r::toString);
      for (WriteDecision d : r.getDecisionsList()) {
        assertEquals(WriteOutcome.WRITE_OUTCOME_REJECTED, d.getOutcome());
        assertEquals("not written: memory.LangMem.write is false", d.getReason());
      }
    }
  }
}
