package dev.memsidecar.core.skills;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * The one approval a skill candidate is created with (the seed's {@code skill_candidate} approval):
 * pending until a reviewer decides.
 *
 * @param approvalId names it
 * @param kind what it approves: {@value #SKILL_CANDIDATE}
 * @param state where it stands
 * @param reason the reviewer's reason (required to reject), or empty
 * @param createTime when the candidate was proposed
 * @param decideTime when a reviewer decided, or null while pending
 */
public record Approval(
    String approvalId,
    String kind,
    State state,
    String reason,
    Instant createTime,
    Instant decideTime) {
  /** The kind of a skill candidate's approval. */
  public static final String SKILL_CANDIDATE = "skill_candidate";

  /** Where an approval stands. */
  public enum State {
    PENDING,
    APPROVED,
    REJECTED
  }

  public Approval {
    requireNonNull(approvalId, "approvalId is null");
    requireNonNull(kind, "kind is null");
    requireNonNull(state, "state is null");
    requireNonNull(reason, "reason is null");
    requireNonNull(createTime, "createTime is null");
  }

  /** A pending approval of a candidate. */
  public static Approval pending(String approvalId, Instant createTime) {
    return new Approval(approvalId, SKILL_CANDIDATE, State.PENDING, "", createTime, null);
  }

  /** This approval, decided. */
  public Approval decided(State to, String why, Instant at) {
    return new Approval(approvalId, kind, to, why, createTime, at);
  }
}
