package dev.memsidecar.core.run;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.Scope;
import dev.memsidecar.core.WriteDecision;
import java.time.Instant;

/**
 * One write decision as the audit keeps it (PromptX: every decision, stored, merged or rejected,
 * with its scores and reason).
 *
 * @param sequence its place in the audit, increasing; assigned by the store
 * @param runId the run that made it (empty for Remember)
 * @param time when it was made
 * @param scope the caller's scope
 * @param decision the decision (its memory says profile, namespace and content)
 */
public record DecisionEntry(
    long sequence, String runId, Instant time, Scope scope, WriteDecision decision) {
  public DecisionEntry {
    requireNonNull(runId, "runId is null");
    requireNonNull(time, "time is null");
    requireNonNull(scope, "scope is null");
    requireNonNull(decision, "decision is null");
  }
}
