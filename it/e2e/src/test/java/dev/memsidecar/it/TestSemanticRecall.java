package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.remember;
import static dev.memsidecar.it.Fixtures.search;
import static dev.memsidecar.it.Fixtures.uniqueId;
import static dev.memsidecar.it.Fixtures.workspace;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memsidecar.proto.v1.GetStatusRequest;
import dev.memsidecar.proto.v1.GetStatusResponse;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.Scope;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default embedder is a semantic model: a question finds the memory it is about when they share
 * meaning but no telling word, on every record provider. Switching embedders re-embeds what is
 * stored: memories written under {@code hash} are found by meaning after a restart on the default
 * model.
 */
class TestSemanticRecall {
  /** Memory, then a question that shares no content word with it. */
  private static final Map<String, String> PAIRS = new LinkedHashMap<>();

  static {
    PAIRS.put("The user can't stand cilantro.", "What food does the user dislike?");
    PAIRS.put("The user drives a red Tesla Model 3.", "What car does the user own?");
    PAIRS.put("The user's cat is called Whiskers.", "What is the name of the user's pet?");
    PAIRS.put("The user feels anxious whenever flying.", "Is the user afraid of air travel?");
    PAIRS.put(
        "The user is saving money to buy a house next year.",
        "What big purchase is the user planning?");
  }

  private static final List<String> PROFILES = List.of("workspace", "lucene", "notes");

  @TempDir Path workspaceDir;

  @Test
  void theDefaultModelFindsMemoriesByMeaningOnEveryProvider() {
    profiles();
    try (SidecarProcess sidecar = SidecarProcess.start(workspaceDir)) {
      GetStatusResponse status = sidecar.admin().getStatus(GetStatusRequest.getDefaultInstance());
      assertEquals("bge-small-en-q", status.getEmbedder());
      assertEquals(384, status.getEmbedderDimensions(), "bge-small-en-q's vectors");
      Scope scope = workspace(uniqueId("ws"));
      for (String profile : PROFILES) {
        assertEachQuestionFindsItsMemory(
            sidecar, scope, profile, rememberAll(sidecar, scope, profile));
      }
    }
  }

  @Test
  void switchingFromHashToTheModelReEmbedsWhatIsStored() {
    profiles();
    Fixtures.writeServerConfig(workspaceDir, "memory:\n  embedder: hash\n");
    Scope scope = workspace(uniqueId("ws"));
    Map<String, Map<String, String>> stored = new LinkedHashMap<>();
    try (SidecarProcess sidecar = SidecarProcess.start(workspaceDir)) {
      for (String profile : PROFILES) {
        stored.put(profile, rememberAll(sidecar, scope, profile));
      }
    }
    Fixtures.writeServerConfig(workspaceDir, "memory:\n  embedder: bge-small-en\n");
    try (SidecarProcess sidecar = SidecarProcess.start(workspaceDir)) {
      for (String profile : PROFILES) {
        assertEachQuestionFindsItsMemory(sidecar, scope, profile, stored.get(profile));
      }
    }
  }

  private void profiles() {
    Fixtures.writeProfile(workspaceDir, "lucene", "workspace", true, "lucene-hnsw");
    Fixtures.writeProfile(workspaceDir, "notes", "workspace", true, "deepagents-files");
  }

  /** Remembers every memory of {@link #PAIRS}; returns memory id by question. */
  private static Map<String, String> rememberAll(
      SidecarProcess sidecar, Scope scope, String profile) {
    Map<String, String> idByQuestion = new LinkedHashMap<>();
    PAIRS.forEach(
        (memory, question) -> {
          Memory m = remember(sidecar.memory(), scope, profile, memory);
          idByQuestion.put(question, m.getId());
        });
    return idByQuestion;
  }

  private static void assertEachQuestionFindsItsMemory(
      SidecarProcess sidecar, Scope scope, String profile, Map<String, String> idByQuestion) {
    idByQuestion.forEach(
        (question, id) ->
            assertEquals(
                id,
                search(sidecar.memory(), scope, question, profile).get(0).getId(),
                () -> profile + ": '" + question + "' should find its memory first"));
  }
}
