package dev.memsidecar.core.events;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.Scope;
import java.time.Instant;
import java.util.Map;

/**
 * Something that happened, for watchers ({@code AdminService.WatchEvents}): {@code run.begin},
 * {@code run.end}, {@code memory.stored}, {@code memory.merged}, {@code memory.superseded}, {@code
 * memory.rejected}, {@code memory.extraction.failed}, {@code memory.plugin.completed}, {@code
 * events.dropped}, and later tool-rule events. Published to an {@link EventBus}; not stored.
 *
 * @param type what happened
 * @param time when
 * @param runId the run, or empty
 * @param namespace the namespace it touched, or empty
 * @param scope the scope of the call that caused it, with every id that call gave (a watcher that
 *     gave a user, agent or session id sees only events that carry the same id, see {@link
 *     EventBus}); an event without a workspace id reaches no watcher
 * @param attributes details, e.g. {@code memory_id}, {@code reason}
 */
public record RuntimeEvent(
    String type,
    Instant time,
    String runId,
    String namespace,
    Scope scope,
    Map<String, String> attributes) {
  public RuntimeEvent {
    requireNonNull(type, "type is null");
    requireNonNull(time, "time is null");
    runId = runId == null ? "" : runId;
    namespace = namespace == null ? "" : namespace;
    requireNonNull(scope, "scope is null");
    attributes = attributes == null ? Map.of() : Map.copyOf(attributes);
  }
}
