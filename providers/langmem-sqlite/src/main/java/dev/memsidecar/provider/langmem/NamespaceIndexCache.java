package dev.memsidecar.provider.langmem;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Namespace;
import dev.memsidecar.toolkit.HybridIndex;
import java.util.ArrayList;
import java.util.HashMap;
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
 * entry and are applied, in order, when the loaded index is {@linkplain Slot#ready handed in} (a
 * change already in what was loaded is skipped by its version, {@link Slot}; without versions,
 * applying a write twice, once read from the database and once queued, is harmless: a put of the
 * same record or a remove). Thread-safe: every method is synchronized and short.
 */
final class NamespaceIndexCache {

  /**
   * The index of one namespace, or the changes waiting for it while it loads, and the version of
   * each record it holds.
   *
   * <p>A version is the seq of the record's newest change in the change log ({@link ChangeFeed}),
   * known where there is one (PostgreSQL): a change is applied only if it is newer than the version
   * the index holds for its record, so this store's own writes (applied by the committer) and the
   * same writes read back from the log (by the listener), or a change queued while the index loaded
   * and already in what it loaded, are applied once and never roll a record back. A record removed
   * keeps its version, so an older put cannot bring it back. {@link #UNVERSIONED} changes (H2: no
   * log) are always applied, in order.
   */
  static final class Slot {
    private HybridIndex index;
    private List<Pending> waiting = new ArrayList<>();
    private Map<String, Long> versions = new HashMap<>();

    private record Pending(String id, long version, Consumer<HybridIndex> change) {}

    /** The loaded index, or null while it loads. */
    synchronized HybridIndex index() {
      return index;
    }

    /** The version of the record {@code id} (0: none known). */
    synchronized long version(String id) {
      return versions.getOrDefault(id, 0L);
    }

    /**
     * Applies {@code change} of the record {@code id} to the index now, or when it is loaded,
     * unless the index has a version of that record at least as new as {@code version}.
     */
    synchronized void apply(String id, long version, Consumer<HybridIndex> change) {
      requireNonNull(id, "id is null");
      requireNonNull(change, "change is null");
      if (version != UNVERSIONED) {
        if (versions.getOrDefault(id, 0L) >= version) {
          return;
        }
        versions.put(id, version);
      }
      if (index != null) {
        change.accept(index);
      } else {
        waiting.add(new Pending(id, version, change));
      }
    }

    /**
     * Hands in the loaded index with the versions of the records it was loaded with, applying the
     * changes made while it loaded that are newer.
     */
    synchronized void ready(HybridIndex loaded, Map<String, Long> loadedVersions) {
      requireNonNull(loaded, "loaded is null");
      if (index != null) {
        throw new IllegalStateException("index already loaded");
      }
      Map<String, Long> current = new HashMap<>(loadedVersions);
      for (Pending p : waiting) {
        if (p.version() == UNVERSIONED) {
          p.change().accept(loaded);
        } else if (current.getOrDefault(p.id(), 0L) < p.version()) {
          current.put(p.id(), p.version());
          p.change().accept(loaded);
        }
      }
      waiting = null;
      versions = current;
      index = loaded;
    }
  }

  /** The version of a change where there is no change log: applied whatever came before. */
  static final long UNVERSIONED = -1;

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
