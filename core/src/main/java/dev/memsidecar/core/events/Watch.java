package dev.memsidecar.core.events;

import dev.memsidecar.core.Scope;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One watcher's view of an {@link EventBus}: the events that match its scope and types, in a
 * bounded buffer that the watcher empties with {@link #poll}. Made by {@link EventBus#watch}.
 *
 * <p>When the buffer is full, a new event is dropped for this watcher only and counted; once there
 * is room again (or the buffer has been emptied) the watcher gets one {@value EventBus#DROPPED}
 * event, in the place of the lost ones, whose attribute {@code count} says how many it lost since
 * the previous such notice. That notice is delivered whatever the watcher's types, takes one place
 * in the buffer and carries the watcher's own scope.
 *
 * <p>The wake-up listener given to {@link EventBus#watch} is called, on the publisher's thread and
 * outside any lock, each time the buffer goes from empty to not empty, and once when the bus closes
 * the watch; so a consumer that polls until {@link #poll} returns null never misses an event, and
 * one that stops earlier (e.g. a stream that is not ready) must come back on its own. The listener
 * may run concurrently with {@link #poll} and, rarely, once after {@link #close}.
 *
 * <p>Thread-safe; publishers never wait for the consumer, only for a constant-time section.
 */
public final class Watch implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(Watch.class.getName());

  private final EventBus bus;
  private final Scope scope;
  private final Set<String> types;
  private final int capacity;
  private final Runnable onEvent;

  private final Object lock = new Object();
  // Guarded by lock.
  private final ArrayDeque<RuntimeEvent> buffer;
  private long pendingDropped;
  private long totalDropped;
  private boolean closed;
  private boolean closedByBus;

  Watch(EventBus bus, Scope scope, Set<String> types, int capacity, Runnable onEvent) {
    this.bus = bus;
    this.scope = scope;
    this.types = types;
    this.capacity = capacity;
    this.onEvent = onEvent;
    this.buffer = new ArrayDeque<>(Math.min(capacity, 64));
  }

  /** The scope the watcher gave. */
  public Scope scope() {
    return scope;
  }

  /** The types the watcher gave (empty: all), exact types or prefixes ending in {@code .}. */
  public Set<String> types() {
    return types;
  }

  /** The most events this watch buffers. */
  public int capacity() {
    return capacity;
  }

  /**
   * The next event, or null when there is none now; never blocks. After {@link #close} always null.
   */
  public RuntimeEvent poll() {
    synchronized (lock) {
      if (closed) {
        return null;
      }
      RuntimeEvent next = buffer.poll();
      if (next == null && pendingDropped > 0) {
        // Every buffered event is older than the lost ones, so the notice comes after them.
        next = droppedNotice();
      }
      return next;
    }
  }

  /** How many events were dropped for this watch since it opened, because its buffer was full. */
  public long dropped() {
    synchronized (lock) {
      return totalDropped;
    }
  }

  /** True once {@link #close} was called or the bus was closed. */
  public boolean isClosed() {
    synchronized (lock) {
      return closed;
    }
  }

  /** True when the bus closed this watch (the bus was closed), not the watcher. */
  public boolean isClosedByBus() {
    synchronized (lock) {
      return closedByBus;
    }
  }

  /**
   * Stops delivery, discards the buffer and leaves the bus; idempotent. No event published after it
   * returns reaches this watch.
   */
  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      buffer.clear();
    }
    bus.remove(this);
  }

  /** Closes this watch because the bus closes, and wakes the watcher so it notices. */
  void closeByBus() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      closedByBus = true;
      buffer.clear();
    }
    wake();
  }

  /** True when this watcher wants {@code event}: same scope (see {@link EventBus}), wanted type. */
  boolean matches(RuntimeEvent event) {
    if (event.isSidecarWide()) {
      return wantsType(event.type());
    }
    Scope s = event.scope();
    return scope.workspaceId().equals(s.workspaceId())
        && (scope.userId().isEmpty() || scope.userId().equals(s.userId()))
        && (scope.agentId().isEmpty() || scope.agentId().equals(s.agentId()))
        && (scope.sessionId().isEmpty() || scope.sessionId().equals(s.sessionId()))
        && wantsType(event.type());
  }

  private boolean wantsType(String type) {
    if (types.isEmpty() || types.contains(type)) {
      return true;
    }
    for (String t : types) {
      if (t.endsWith(".") && type.startsWith(t)) {
        return true;
      }
    }
    return false;
  }

  /** Buffers {@code event} or counts it as dropped; never waits for the consumer. */
  void offer(RuntimeEvent event) {
    boolean wasEmpty;
    synchronized (lock) {
      if (closed) {
        return;
      }
      if (buffer.size() >= capacity) {
        pendingDropped++;
        totalDropped++;
        return;
      }
      wasEmpty = buffer.isEmpty();
      if (pendingDropped > 0) {
        buffer.add(droppedNotice());
      }
      if (buffer.size() < capacity) {
        buffer.add(event);
      } else {
        pendingDropped++;
        totalDropped++;
      }
    }
    if (wasEmpty) {
      wake();
    }
  }

  /** The notice of the events lost since the last one; resets the count. Holds lock. */
  private RuntimeEvent droppedNotice() {
    RuntimeEvent notice =
        new RuntimeEvent(
            EventBus.DROPPED,
            Instant.now(),
            "",
            "",
            scope,
            Map.of("count", Long.toString(pendingDropped)));
    pendingDropped = 0;
    return notice;
  }

  private void wake() {
    try {
      onEvent.run();
    } catch (RuntimeException e) {
      // A watcher's bug must never fail a publisher.
      LOG.log(System.Logger.Level.WARNING, "an event watcher's wake-up listener failed", e);
    }
  }

  @Override
  public String toString() {
    return "Watch[scope=" + scope + ", types=" + List.copyOf(types) + "]";
  }
}
