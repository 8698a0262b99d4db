package dev.memsidecar.core.skills;

/** Where a skill candidate stands. */
public enum CandidateStatus {
  /** Proposed by the miner; its approval is pending. Only a reviewer moves it on. */
  REVIEW_REQUIRED,
  /** Approved: its draft waits to be published. */
  APPROVED,
  /** Rejected with a reason: its evidence never yields a candidate again. */
  REJECTED,
  /** Published at least once; it may be approved with a new draft and published again. */
  PUBLISHED
}
