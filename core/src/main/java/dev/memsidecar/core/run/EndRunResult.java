package dev.memsidecar.core.run;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.WriteDecision;
import dev.memsidecar.core.toolrules.ToolRule;
import java.time.Instant;
import java.util.List;

/**
 * What EndRun decided for one run; a retry of the same run gets this again.
 *
 * @param runId the run
 * @param endTime when it was decided
 * @param written whether anything could be written (false: LangMem.write off or a read-only
 *     request; every decision is then REJECTED and says why)
 * @param decisions one per candidate, in the order the extractor found them
 * @param capturedRules the tool rules the run left (prohibitions, repeated failures)
 */
public record EndRunResult(
    String runId,
    Instant endTime,
    boolean written,
    List<WriteDecision> decisions,
    List<ToolRule> capturedRules) {
  public EndRunResult {
    requireNonNull(runId, "runId is null");
    requireNonNull(endTime, "endTime is null");
    decisions = List.copyOf(decisions);
    capturedRules = capturedRules == null ? List.of() : List.copyOf(capturedRules);
  }
}
