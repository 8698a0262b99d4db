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
 *     <p>An event of the sidecar itself rather than of a call ({@code maintenance.completed},
 *     {@code maintenance.failed}) is {@link #sidecarWide}: its scope is {@link #SIDECAR}, and it
 *     reaches every watcher that wants its type, whatever the watcher's scope. Such events carry
 *     counts and names of things, never content or record ids.
 */
public record RuntimeEvent(
    String type,
    Instant time,
    String runId,
    String namespace,
    Scope scope,
    Map<String, String> attributes) {
  /** The scope of a {@link #sidecarWide} event: no client scope has this workspace id. */
  public static final Scope SIDECAR = Scope.workspace("*");

  public RuntimeEvent {
    requireNonNull(type, "type is null");
    requireNonNull(time, "time is null");
    runId = runId == null ? "" : runId;
    namespace = namespace == null ? "" : namespace;
    requireNonNull(scope, "scope is null");
    attributes = attributes == null ? Map.of() : Map.copyOf(attributes);
  }

  /** An event of the sidecar itself, seen by every watcher that wants its type. */
  public static RuntimeEvent sidecarWide(
      String type, Instant time, Map<String, String> attributes) {
    return new RuntimeEvent(type, time, "", "", SIDECAR, attributes);
  }

  /** Whether this event is {@link #sidecarWide}. */
  public boolean isSidecarWide() {
    return scope.equals(SIDECAR);
  }
}
