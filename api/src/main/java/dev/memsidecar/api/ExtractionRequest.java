package dev.memsidecar.api;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;

/**
 * What one run said, for an {@link Extractor}.
 *
 * @param runId the run
 * @param input the user's input of the run (for a conversation: its turns, one per line, each
 *     {@code Speaker: text}); the engine hands it on without a leading timestamp ({@code [8 May
 *     2023]}), which dates the run and is no content
 * @param output the agent's output of the run
 * @param toolCalls the tool calls it made
 * @param metadata the request's metadata (e.g. {@code timezone}, {@code session_date}, {@code
 *     user_name}); the engine sets {@code session_date} to the run's reference time when it read it
 *     from the input's leading timestamp
 * @param profiles the profiles the run may write to, with their extraction prompts
 * @param now the run's reference time, which relative dates ("yesterday") are read on: when its
 *     conversation took place ({@code session_date}, or the input's leading timestamp), else when
 *     the run ended
 * @param zone the time zone relative dates ("yesterday") are read in
 */
public record ExtractionRequest(
    String runId,
    String input,
    String output,
    List<ToolCall> toolCalls,
    Map<String, String> metadata,
    List<ProfileGuide> profiles,
    Instant now,
    ZoneId zone) {

  /**
   * A profile a run may write to.
   *
   * @param id the profile id
   * @param owner whose memories it keeps (its scope kind)
   * @param description its description; may be empty
   * @param prompts what it keeps of each kind (its {@code spec.prompts}); a kind without a prompt
   *     is kept too when the map is empty, and not kept otherwise
   */
  public record ProfileGuide(
      String id, MemoryCandidate.Owner owner, String description, Map<MemoryKind, String> prompts) {
    public ProfileGuide {
      requireNonNull(id, "id is null");
      requireNonNull(owner, "owner is null");
      description = description == null ? "" : description;
      prompts = prompts == null ? Map.of() : Map.copyOf(prompts);
    }

    /** Whether this profile keeps memories of {@code kind}. */
    public boolean keeps(MemoryKind kind) {
      return prompts.isEmpty() || prompts.containsKey(kind);
    }
  }

  public ExtractionRequest {
    requireNonNull(runId, "runId is null");
    input = input == null ? "" : input;
    output = output == null ? "" : output;
    toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
    profiles = profiles == null ? List.of() : List.copyOf(profiles);
    requireNonNull(now, "now is null");
    requireNonNull(zone, "zone is null");
  }
}
