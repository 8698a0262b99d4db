package dev.memsidecar.core.toolrules;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * One tool call CheckToolCall denied, as the audit of enforcement keeps it.
 *
 * @param ruleId the rule that denied it
 * @param toolName the tool
 * @param matchedObject what in the arguments matched the rule (an address, a name, a path, ...)
 * @param runId the run the call belonged to, or empty
 * @param time when
 */
public record ToolDenial(
    String ruleId, String toolName, String matchedObject, String runId, Instant time) {
  public ToolDenial {
    requireNonNull(ruleId, "ruleId is null");
    requireNonNull(toolName, "toolName is null");
    requireNonNull(matchedObject, "matchedObject is null");
    runId = runId == null ? "" : runId;
    requireNonNull(time, "time is null");
  }
}
