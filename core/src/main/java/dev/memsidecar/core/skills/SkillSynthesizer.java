package dev.memsidecar.core.skills;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * Turns a skill candidate's evidence into a draft SKILL.md (the seeds' "synthesis"): front matter
 * with {@code name} and {@code description}, then the steps and the evidence they came from. The
 * draft waits for a reviewer; nothing a synthesizer writes is ever used unreviewed. Thread-safe.
 */
public interface SkillSynthesizer {
  /**
   * A draft for a candidate.
   *
   * @param workspaceId the candidate's workspace
   * @param name the skill name (an id), for the front matter
   * @param evidence the candidate's evidence, memories first, then tasks; not empty
   */
  Draft draft(String workspaceId, String name, List<CandidateEvidence> evidence);

  /**
   * A draft.
   *
   * @param description the front matter's description
   * @param markdown the whole SKILL.md
   * @param synthesizer what wrote it: {@value OfflineSynthesizer#NAME}, or the name of the
   *     extractor whose model did
   */
  record Draft(String description, String markdown, String synthesizer) {
    public Draft {
      requireNonNull(description, "description is null");
      requireNonNull(markdown, "markdown is null");
      requireNonNull(synthesizer, "synthesizer is null");
    }
  }
}
