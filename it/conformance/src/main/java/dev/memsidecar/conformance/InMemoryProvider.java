package dev.memsidecar.conformance;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Capability;
import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.ListCursor;
import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryFile;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Page;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.toolkit.HybridIndex;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A provider for tests whose stores keep records and memory files in memory: the simplest store
 * that keeps every promise of the SPI except surviving the death of its process. It lets the kit
 * test itself (including capability branches no shipped provider reaches) and lets the engine's
 * unit tests run without a database.
 *
 * <p>{@link java.util.ServiceLoader} finds it as {@value #NAME} (the kit jar lists it in {@code
 * META-INF/services/dev.memsidecar.api.MemoryProvider}) with {@link Capability#RECORDS} and {@link
 * Capability#FILES}; {@link #InMemoryProvider(Set)} chooses other capabilities, and every method of
 * a capability it does not declare fails with UNIMPLEMENTED. It takes no settings: {@link #open}
 * rejects any with INVALID_ARGUMENT naming it.
 *
 * <h2>Data directories</h2>
 *
 * What a store writes is kept per data directory (absolute and normalized) in a static map, for as
 * long as this class is loaded: a store closed and opened again on the same directory, by any
 * instance of this provider, finds everything it wrote, as it would on disk; a store on another
 * directory finds nothing of it. Several stores may be open on one directory at once and see each
 * other's writes at once. Nothing outlives the JVM, so the kit's {@link
 * MemoryStoreConformance#acknowledgedWritesSurviveKillOfTheProcess kill -9 test} fails against it,
 * by design. Nothing is ever evicted: keep it to test-sized data.
 *
 * <h2>Search</h2>
 *
 * Search ranks with {@link HybridIndex} (half cosine, half query keywords, see {@link
 * ScoredRecord}), over an index per namespace built lazily with the store's embedder and kept up to
 * date by later writes; a store opened with another embedder instance rebuilds it on its first
 * search.
 *
 * <h2>Threads</h2>
 *
 * Thread-safe: every call holds its data directory's lock, so calls on one directory run one at a
 * time. It is correct, not fast.
 */
public final class InMemoryProvider implements MemoryProvider {
  /** The name profiles select it by. */
  public static final String NAME = "in-memory";

  private static final Map<Path, Disk> DISKS = new ConcurrentHashMap<>();

  private final Set<Capability> capabilities;

  /** With {@link Capability#RECORDS} and {@link Capability#FILES}; what ServiceLoader makes. */
  public InMemoryProvider() {
    this(Set.of(Capability.RECORDS, Capability.FILES));
  }

  /**
   * With the given capabilities only.
   *
   * @throws IllegalArgumentException if {@code capabilities} is empty
   */
  public InMemoryProvider(Set<Capability> capabilities) {
    this.capabilities = Set.copyOf(requireNonNull(capabilities, "capabilities is null"));
    if (this.capabilities.isEmpty()) {
      throw new IllegalArgumentException("a provider declares at least one capability");
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Set<Capability> capabilities() {
    return capabilities;
  }

  @Override
  public MemoryStore open(ProviderContext context) {
    context.requireOnly(Set.of());
    Path directory = context.dataDirectory().toAbsolutePath().normalize();
    Disk disk = DISKS.computeIfAbsent(directory, d -> new Disk());
    return new Store(context.profileId(), directory, disk, context.embedder(), capabilities);
  }

  /** What survives a close: the records and files of one data directory. Guarded by itself. */
  private static final class Disk {
    final Map<Namespace, Shelf> shelves = new HashMap<>();
    final Map<Namespace, MemoryFile> files = new HashMap<>();
  }

  /** One namespace's records, and the search index over them once a search needs it. */
  private static final class Shelf {
    final Map<String, MemoryRecord> records = new HashMap<>();
    private HybridIndex index;
    private Embedder indexedWith;

    void put(MemoryRecord record, Embedder embedder) {
      records.put(record.id(), record);
      if (indexedWith != embedder) {
        index = null; // rebuilt by the next search
        indexedWith = null;
      } else {
        float[] same = index.vectorIfSameText(record);
        index.put(record, same != null ? same : embedder.embed(record.indexedText()));
      }
    }

    boolean remove(String id) {
      if (index != null) {
        index.remove(id);
      }
      return records.remove(id) != null;
    }

    HybridIndex index(Embedder embedder) {
      if (indexedWith != embedder) {
        index = new HybridIndex(embedder.dimensions());
        for (MemoryRecord r : records.values()) {
          index.put(r, embedder.embed(r.indexedText()));
        }
        indexedWith = embedder;
      }
      return index;
    }
  }

  private static final class Store implements MemoryStore {
    private final String profileId;
    private final Path directory;
    private final Disk disk;
    private final Embedder embedder;
    private final Set<Capability> capabilities;
    private volatile boolean closed;

    Store(
        String profileId,
        Path directory,
        Disk disk,
        Embedder embedder,
        Set<Capability> capabilities) {
      this.profileId = profileId;
      this.directory = directory;
      this.disk = disk;
      this.embedder = embedder;
      this.capabilities = capabilities;
    }

    @Override
    public void put(MemoryRecord record) {
      check(Capability.RECORDS);
      synchronized (disk) {
        disk.shelves.computeIfAbsent(record.namespace(), ns -> new Shelf()).put(record, embedder);
      }
    }

    @Override
    public Optional<MemoryRecord> get(Namespace namespace, String id) {
      check(Capability.RECORDS);
      synchronized (disk) {
        Shelf shelf = disk.shelves.get(namespace);
        return Optional.ofNullable(shelf == null ? null : shelf.records.get(id));
      }
    }

    @Override
    public Page list(Namespace namespace, ListQuery query) {
      check(Capability.RECORDS);
      ListCursor after = query.cursor() == null ? null : ListCursor.decode(query.cursor());
      List<MemoryRecord> sorted = new ArrayList<>();
      synchronized (disk) {
        Shelf shelf = disk.shelves.get(namespace);
        if (shelf != null) {
          sorted.addAll(shelf.records.values());
        }
      }
      sorted.sort(ListCursor.NEWEST_FIRST);
      List<MemoryRecord> page = new ArrayList<>();
      for (MemoryRecord r : sorted) {
        if ((after != null && !after.precedes(r))
            || (!query.includeInactive() && r.status() != MemoryStatus.ACTIVE)) {
          continue;
        }
        if (page.size() == query.pageSize()) {
          return new Page(page, ListCursor.after(page.getLast()).encode());
        }
        page.add(r);
      }
      return new Page(page, null);
    }

    @Override
    public List<ScoredRecord> search(Namespace namespace, SearchQuery query) {
      check(Capability.RECORDS);
      float[] vector = query.unitVector(embedder);
      synchronized (disk) {
        Shelf shelf = disk.shelves.get(namespace);
        return shelf == null ? List.of() : shelf.index(embedder).search(query, vector);
      }
    }

    @Override
    public boolean delete(Namespace namespace, String id) {
      check(Capability.RECORDS);
      synchronized (disk) {
        Shelf shelf = disk.shelves.get(namespace);
        return shelf != null && shelf.remove(id);
      }
    }

    @Override
    public MemoryFile readFile(Namespace namespace) {
      check(Capability.FILES);
      synchronized (disk) {
        return disk.files.getOrDefault(namespace, MemoryFile.absent());
      }
    }

    @Override
    public MemoryFile writeFile(Namespace namespace, String content, String expectedEtag) {
      check(Capability.FILES);
      requireNonNull(content, "content is null");
      synchronized (disk) {
        MemoryFile current = disk.files.getOrDefault(namespace, MemoryFile.absent());
        if (expectedEtag != null
            && !expectedEtag.isEmpty()
            && !expectedEtag.equals(current.etag())) {
          throw MemoryException.aborted(
              "memory file of '" + namespace + "' changed since etag " + expectedEtag);
        }
        MemoryFile written = MemoryFile.of(content, Instant.now());
        disk.files.put(namespace, written);
        return written;
      }
    }

    @Override
    public void close() {
      closed = true;
    }

    @Override
    public String toString() {
      return NAME + " store of profile '" + profileId + "' on " + directory;
    }

    @Override
    public List<Namespace> namespaces() {
      if (closed) {
        throw MemoryException.failedPrecondition(this + " is closed");
      }
      synchronized (disk) {
        java.util.Set<Namespace> all = new java.util.LinkedHashSet<>();
        disk.shelves.forEach(
            (ns, shelf) -> {
              if (!shelf.records.isEmpty()) {
                all.add(ns);
              }
            });
        all.addAll(disk.files.keySet());
        return List.copyOf(all);
      }
    }

    private void check(Capability capability) {
      if (!capabilities.contains(capability)) {
        throw MemoryException.unsupported(this, capability);
      }
      if (closed) {
        throw MemoryException.failedPrecondition(this + " is closed");
      }
    }
  }
}
