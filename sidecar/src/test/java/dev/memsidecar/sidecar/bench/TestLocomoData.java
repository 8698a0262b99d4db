package dev.memsidecar.sidecar.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What bench locomo remembers and asks, and how it scores a question. */
class TestLocomoData {
  private static final String CONVERSATION =
      """
      [{"sample_id": "conv-1",
        "conversation": {
          "speaker_a": "Ann", "speaker_b": "Bo",
          "session_1_date_time": "1:56 pm on 8 May, 2023",
          "session_1": [
            {"speaker": "Ann", "dia_id": "D1:1", "text": "I ran a race\\non Sunday."},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "Nice! Look at this.",
             "blip_caption": "a photo of a dog"},
            {"speaker": "Ann", "dia_id": "D1:3", "text": "Cute dog."}],
          "session_2_date_time": "9 June, 2023",
          "session_2": [{"speaker": "Bo", "dia_id": "D2:1", "text": "I adopted him."}]},
        "qa": [
          {"question": "When did Ann run?", "evidence": ["D1:1"], "category": 2},
          {"question": "What did Bo adopt?", "evidence": ["D1:2; D2:1", "D9:9"], "category": 1},
          {"question": "What is Ann's cat?", "evidence": [], "category": 5}]}]
      """;

  @Test
  void aTurnIsSpeakerTextCaptionAndSessionDateWithItsNeighboursAsContext() {
    LocomoData data = LocomoData.parse(CONVERSATION);
    LocomoData.Conversation conv = data.conversations().get(0);
    assertEquals("conv-1", conv.workspaceId());
    List<LocomoData.Turn> turns = conv.turns();
    assertEquals(4, turns.size());
    assertEquals("D1:1", turns.get(0).diaId());
    assertEquals(
        "Ann: I ran a race on Sunday. (session date: 1:56 pm on 8 May, 2023)",
        turns.get(0).content());
    assertEquals("Bo: Nice! Look at this.", turns.get(0).context());
    assertEquals(
        "Bo: Nice! Look at this. [image: a photo of a dog] (session date: 1:56 pm on 8 May, 2023)",
        turns.get(1).content());
    assertEquals("Ann: I ran a race on Sunday.\nAnn: Cute dog.", turns.get(1).context());
    // The next turn is in another session: not context.
    assertEquals("Bo: Nice! Look at this.", turns.get(2).context());
    assertEquals("", turns.get(3).context());
  }

  @Test
  void evidenceKeepsTheTurnIdsOfTheConversationAlsoFromMalformedStrings() {
    List<LocomoData.Question> questions =
        LocomoData.parse(CONVERSATION).conversations().get(0).questions();
    assertEquals(Set.of("D1:1"), questions.get(0).evidence());
    assertEquals(Set.of("D1:2", "D2:1"), questions.get(1).evidence());
    assertEquals(1, questions.get(1).category());
    assertTrue(questions.get(2).evidence().isEmpty());
  }

  @Test
  void aQuestionScoresTheShareOfItsEvidenceInTheTopK() {
    Set<String> evidence = Set.of("D1:2", "D2:1");
    List<String> ranked = List.of("D1:1", "D1:2", "D1:3", "D2:1");
    assertEquals(0.0, EvidenceRecall.score(evidence, ranked, 1));
    assertEquals(0.5, EvidenceRecall.score(evidence, ranked, 2));
    assertEquals(1.0, EvidenceRecall.score(evidence, ranked, 4));
    assertEquals(1.0, EvidenceRecall.score(evidence, ranked, 25));
  }

  @Test
  void theTableCountsQuestionsWithoutEvidenceApart() {
    EvidenceRecall recall = new EvidenceRecall(new int[] {1, 10});
    recall.add(1, Set.of("a", "b"), List.of("a", "x", "b"), 1_000_000);
    recall.add(4, Set.of("c"), List.of("x", "c"), 2_000_000);
    recall.skip(3);
    String table = recall.markdown();
    assertTrue(table.contains("| 1 multi-hop | 1 | 0 | 0.500 | 1.000 |"), table);
    assertTrue(table.contains("| 3 open-domain | 0 | 1 | - | - |"), table);
    assertTrue(table.contains("| **all** | 2 | 1 | **0.250** | **1.000** |"), table);
  }
}
