package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.listAll;
import static dev.memsidecar.it.Fixtures.remember;
import static dev.memsidecar.it.Fixtures.uniqueId;
import static dev.memsidecar.it.Fixtures.user;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.proto.v1.EndRunRequest;
import dev.memsidecar.proto.v1.EndRunResponse;
import dev.memsidecar.proto.v1.GetMemoryRequest;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.MemoryStatus;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.WriteDecision;
import dev.memsidecar.proto.v1.WriteOutcome;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What EndRun and Remember keep of a conversation over gRPC on the built jar, default rules
 * extractor: relative dates read on the session's date (never the day EndRun ran), the user named
 * by {@code user_name}, small talk kept out, and a correction superseding the fact it corrects
 * however each is worded.
 */
class TestExtractedFacts extends DefaultSidecarTest {

  private static EndRunResponse endRun(
      Scope scope, String runId, String input, Map<String, String> metadata) {
    return memory()
        .endRun(
            EndRunRequest.newBuilder()
                .setScope(scope)
                .setRunId(runId)
                .setInput(input)
                .putAllMetadata(metadata)
                .build());
  }

  private static List<Memory> stored(EndRunResponse r) {
    return r.getDecisionsList().stream()
        .filter(d -> d.getOutcome() != WriteOutcome.WRITE_OUTCOME_REJECTED)
        .map(WriteDecision::getMemory)
        .toList();
  }

  private static Memory get(Scope scope, Memory m) {
    return memory()
        .getMemory(
            GetMemoryRequest.newBuilder()
                .setScope(scope)
                .setProfile(m.getProfile())
                .setId(m.getId())
                .build())
        .getMemory();
  }

  @Test
  void yesterdayIsReadOnTheSessionDateAndTheFactNamesTheUser() {
    Scope scope = user(uniqueId("ws-dated"), "caroline");
    EndRunResponse r =
        endRun(
            scope,
            "s1-t3",
            "I went to the LGBTQ support group yesterday.",
            Map.of("session_date", "1:56 pm on 8 May, 2023", "user_name", "Caroline"));
    List<Memory> kept = stored(r);
    assertEquals(1, kept.size(), r::toString);
    assertEquals(
        "Caroline went to the LGBTQ support group yesterday (7 May 2023). (said on 8 May 2023)",
        kept.get(0).getContent());
  }

  @Test
  void aTimestampLeadingTheInputDatesTheRunAndIsNeverContent() {
    Scope scope = user(uniqueId("ws-stamped"), "melanie");
    EndRunResponse r =
        endRun(
            scope,
            "s1-t4",
            "[2023-05-08 13:56] I painted a lake sunrise with my kids yesterday.",
            Map.of("user_name", "Melanie"));
    List<Memory> kept = stored(r);
    assertEquals(1, kept.size(), r::toString);
    String content = kept.get(0).getContent();
    assertTrue(content.startsWith("Melanie painted a lake sunrise"), content);
    assertTrue(content.contains("yesterday (7 May 2023)"), content);
    assertFalse(content.contains("2023-05-08"), content);
  }

  @Test
  void smallTalkIsNoFactButWhatFollowsAGreetingIs() {
    Scope scope = user(uniqueId("ws-smalltalk"), "caroline");
    Map<String, String> metadata = Map.of("session_date", "8 May 2023", "user_name", "Caroline");
    int run = 0;
    for (String said :
        List.of("Hey Mel!", "Thanks, Caroline!", "Bye!", "How are you?", "你好", "谢谢", "哈哈")) {
      EndRunResponse r = endRun(scope, "small-" + run++, said, metadata);
      assertEquals(List.of(), stored(r), said + ": " + r);
    }
    assertEquals(List.of(), listAll(memory(), scope, "user", 0, true));
    EndRunResponse news =
        endRun(scope, "news", "Hey Mel! I just got a new job at Google.", metadata);
    List<Memory> kept = stored(news);
    assertEquals(1, kept.size(), news::toString);
    assertEquals(
        "Caroline just got a new job at Google. (said on 8 May 2023)", kept.get(0).getContent());
  }

  @Test
  void aCorrectionWordedDifferentlySupersedesTheFactItCorrects() {
    // Through Remember: the client's own words.
    Scope remembered = user(uniqueId("ws-correct-remember"), "gina");
    Memory tuesday =
        remember(memory(), remembered, "workspace", "Remember: our deploy day is Tuesday.");
    Memory thursday =
        remember(
            memory(),
            remembered,
            "workspace",
            "Correction: the deploy day is now Thursday, not Tuesday.");
    assertSuperseded(remembered, tuesday, thursday);

    // Through EndRun: what the extractor made of each.
    Scope run = user(uniqueId("ws-correct-run"), "gina");
    Memory fact =
        stored(endRun(run, "v1", "Remember: our deploy day is Tuesday.", Map.of())).get(0);
    EndRunResponse correction =
        endRun(run, "v2", "Correction: the deploy day is now Thursday, not Tuesday.", Map.of());
    assertEquals(WriteOutcome.WRITE_OUTCOME_STORED, correction.getDecisions(0).getOutcome());
    assertTrue(
        correction.getDecisions(0).getReason().contains("supersedes " + fact.getId()),
        correction::toString);
    assertSuperseded(run, fact, correction.getDecisions(0).getMemory());
  }

  private static void assertSuperseded(Scope scope, Memory old, Memory successor) {
    Memory oldNow = get(scope, old);
    assertEquals(MemoryStatus.MEMORY_STATUS_SUPERSEDED, oldNow.getStatus(), oldNow::toString);
    assertEquals(successor.getId(), oldNow.getMetadataOrThrow("superseded_by"));
    Memory successorNow = get(scope, successor);
    assertEquals(MemoryStatus.MEMORY_STATUS_ACTIVE, successorNow.getStatus());
    assertEquals(old.getId(), successorNow.getMetadataOrThrow("supersedes"));
    List<Memory> active = listAll(memory(), scope, old.getProfile(), 0, false);
    assertEquals(List.of(successor.getId()), active.stream().map(Memory::getId).toList());
  }
}
