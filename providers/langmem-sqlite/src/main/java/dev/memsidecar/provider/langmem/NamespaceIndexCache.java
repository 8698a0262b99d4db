package dev.memsidecar.provider.langmem;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Namespace;
import dev.memsidecar.toolkit.HybridIndex;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The {@link HybridIndex}es in memory, at most {@code capacity}, the least recently searched or
 * written dropped first (a dropped index is rebuilt from the database on its next search).
 *
 * <p>An index is {@linkplain #add added} as an {@link Slot} before it is loaded from the database,
 * so that writes committed while it loads are not lost: they {@linkplain Slot#apply queue} on the
 * entry and are applied, in order, when the loaded index is {@linkplain Slot#ready handed in}
 * (applying a write twice, once read from the database and once queued, is harmless: a put of the
 * same record or a remove). Thread-safe: every method is synchronized and short.
 */
final class NamespaceIndexCache {

  /** The index of one namespace, or the writes waiting for it while it loads. */
  static final class Slot {
    private HybridIndex index;
    private List<Consumer<HybridIndex>> waiting = new ArrayList<>();

    /** The loaded index, or null while it loads. */
    synchronized HybridIndex index() {
      return index;
    }

    /** Applies {@code change} to the index now, or when it is loaded. */
    synchronized void apply(Consumer<HybridIndex> change) {
      requireNonNull(change, "change is null");
      if (index != null) {
        change.accept(index);
      } else {
        waiting.add(change);
      }
    }

    /** Hands in the loaded index, applying the changes made while it loaded. */
    synchronized void ready(HybridIndex loaded) {
      requireNonNull(loaded, "loaded is null");
      if (index != null) {
        throw new IllegalStateException("index already loaded");
      }
      for (Consumer<HybridIndex> change : waiting) {
        change.accept(loaded);
      }
      waiting = null;
      index = loaded;
    }
  }

  private final LinkedHashMap<Namespace, Slot> map;

  NamespaceIndexCache(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
    }
    this.map =
        new LinkedHashMap<>(16, 0.75f, true) {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<Namespace, Slot> eldest) {
            return size() > capacity;
          }
        };
  }

  /** The namespace's entry (loaded or loading), or null. */
  synchronized Slot get(Namespace namespace) {
    return map.get(namespace);
  }

  /** A new entry for the namespace, waiting for its index, replacing any other. */
  synchronized Slot add(Namespace namespace) {
    Slot entry = new Slot();
    map.put(namespace, entry);
    return entry;
  }

  /** Drops the namespace's index, so its next search builds it again. */
  synchronized void remove(Namespace namespace) {
    map.remove(namespace);
  }

  /** Drops {@code entry} if it is still the namespace's. */
  synchronized void remove(Namespace namespace, Slot entry) {
    map.remove(namespace, entry);
  }

  synchronized int size() {
    return map.size();
  }

  synchronized void clear() {
    map.clear();
  }
}
