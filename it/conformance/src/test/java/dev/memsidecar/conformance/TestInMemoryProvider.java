package dev.memsidecar.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.toolkit.HashEmbedder;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@link InMemoryProvider} promises beyond the SPI: its "disk" is the data directory. */
class TestInMemoryProvider {
  private static final Namespace NS = Namespace.of("acme:user:alice:p");
  private static final Instant T0 = Instant.parse("2025-03-01T08:00:00Z");

  @TempDir Path dir;

  @Test
  void storesOnOneDirectoryShareRecordsAndStoresOnAnotherSeeNone() {
    MemoryRecord r = record("r1", "prefers tea");
    try (MemoryStore a = open(dir.resolve("one"), new HashEmbedder());
        MemoryStore b = open(dir.resolve("one/../one"), new HashEmbedder());
        MemoryStore other = open(dir.resolve("two"), new HashEmbedder())) {
      a.put(r);
      assertEquals(Optional.of(r), b.get(NS, "r1"), "another store on the same directory");
      assertEquals(Optional.empty(), other.get(NS, "r1"), "a store on another directory");
    }
  }

  @Test
  void searchSeesWritesOfAStoreWithAnotherEmbedder() {
    try (MemoryStore small = open(dir, new HashEmbedder(64));
        MemoryStore large = open(dir, new HashEmbedder(128))) {
      small.put(record("r1", "prefers green tea"));
      assertEquals(List.of("r1"), ids(small.search(NS, query("tea"))), "indexed with 64");
      large.put(record("r2", "drinks black tea"));
      small.put(record("r3", "likes oolong tea"));
      assertEquals(List.of("r1", "r2", "r3"), sorted(large.search(NS, query("tea"))), "128");
      assertEquals(List.of("r1", "r2", "r3"), sorted(small.search(NS, query("tea"))), "64");
    }
  }

  @Test
  void noCapabilitiesIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new InMemoryProvider(Set.of()));
  }

  private static MemoryStore open(Path directory, HashEmbedder embedder) {
    return new InMemoryProvider()
        .open(new ProviderContext("workspace", directory, Map.of(), embedder));
  }

  private static MemoryRecord record(String id, String content) {
    return MemoryRecord.builder()
        .namespace(NS)
        .id(id)
        .profile("workspace")
        .content(content)
        .times(T0)
        .build();
  }

  private static SearchQuery query(String text) {
    return new SearchQuery(text, null, 10, Set.of(), List.of(), 0f, T0);
  }

  private static List<String> ids(List<ScoredRecord> hits) {
    return hits.stream().map(h -> h.record().id()).toList();
  }

  private static List<String> sorted(List<ScoredRecord> hits) {
    return ids(hits).stream().sorted().toList();
  }
}
