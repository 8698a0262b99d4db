package dev.memsidecar.core;

import dev.memsidecar.api.GateScores;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.Validity;
import java.util.List;
import java.util.Map;

/**
 * An explicit "remember this" as the client sent it (fields not given are null or empty).
 *
 * @param profile empty means "workspace"
 * @param kind null means semantic
 * @param validity null means long-term
 * @param requestId makes the call idempotent within its scope and profile; may be empty
 * @param context text for indexing and ranking only, never returned as content
 */
public record RememberInput(
    Scope scope,
    String profile,
    String content,
    MemoryKind kind,
    List<String> tags,
    Map<String, String> metadata,
    GateScores scores,
    Validity validity,
    String requestId,
    String context) {

  public RememberInput {
    profile = profile == null ? "" : profile;
    content = content == null ? "" : content;
    tags = tags == null ? List.of() : List.copyOf(tags);
    metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
    scores = scores == null ? GateScores.NONE : scores;
    requestId = requestId == null ? "" : requestId;
    context = context == null ? "" : context;
  }
}
