package dev.memsidecar.core.skills;

/** A reviewer's decision on a skill candidate. */
public enum ReviewDecision {
  /** Keep the draft (or the reviewer's edit of it) for publishing. */
  APPROVE,
  /** Close the candidate, with a reason; its evidence is never proposed again. */
  REJECT
}
