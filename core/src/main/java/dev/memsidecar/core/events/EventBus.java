package dev.memsidecar.core.events;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.core.Scope;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Hands {@link RuntimeEvent}s from the engine to the watchers ({@code AdminService.WatchEvents}),
 * in memory, live only: a watcher sees the events published while its {@link Watch} is open,
 * nothing from before and nothing after a restart.
 *
 * <p><b>Who sees what.</b> A watcher gives a scope and types. It sees an event when the event's
 * workspace equals its own (always given; an event without a workspace is seen by nobody), when for
 * each other id it gave (user, agent, session) the event carries the same id (a watcher that gave a
 * user id does not see the events of other users, nor workspace-wide events that carry no user id),
 * and when its types are empty or one of them is the event's type or, ending in {@code .}, a prefix
 * of it ({@code memory.} matches {@code memory.stored}). Events of the sidecar itself ({@link
 * RuntimeEvent#sidecarWide}, e.g. {@code maintenance.completed}) reach every watcher that wants
 * their type, whatever its scope.
 *
 * <p><b>Slow watchers.</b> {@link #publish} never waits for a watcher: each watch has a bounded
 * buffer ({@link #DEFAULT_BUFFER} events unless configured) and an event that finds it full is
 * dropped for that watcher only, counted, and reported to it as a {@value #DROPPED} event with
 * attribute {@code count} (see {@link Watch}). Events one thread publishes reach a watcher in the
 * order it published them; events of concurrent publishers interleave.
 *
 * <p>Thread-safe. Publishing costs a scope and type check per open watch, and buffering for those
 * that match.
 */
public final class EventBus implements AutoCloseable {
  /** The events a watch buffers unless configured otherwise. */
  public static final int DEFAULT_BUFFER = 256;

  /** The most types a watcher may give. */
  public static final int MAX_TYPES = 32;

  /** The longest type a watcher may give. */
  public static final int MAX_TYPE_LENGTH = 64;

  /** The type of the notice a watcher gets after it lost events; attribute {@code count}. */
  public static final String DROPPED = "events.dropped";

  private final int bufferSize;
  private static final System.Logger LOG = System.getLogger(EventBus.class.getName());

  private final Set<Watch> watches = ConcurrentHashMap.newKeySet();
  private final List<Consumer<RuntimeEvent>> listeners = new CopyOnWriteArrayList<>();
  private volatile boolean closed;

  /** A bus whose watches buffer {@link #DEFAULT_BUFFER} events each. */
  public EventBus() {
    this(DEFAULT_BUFFER);
  }

  /**
   * @param bufferSize the events each watch buffers, at least 1
   */
  public EventBus(int bufferSize) {
    if (bufferSize < 1) {
      throw new IllegalArgumentException("bufferSize must be at least 1, got " + bufferSize);
    }
    this.bufferSize = bufferSize;
  }

  /** The events each watch buffers. */
  public int bufferSize() {
    return bufferSize;
  }

  /**
   * Offers {@code event} to every open watch that wants it. Never blocks and never throws for a
   * watcher's sake (a full buffer drops the event for that watcher, a failing wake-up listener is
   * logged); after {@link #close} it does nothing.
   *
   * @throws NullPointerException when {@code event} is null
   */
  public void publish(RuntimeEvent event) {
    requireNonNull(event, "event is null");
    for (Consumer<RuntimeEvent> listener : listeners) {
      try {
        listener.accept(event);
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "an event listener failed on " + event.type(), e);
      }
    }
    for (Watch watch : watches) {
      if (watch.matches(event)) {
        watch.offer(event);
      }
    }
  }

  /**
   * Opens a watch; events published from now on that match {@code scope} and {@code types} are
   * buffered for it until it is closed.
   *
   * @param scope the watcher's scope: a valid workspace id is required; user, agent and session ids
   *     are optional (empty) and, when given, must be valid ids
   * @param types exact types or prefixes ending in {@code .}; empty means all; at most {@value
   *     #MAX_TYPES}, each 1..{@value #MAX_TYPE_LENGTH} characters
   * @param onEvent called when the watch's buffer goes from empty to not empty and when the bus
   *     closes the watch (see {@link Watch}); on the publisher's thread, outside any lock, so it
   *     must be quick and must not block (e.g. hand the draining to an executor); what it throws is
   *     logged and ignored
   * @throws MemoryException INVALID_ARGUMENT naming the field ({@code scope.workspace_id}, {@code
   *     scope.user_id}, {@code scope.agent_id}, {@code scope.session_id}, {@code types}) for a bad
   *     argument; UNAVAILABLE when the bus is closed
   */
  public Watch watch(Scope scope, Collection<String> types, Runnable onEvent) {
    requireNonNull(scope, "scope is null");
    requireNonNull(types, "types is null");
    requireNonNull(onEvent, "onEvent is null");
    Ids.require("scope.workspace_id", scope.workspaceId());
    optionalId("scope.user_id", scope.userId());
    optionalId("scope.agent_id", scope.agentId());
    optionalId("scope.session_id", scope.sessionId());
    Watch watch = new Watch(this, scope, checkedTypes(types), bufferSize, onEvent);
    watches.add(watch);
    if (closed) {
      // Raced with close(): close() may not have seen it.
      watches.remove(watch);
      throw stopping();
    }
    return watch;
  }

  /**
   * Calls {@code listener} with every event published from now on, whatever its scope, on the
   * publisher's thread (metrics count events this way): it must be quick and must not block; what
   * it throws is logged and ignored.
   */
  public void listen(Consumer<RuntimeEvent> listener) {
    listeners.add(requireNonNull(listener, "listener is null"));
  }

  /** The watches open now. */
  public int watchCount() {
    return watches.size();
  }

  /**
   * Closes every watch (their watchers are woken and see {@link Watch#isClosedByBus()}) and refuses
   * new ones; later publishes do nothing. Idempotent. Call it before stopping a server that streams
   * events, so the streams end instead of holding the shutdown.
   */
  @Override
  public void close() {
    closed = true;
    for (Watch watch : watches) {
      watches.remove(watch);
      watch.closeByBus();
    }
  }

  void remove(Watch watch) {
    watches.remove(watch);
  }

  private static void optionalId(String field, String id) {
    if (!id.isEmpty()) {
      Ids.require(field, id);
    }
  }

  private static Set<String> checkedTypes(Collection<String> types) {
    if (types.size() > MAX_TYPES) {
      throw MemoryException.invalidArgument(
          "types", "types has " + types.size() + " entries, at most " + MAX_TYPES + " are allowed");
    }
    for (String type : types) {
      if (type == null || type.isEmpty() || type.length() > MAX_TYPE_LENGTH) {
        throw MemoryException.invalidArgument(
            "types",
            "types entry "
                + Ids.quote(type)
                + " must be 1.."
                + MAX_TYPE_LENGTH
                + " characters, an event type or a prefix ending in '.'");
      }
    }
    return Set.copyOf(types);
  }

  private static MemoryException stopping() {
    return MemoryException.unavailable("the event bus is closed: the sidecar is stopping", null);
  }
}
