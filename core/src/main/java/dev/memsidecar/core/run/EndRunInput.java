package dev.memsidecar.core.run;

import dev.memsidecar.api.ToolCall;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.learning.RunReceipt;
import java.util.List;
import java.util.Map;

/**
 * An EndRun call as the client sent it.
 *
 * @param runId the run, as BeginRun named it; empty to have one made (no retry can then find it)
 * @param input the user's input of the run
 * @param output the agent's output of the run
 * @param toolCalls the tool calls it made
 * @param metadata request metadata: {@code timezone}, {@code memoryWrite}, the run's labels ({@code
 *     task_id}, {@code skills}: {@link dev.memsidecar.core.learning.RunLabels}), and what the
 *     extractor reads (e.g. {@code session_date})
 * @param usage the run's LLM tokens, kept in its receipt; null when the client gave none
 */
public record EndRunInput(
    Scope scope,
    String runId,
    String input,
    String output,
    List<ToolCall> toolCalls,
    Map<String, String> metadata,
    RunReceipt.Usage usage) {
  public EndRunInput {
    runId = runId == null ? "" : runId;
    input = input == null ? "" : input;
    output = output == null ? "" : output;
    toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
  }

  /** A call that reported no token usage. */
  public EndRunInput(
      Scope scope,
      String runId,
      String input,
      String output,
      List<ToolCall> toolCalls,
      Map<String, String> metadata) {
    this(scope, runId, input, output, toolCalls, metadata, null);
  }
}
