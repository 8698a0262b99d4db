package dev.memsidecar.api;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * A skill candidate to write a SKILL.md for, for {@link Extractor#draftSkill}: the procedure the
 * engine found in memories taught in several sessions and in tasks the user accepted.
 *
 * @param name the skill's name, an id; the draft's front matter must keep it
 * @param draft the engine's own deterministic draft (front matter {@code name} and {@code
 *     description}, then steps, tools and evidence), to improve on
 * @param evidence what the candidate came from, one piece per entry: a memory's text, or what an
 *     accepted task's final run was asked and answered
 */
public record SkillDraftRequest(String name, String draft, List<String> evidence) {
  public SkillDraftRequest {
    requireNonNull(name, "name is null");
    requireNonNull(draft, "draft is null");
    evidence = List.copyOf(evidence);
  }
}
