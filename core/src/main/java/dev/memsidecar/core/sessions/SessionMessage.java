package dev.memsidecar.core.sessions;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.Map;

/**
 * One message of a session, verbatim. As given to {@link SessionService#append}, {@code sequence}
 * is 0, {@code id} may be empty (one is assigned) and {@code time} may be null (the server's time);
 * as stored, all three are set.
 *
 * @param name the speaker's display name ("Caroline"), or empty
 * @param toolCall the call the model made, or null
 * @param toolResult what a call returned (the output is {@code content}), or null
 * @param visible false for internal events: kept for audit and learning, never in history or search
 *     results
 * @param snapshotId the BeginRun snapshot the model saw, or empty
 */
public record SessionMessage(
    String id,
    String sessionId,
    long sequence,
    MessageRole role,
    String name,
    String content,
    ToolInvocation toolCall,
    ToolOutcome toolResult,
    Instant time,
    boolean visible,
    long inputTokens,
    long outputTokens,
    String snapshotId,
    String runId,
    Map<String, String> metadata) {

  public SessionMessage {
    requireNonNull(id, "id is null");
    requireNonNull(sessionId, "sessionId is null");
    requireNonNull(role, "role is null");
    requireNonNull(name, "name is null");
    requireNonNull(content, "content is null");
    requireNonNull(snapshotId, "snapshotId is null");
    requireNonNull(runId, "runId is null");
    metadata = Map.copyOf(requireNonNull(metadata, "metadata is null"));
  }

  /** A new visible message with only a role, a speaker, content and a time (null: now). */
  public static SessionMessage of(MessageRole role, String name, String content, Instant time) {
    return new SessionMessage(
        "", "", 0, role, name, content, null, null, time, true, 0, 0, "", "", Map.of());
  }

  /** This message with id, session, sequence and time as stored. */
  public SessionMessage stored(String id, String sessionId, long sequence, Instant time) {
    return new SessionMessage(
        id,
        sessionId,
        sequence,
        role,
        name,
        content,
        toolCall,
        toolResult,
        time,
        visible,
        inputTokens,
        outputTokens,
        snapshotId,
        runId,
        metadata);
  }

  /** A call the model made: the tool's name, its arguments as written (usually JSON), its id. */
  public record ToolInvocation(String name, String arguments, String callId) {
    public ToolInvocation {
      requireNonNull(name, "name is null");
      requireNonNull(arguments, "arguments is null");
      requireNonNull(callId, "callId is null");
    }
  }

  /** What a call returned, apart from its output: the tool, the call, ok or the error category. */
  public record ToolOutcome(String name, String callId, boolean ok, String errorCategory) {
    public ToolOutcome {
      requireNonNull(name, "name is null");
      requireNonNull(callId, "callId is null");
      requireNonNull(errorCategory, "errorCategory is null");
    }
  }
}
