package dev.memsidecar.api;

import static java.util.Objects.requireNonNull;

/**
 * One tool call an agent made during a run, as EndRun reports it.
 *
 * @param toolName the tool, e.g. {@code send_email}
 * @param ok whether it succeeded
 * @param errorCategory e.g. {@code timeout}, {@code permission}, {@code invalid_args}; empty when
 *     ok
 * @param errorMessage the error's text; empty when ok
 */
public record ToolCall(String toolName, boolean ok, String errorCategory, String errorMessage) {
  public ToolCall {
    requireNonNull(toolName, "toolName is null");
    errorCategory = errorCategory == null ? "" : errorCategory;
    errorMessage = errorMessage == null ? "" : errorMessage;
  }
}
