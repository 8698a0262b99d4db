package dev.memsidecar.core.toolrules;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.Map;

/**
 * What happened with one tool in a workspace (its {@code tool_effectiveness/tool/<name>}
 * namespace): calls reported by EndRun, failures by category, and the calls CheckToolCall denied
 * (counted apart from failures).
 *
 * @param lastFailureTime null when it never failed
 */
public record ToolStats(
    String toolName,
    long calls,
    long failures,
    Map<String, Long> failuresByCategory,
    Instant lastFailureTime,
    String lastErrorMessage,
    long denials) {
  public ToolStats {
    requireNonNull(toolName, "toolName is null");
    failuresByCategory = failuresByCategory == null ? Map.of() : Map.copyOf(failuresByCategory);
    lastErrorMessage = lastErrorMessage == null ? "" : lastErrorMessage;
  }

  /** A tool nothing is known of yet. */
  public static ToolStats none(String toolName) {
    return new ToolStats(toolName, 0, 0, Map.of(), null, "", 0);
  }
}
