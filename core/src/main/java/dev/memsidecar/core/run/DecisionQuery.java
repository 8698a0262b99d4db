package dev.memsidecar.core.run;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.Scope;
import dev.memsidecar.core.WriteDecision;

/**
 * A page of the audit.
 *
 * @param scope whose decisions: those of its workspace, narrowed to each other id it gives (a scope
 *     with a user id sees that user's decisions only)
 * @param runId only this run's; empty for all
 * @param outcome only this outcome; null for all
 * @param pageSize 1..1000
 * @param afterSequence the last sequence of the previous page, or 0 for the first page
 */
public record DecisionQuery(
    Scope scope, String runId, WriteDecision.Outcome outcome, int pageSize, long afterSequence) {
  public DecisionQuery {
    requireNonNull(scope, "scope is null");
    runId = runId == null ? "" : runId;
    if (pageSize < 1 || pageSize > 1000) {
      throw new IllegalArgumentException("pageSize must be 1..1000: " + pageSize);
    }
  }
}
