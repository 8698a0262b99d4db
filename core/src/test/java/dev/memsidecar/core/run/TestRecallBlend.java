package dev.memsidecar.core.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.core.sessions.MessageRole;
import dev.memsidecar.core.sessions.SessionHit;
import dev.memsidecar.core.sessions.SessionMessage;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How BeginRun's session_evidence section reads. */
class TestRecallBlend {
  private static final Instant MAY_8 = Instant.parse("2023-05-08T13:56:00Z");

  private static SessionMessage said(String id, long seq, String name, String content) {
    return SessionMessage.of(MessageRole.USER, name, content, MAY_8).stored(id, "s1", seq, MAY_8);
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
