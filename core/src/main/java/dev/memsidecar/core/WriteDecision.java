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
 */
public record WriteDecision(
    Outcome outcome, StoredMemory memory, float gateScore, GateScores scores, String reason) {

  /** The fate of a candidate. */
  public enum Outcome {
    STORED,
    MERGED,
    REJECTED
  }
}
