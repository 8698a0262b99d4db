package dev.memsidecar.core.skills;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.SkillDraftRequest;
import dev.memsidecar.core.Limits;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.events.EventBus;
import dev.memsidecar.core.events.RuntimeEvent;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Drafts with the configured extractor's model ({@code openai}), over the {@link
 * OfflineSynthesizer}'s draft: the model is given that draft and the evidence and asked for a
 * better SKILL.md. Its answer is kept only when its front matter is sound and keeps the candidate's
 * name ({@link SkillMarkdown}); an extractor without a model (the {@code rules} one) gives nothing,
 * and the offline draft stays, quietly. A model that fails (an endpoint down, an unusable answer)
 * leaves the offline draft too, loudly: it emits {@code skill.synthesis.failed} with the reason, as
 * extraction's fallback emits {@code memory.extraction.failed}. Thread-safe when the model is.
 */
public final class ModelSynthesizer implements SkillSynthesizer {
  private static final System.Logger LOG = System.getLogger(ModelSynthesizer.class.getName());

  private final String extractor;
  private final Function<SkillDraftRequest, Optional<String>> model;
  private final OfflineSynthesizer offline = new OfflineSynthesizer();
  private final EventBus events;
  private final Clock clock;

  /**
   * @param extractor the extractor's name, what candidates say wrote a draft it gave
   * @param model the extractor's {@code draftSkill}
   */
  public ModelSynthesizer(
      String extractor,
      Function<SkillDraftRequest, Optional<String>> model,
      EventBus events,
      Clock clock) {
    this.extractor = requireNonNull(extractor, "extractor is null");
    this.model = requireNonNull(model, "model is null");
    this.events = requireNonNull(events, "events is null");
    this.clock = requireNonNull(clock, "clock is null");
  }

  @Override
  public Draft draft(String workspaceId, String name, List<CandidateEvidence> evidence) {
    Draft plain = offline.draft(workspaceId, name, evidence);
    Optional<String> written;
    try {
      written =
          model.apply(
              new SkillDraftRequest(
                  name, plain.markdown(), evidence.stream().map(CandidateEvidence::text).toList()));
    } catch (RuntimeException e) {
      failed(workspaceId, name, e instanceof MemoryException m ? m.getMessage() : e.toString());
      return plain;
    }
    if (written.isEmpty()) {
      return plain;
    }
    String markdown = written.get();
    try {
      Limits.checkBytes("draft", markdown, SkillMarkdown.MAX_BYTES);
      SkillMarkdown parsed = SkillMarkdown.parse("the model's draft", markdown);
      if (!parsed.name().equals(name)) {
        failed(workspaceId, name, "the model's draft renamed the skill to " + parsed.name());
        return plain;
      }
      return new Draft(parsed.description(), markdown, extractor);
    } catch (MemoryException e) {
      failed(workspaceId, name, e.getMessage());
      return plain;
    }
  }

  private void failed(String workspaceId, String name, String reason) {
    LOG.log(
        System.Logger.Level.WARNING,
        "skill draft of {0} by extractor {1} failed, the offline draft stays: {2}",
        name,
        extractor,
        reason);
    Map<String, String> attributes = new LinkedHashMap<>();
    attributes.put("name", name);
    attributes.put("synthesizer", extractor);
    attributes.put("fallback", OfflineSynthesizer.NAME);
    attributes.put("reason", Limits.cutUtf8(reason == null ? "" : reason, 1024));
    events.publish(
        new RuntimeEvent(
            "skill.synthesis.failed",
            clock.instant(),
            "",
            "",
            Scope.workspace(workspaceId),
            attributes));
  }
}
