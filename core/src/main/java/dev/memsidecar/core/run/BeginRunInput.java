package dev.memsidecar.core.run;

import dev.memsidecar.core.Scope;
import java.util.List;
import java.util.Map;

/**
 * A BeginRun call as the client sent it.
 *
 * @param runId the client's run id, or empty to have one made
 * @param input the user's message for this run: the recall query
 * @param tools the tools the agent may call in this run (their rules are pinned first)
 * @param topK recalled memories; 0 means the default
 * @param metadata request metadata: {@code timezone} (an IANA name), {@code memoryWrite}
 */
public record BeginRunInput(
    Scope scope,
    String runId,
    String input,
    List<String> tools,
    int topK,
    Map<String, String> metadata) {
  public BeginRunInput {
    runId = runId == null ? "" : runId;
    input = input == null ? "" : input;
    tools = tools == null ? List.of() : List.copyOf(tools);
    metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
  }
}
