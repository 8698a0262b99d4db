package dev.memsidecar.core;

import dev.memsidecar.api.GateScores;

/**
 * What became of one candidate memory.
 *
 * @param outcome stored, merged or rejected
 * @param memory the stored or merged-into memory; the candidate when rejected
 * @param gateScore the weighted gate score 0..10
 * @param scores the six dimensions it was scored on
 * @param reason why, in words
 * @param rejectedBy the step of the write pipeline that rejected it; {@link Rejection#NONE} unless
 *     rejected (and for rejections recorded before this was kept)
 */
public record WriteDecision(
    Outcome outcome,
    StoredMemory memory,
    float gateScore,
    GateScores scores,
    String reason,
    Rejection rejectedBy) {

  public WriteDecision {
    rejectedBy = rejectedBy == null ? Rejection.NONE : rejectedBy;
  }

  /** A decision that is not a rejection. */
  public WriteDecision(
      Outcome outcome, StoredMemory memory, float gateScore, GateScores scores, String reason) {
    this(outcome, memory, gateScore, scores, reason, Rejection.NONE);
  }

  /** The fate of a candidate. */
  public enum Outcome {
    STORED,
    MERGED,
    REJECTED
  }

  /** Which step of the write pipeline rejected a candidate. */
  public enum Rejection {
    /** Not rejected. */
    NONE,
    /** Writes are off for the target: a {@code write} flag or a read-only request. */
    DISABLED,
    /** The low-value filter: a greeting, an echo of the memory machinery, a run instruction. */
    LOW_VALUE,
    /** No profile keeps such a memory for this scope. */
    NO_PROFILE,
    /** The write gate: scored below the threshold. */
    GATE
  }
}
