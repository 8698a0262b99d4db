package dev.memsidecar.conformance;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Capability;
import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.Ids;
import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryFile;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Page;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.toolkit.Terms;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The simplest store that keeps the SPI's promises: records and files in maps, "durable" in a
 * static map keyed by data directory (standing in for the disk). It exists so the kit can test
 * itself, including the FILES tests no shipped record provider reaches. Thread-safe by
 * synchronizing every call.
 */
final class InMemoryProvider implements MemoryProvider {
  private static final Map<Path, Disk> DISKS = new ConcurrentHashMap<>();

  private final Set<Capability> capabilities;

  InMemoryProvider(Set<Capability> capabilities) {
    this.capabilities = Set.copyOf(capabilities);
  }

  @Override
  public String name() {
    return "in-memory";
  }

  @Override
  public Set<Capability> capabilities() {
    return capabilities;
  }

  @Override
  public MemoryStore open(ProviderContext context) {
    context.requireOnly(Set.of());
    Disk disk = DISKS.computeIfAbsent(context.dataDirectory().toAbsolutePath(), p -> new Disk());
    return new Store(disk, context.embedder(), capabilities);
  }

  private static final class Disk {
    final Map<Namespace, Map<String, MemoryRecord>> records = new HashMap<>();
    final Map<Namespace, MemoryFile> files = new HashMap<>();
  }

  private static final class Store implements MemoryStore {
    private static final Comparator<MemoryRecord> NEWEST_FIRST =
        Comparator.comparing(MemoryRecord::createTime)
            .thenComparing(MemoryRecord::id)
            .reversed();

    private final Disk disk;
    private final Embedder embedder;
    private final Set<Capability> capabilities;
    private boolean closed;

    Store(Disk disk, Embedder embedder, Set<Capability> capabilities) {
      this.disk = disk;
      this.embedder = embedder;
      this.capabilities = capabilities;
    }

    @Override
    public void put(MemoryRecord record) {
    Namespace namespace = record.namespace();
      check(Capability.RECORDS);
      if (!record.namespace().equals(namespace)) {
        throw MemoryException.invalidArgument("namespace", "record of another namespace");
      }
      synchronized (disk) {
        disk.records.computeIfAbsent(namespace, k -> new HashMap<>()).put(record.id(), record);
      }
    }

    @Override
    public Optional<MemoryRecord> get(Namespace namespace, String id) {
      check(Capability.RECORDS);
      Ids.require("id", id);
      synchronized (disk) {
        return Optional.ofNullable(disk.records.getOrDefault(namespace, Map.of()).get(id));
      }
    }

    @Override
    public Page list(Namespace namespace, ListQuery query) {
      check(Capability.RECORDS);
      MemoryRecord after = query.cursor() == null ? null : decode(namespace, query.cursor());
      List<MemoryRecord> sorted;
      synchronized (disk) {
        sorted = new ArrayList<>(disk.records.getOrDefault(namespace, Map.of()).values());
      }
      sorted.sort(NEWEST_FIRST);
      List<MemoryRecord> page = new ArrayList<>();
      for (MemoryRecord r : sorted) {
        if (after != null && NEWEST_FIRST.compare(r, after) <= 0) {
          continue;
        }
        if (!query.includeInactive() && r.status() != dev.memsidecar.api.MemoryStatus.ACTIVE) {
          continue;
        }
        if (page.size() == query.pageSize()) {
          MemoryRecord last = page.get(page.size() - 1);
          return new Page(page, encode(last));
        }
        page.add(r);
      }
      return new Page(page, null);
    }

    @Override
    public List<ScoredRecord> search(Namespace namespace, SearchQuery query) {
      check(Capability.RECORDS);
      float[] q = query.vector() != null ? query.vector() : embedder.embed(query.text());
      Set<String> queryTerms = new HashSet<>(Terms.keywords(query.text()));
      List<ScoredRecord> hits = new ArrayList<>();
      synchronized (disk) {
        for (MemoryRecord r : disk.records.getOrDefault(namespace, Map.of()).values()) {
          if (!query.admits(r)) {
            continue;
          }
          float v = Math.max(0f, Embedder.cosine(q, embedder.embed(r.content())));
          Set<String> held = new HashSet<>(Terms.keywords(r.content()));
          long matched = queryTerms.stream().filter(held::contains).count();
          float score =
              queryTerms.isEmpty() ? v : 0.5f * v + 0.5f * matched / (float) queryTerms.size();
          score = Math.min(1f, Math.max(0f, score));
          if (score >= query.minScore()) {
            hits.add(new ScoredRecord(r, score));
          }
        }
      }
      hits.sort(
          Comparator.comparingDouble((ScoredRecord s) -> s.score())
              .reversed()
              .thenComparing(s -> s.record().id()));
      return List.copyOf(hits.subList(0, Math.min(query.topK(), hits.size())));
    }

    @Override
    public boolean delete(Namespace namespace, String id) {
      check(Capability.RECORDS);
      synchronized (disk) {
        return disk.records.getOrDefault(namespace, new HashMap<>()).remove(id) != null;
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
          throw MemoryException.aborted("file of " + namespace + " changed");
        }
        MemoryFile written = MemoryFile.of(content, Clock.systemUTC().instant());
        disk.files.put(namespace, written);
        return written;
      }
    }

    @Override
    public synchronized void close() {
      closed = true;
    }

    private synchronized void check(Capability capability) {
      if (!capabilities.contains(capability)) {
        throw MemoryException.unsupported("in-memory store has no " + capability);
      }
      if (closed) {
        throw MemoryException.failedPrecondition("store is closed");
      }
    }

    private static String encode(MemoryRecord last) {
      String plain = last.createTime() + "|" + last.id();
      return Base64.getUrlEncoder().encodeToString(plain.getBytes(StandardCharsets.UTF_8));
    }

    private static MemoryRecord decode(Namespace ns, String cursor) {
      try {
        String plain = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
        int bar = plain.indexOf('|');
        Instant time = Instant.parse(plain.substring(0, bar));
        return MemoryRecord.builder()
            .namespace(ns)
            .id(plain.substring(bar + 1))
            .profile("cursor")
            .content("")
            .times(time)
            .build();
      } catch (RuntimeException e) {
        throw MemoryException.invalidArgument("page_token", "bad cursor '" + cursor + "'");
      }
    }
  }
}
