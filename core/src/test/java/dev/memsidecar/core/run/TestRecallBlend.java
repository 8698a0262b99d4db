package dev.memsidecar.core.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.core.MemoryHit;
import dev.memsidecar.core.StoredMemory;
import dev.memsidecar.core.sessions.MessageRole;
import dev.memsidecar.core.sessions.SessionHit;
import dev.memsidecar.core.sessions.SessionMessage;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How BeginRun shares its slots between facts and evidence, and how the evidence reads. */
class TestRecallBlend {
  private static final Instant MAY_8 = Instant.parse("2023-05-08T13:56:00Z");

  private static SessionMessage said(String id, long seq, String name, String content) {
    return SessionMessage.of(MessageRole.USER, name, content, MAY_8).stored(id, "s1", seq, MAY_8);
  }

  private static MemoryHit fact(String runId, String content, float score) {
    MemoryRecord r =
        MemoryRecord.builder()
            .id("f-" + runId)
            .namespace(Namespace.of("acme:user:alice:user"))
            .profile("user")
            .kind(MemoryKind.EPISODIC)
            .content(content)
            .sourceRefs(List.of("run:" + runId))
            .times(MAY_8)
            .build();
    return new MemoryHit(new StoredMemory(r, "langmem-sqlite"), score);
  }

  private static SessionHit turn(String runId, String content, float score) {
    SessionMessage m =
        new SessionMessage(
            "m-" + runId,
            "s1",
            1,
            MessageRole.USER,
            "Melanie",
            content,
            null,
            null,
            MAY_8,
            true,
            0,
            0,
            "",
            runId,
            Map.of());
    return new SessionHit(m, score, "", null, null);
  }

  @Test
  void aMessageTakesTheSlotOfAFactScoredWithinTheLeanAboveIt() {
    MemoryHit fact = fact("r1", "Melanie plays the clarinet.", 0.62f);
    SessionHit message = turn("r2", "I'm a fan of classical music like Bach and Mozart.", 0.60f);
    RecallBlend.Blend blend = RecallBlend.merge(List.of(fact), List.of(message), 1, List.of());
    assertEquals(List.of(message), blend.evidence());
    assertEquals(List.of(), blend.recalled());

    MemoryHit clearlyBetter = fact("r1", "Melanie plays the clarinet.", 0.60f + 0.05f);
    blend = RecallBlend.merge(List.of(clearlyBetter), List.of(message), 1, List.of());
    assertEquals(List.of(clearlyBetter), blend.recalled());
    assertEquals(List.of(), blend.evidence());
  }

  @Test
  void aFactAndTheTurnItWasExtractedFromShareOneSlot() {
    MemoryHit fact =
        fact(
            "r1",
            "Melanie plays clarinet! Started when Melanie was young and it has been great.",
            0.50f);
    SessionHit source =
        turn("r1", "Yeah, I play clarinet! Started when I was young and it's been great.", 0.70f);
    SessionHit other = turn("r2", "We went camping in the forest last weekend.", 0.40f);
    RecallBlend.Blend blend =
        RecallBlend.merge(List.of(fact), List.of(source, other), 2, List.of());
    assertEquals(List.of(fact), blend.recalled());
    assertEquals(List.of(other), blend.evidence());
    assertEquals(source, blend.quotes().get(0));
  }

  @Test
  void aLineShowsWhatTheMessageAnswersAndTheAnswerToItsQuestion() {
    SessionMessage asked = said("m1", 1, "Caroline", "How was yesterday?");
    SessionMessage reply = said("m2", 2, "Melanie", "Great! Any plans for the weekend?");
    SessionMessage answer = said("m3", 3, "Caroline", "A pottery class.");
    String body =
        RecallBlend.evidenceBody(
            List.of(new SessionHit(reply, 0.5f, "", asked, answer)), ZoneOffset.UTC);
    assertEquals(
        "- [8 May 2023, 13:56] Melanie: Great! Any plans for the weekend? (in reply to Caroline:"
            + " How was yesterday (7 May 2023)?) (answered by Caroline: A pottery class.)",
        body);
  }

  @Test
  void aMessageWithALineOfItsOwnIsNotRepeatedAround() {
    SessionMessage asked = said("m1", 1, "Caroline", "Any plans for the weekend?");
    SessionMessage reply = said("m2", 2, "Melanie", "A pottery class.");
    String body =
        RecallBlend.evidenceBody(
            List.of(
                new SessionHit(reply, 0.5f, "", asked, null),
                new SessionHit(asked, 0.4f, "", null, reply)),
            ZoneOffset.UTC);
    assertEquals(2, body.lines().count(), body);
    assertTrue(!body.contains("in reply to") && !body.contains("answered by"), body);
  }

  @Test
  void whatIsShownAroundIsCutToItsMostTellingEnd() {
    String longQuestion = "word ".repeat(100) + "so what did you buy?";
    String longAnswer = "A kayak, " + "and more ".repeat(100);
    String body =
        RecallBlend.evidenceBody(
            List.of(
                new SessionHit(
                    said("m2", 2, "Melanie", "Guess what?"),
                    0.5f,
                    "",
                    said("m1", 1, "Caroline", longQuestion),
                    said("m3", 3, "Caroline", longAnswer))),
            ZoneOffset.UTC);
    assertTrue(body.contains("(in reply to Caroline: …word "), body);
    assertTrue(body.contains("so what did you buy?)"), body);
    assertTrue(body.contains("(answered by Caroline: A kayak, and more"), body);
    assertTrue(body.endsWith("…)"), body);
    assertTrue(body.length() < 2 * RecallBlend.MAX_CONTEXT_CHARS + 150, body);
  }
}
