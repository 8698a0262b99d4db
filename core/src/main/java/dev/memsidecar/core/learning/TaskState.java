package dev.memsidecar.core.learning;

/** Where a task stands. */
public enum TaskState {
  /** Runs named it; no verdict yet. */
  OPEN,
  /** The last verdict was {@link Acceptance#ACCEPT}. */
  ACCEPTED,
  /** The last verdict was {@link Acceptance#REVISE}: a revision was asked for. */
  REVISE,
  /** The last verdict was {@link Acceptance#ABANDON}. */
  ABANDONED
}
