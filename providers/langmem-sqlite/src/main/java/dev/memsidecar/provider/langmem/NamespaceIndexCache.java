package dev.memsidecar.provider.langmem;

import dev.memsidecar.api.Namespace;
import dev.memsidecar.toolkit.HybridIndex;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@link HybridIndex}es in memory, at most {@code capacity}, the least recently searched or
 * written dropped first (a dropped index is rebuilt from the database on its next search).
 * Thread-safe: every method is synchronized and short.
 */
final class NamespaceIndexCache {
  private final LinkedHashMap<Namespace, HybridIndex> map;

  NamespaceIndexCache(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
    }
    this.map =
        new LinkedHashMap<>(16, 0.75f, true) {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<Namespace, HybridIndex> eldest) {
            return size() > capacity;
          }
        };
  }

  synchronized HybridIndex get(Namespace namespace) {
    return map.get(namespace);
  }

  synchronized void put(Namespace namespace, HybridIndex index) {
    map.put(namespace, index);
  }

  synchronized void remove(Namespace namespace) {
    map.remove(namespace);
  }

  synchronized int size() {
    return map.size();
  }

  synchronized void clear() {
    map.clear();
  }
}
