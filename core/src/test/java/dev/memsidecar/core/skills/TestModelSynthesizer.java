package dev.memsidecar.core.skills;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.SkillDraftRequest;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.events.EventBus;
import dev.memsidecar.core.events.RuntimeEvent;
import dev.memsidecar.core.events.Watch;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * A model's skill draft is kept when its front matter is sound and keeps the name; otherwise the
 * offline draft stays, quietly when there is no model, loudly when the model failed.
 */
class TestModelSynthesizer {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-03-02T09:30:00Z"), ZoneOffset.UTC);
  private static final List<CandidateEvidence> EVIDENCE =
      List.of(
          CandidateEvidence.memory(
              "workspace",
              "m1",
              List.of("r1"),
              List.of("alice/s1"),
              "To release billing, always run the tests first, then tag the release.",
              CLOCK.instant()));

  private final EventBus events = new EventBus();

  private SkillSynthesizer.Draft draft(Function<SkillDraftRequest, Optional<String>> model) {
    return new ModelSynthesizer("openai", model, events, CLOCK)
        .draft("acme", "release-billing", EVIDENCE);
  }

  private Watch watch() {
    return events.watch(Scope.workspace("acme"), Set.of("skill.synthesis.failed"), () -> {});
  }

  @Test
  void aSoundDraftOfTheModelIsKept() {
    AtomicReference<SkillDraftRequest> asked = new AtomicReference<>();
    String written =
        "---\nname: release-billing\ndescription: \"Release billing safely.\"\n---\n\n# Steps\n";
    SkillSynthesizer.Draft d =
        draft(
            r -> {
              asked.set(r);
              return Optional.of(written);
            });
    assertEquals(written, d.markdown());
    assertEquals("Release billing safely.", d.description());
    assertEquals("openai", d.synthesizer());
    assertEquals("release-billing", asked.get().name());
    assertTrue(asked.get().draft().startsWith("---\nname: release-billing\n"), asked::toString);
    assertEquals(List.of(EVIDENCE.get(0).text()), asked.get().evidence());
  }

  @Test
  void withoutAModelTheOfflineDraftStaysQuietly() {
    try (Watch w = watch()) {
      SkillSynthesizer.Draft d = draft(r -> Optional.empty());
      assertEquals(OfflineSynthesizer.NAME, d.synthesizer());
      assertEquals(
          new OfflineSynthesizer().draft("acme", "release-billing", EVIDENCE).markdown(),
          d.markdown());
      assertNull(w.poll());
    }
  }

  @Test
  void aFailingOrUnsoundModelLeavesTheOfflineDraftAndSaysWhy() {
    try (Watch w = watch()) {
      SkillSynthesizer.Draft down =
          draft(
              r -> {
                throw MemoryException.unavailable("openai extractor: cannot connect", null);
              });
      assertEquals(OfflineSynthesizer.NAME, down.synthesizer());
      RuntimeEvent e = w.poll();
      assertEquals("skill.synthesis.failed", e.type());
      assertEquals("offline", e.attributes().get("fallback"));
      assertTrue(e.attributes().get("reason").contains("cannot connect"), e::toString);

      assertEquals(
          OfflineSynthesizer.NAME,
          draft(r -> Optional.of("---\nname: other\ndescription: x\n---\n")).synthesizer());
      assertTrue(w.poll().attributes().get("reason").contains("renamed"));
      assertEquals(
          OfflineSynthesizer.NAME, draft(r -> Optional.of("# no front matter")).synthesizer());
      assertTrue(w.poll().attributes().get("reason").contains("front matter"));
    }
  }
}
