package dev.memsidecar.core.skills;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.learning.SkillVersion;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A procedure the miner found worth turning into a skill: a control-plane object of one workspace,
 * never a memory record, never enabled by itself. It is proposed {@link
 * CandidateStatus#REVIEW_REQUIRED} with one pending {@link Approval}; a reviewer approves it
 * (keeping its draft, or their edit of it) or rejects it with a reason; an approved one is
 * published as a skill.
 *
 * @param candidateId names it within its workspace
 * @param workspaceId its workspace
 * @param name the skill name it proposes (an id): the draft's front matter {@code name}
 * @param description the draft's front matter {@code description}
 * @param status where it stands
 * @param draft the SKILL.md draft
 * @param synthesizer what wrote the draft: {@value OfflineSynthesizer#NAME}, the extractor whose
 *     model did ({@link ModelSynthesizer}), or {@value #REVIEWER} once a reviewer replaced it
 * @param evidence what it came from, memories first, then tasks
 * @param approval its approval
 * @param published the last version published from it, or null
 * @param createTime when it was proposed
 * @param updateTime when its evidence, draft, status or approval last changed
 */
public record SkillCandidate(
    String candidateId,
    String workspaceId,
    String name,
    String description,
    CandidateStatus status,
    String draft,
    String synthesizer,
    List<CandidateEvidence> evidence,
    Approval approval,
    SkillVersion published,
    Instant createTime,
    Instant updateTime) {
  /** The synthesizer of a draft a reviewer wrote. */
  public static final String REVIEWER = "reviewer";

  public SkillCandidate {
    requireNonNull(candidateId, "candidateId is null");
    requireNonNull(workspaceId, "workspaceId is null");
    requireNonNull(name, "name is null");
    requireNonNull(description, "description is null");
    requireNonNull(status, "status is null");
    requireNonNull(draft, "draft is null");
    requireNonNull(synthesizer, "synthesizer is null");
    evidence = List.copyOf(evidence);
    requireNonNull(approval, "approval is null");
    requireNonNull(createTime, "createTime is null");
    requireNonNull(updateTime, "updateTime is null");
  }

  /** The distinct sessions its evidence was taught or run in. */
  public int sessionCount() {
    Set<String> sessions = new HashSet<>();
    evidence.forEach(e -> sessions.addAll(e.sessionIds()));
    return sessions.size();
  }

  /** The accepted tasks among its evidence. */
  public int taskCount() {
    return (int) evidence.stream().filter(e -> e.kind() == CandidateEvidence.Kind.TASK).count();
  }

  /** The subjects of its evidence ({@link CandidateEvidence#subject}). */
  public Set<String> subjects() {
    Set<String> out = new HashSet<>();
    evidence.forEach(e -> out.add(e.subject()));
    return out;
  }
}
