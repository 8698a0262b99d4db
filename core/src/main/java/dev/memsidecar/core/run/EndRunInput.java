package dev.memsidecar.core.run;

import dev.memsidecar.api.ToolCall;
import dev.memsidecar.core.Scope;
import java.util.List;
import java.util.Map;

/**
 * An EndRun call as the client sent it.
 *
 * @param runId the run, as BeginRun named it; empty to have one made (no retry can then find it)
 * @param input the user's input of the run
 * @param output the agent's output of the run
 * @param toolCalls the tool calls it made
 * @param metadata request metadata: {@code timezone}, {@code memoryWrite}, and what the extractor
 *     reads (e.g. {@code session_date})
 */
public record EndRunInput(
    Scope scope,
    String runId,
    String input,
    String output,
    List<ToolCall> toolCalls,
    Map<String, String> metadata) {
  public EndRunInput {
    runId = runId == null ? "" : runId;
    input = input == null ? "" : input;
    output = output == null ? "" : output;
    toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
  }
}
