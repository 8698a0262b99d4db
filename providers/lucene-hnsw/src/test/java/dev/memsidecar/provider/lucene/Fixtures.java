package dev.memsidecar.provider.lucene;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.toolkit.HashEmbedder;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;

/** Shared helpers for this module's tests. */
final class Fixtures {
  static final Instant T0 = Instant.parse("2025-03-01T08:00:00.123456789Z");

  private Fixtures() {}

  static LuceneHnswStore open(Path dir) {
    return open(dir, Map.of());
  }

  static LuceneHnswStore open(Path dir, Map<String, String> settings) {
    return open(dir, settings, new HashEmbedder());
  }

  static LuceneHnswStore open(Path dir, Map<String, String> settings, Embedder embedder) {
    MemoryStore store =
        new LuceneHnswProvider().open(new ProviderContext("workspace", dir, settings, embedder));
    return (LuceneHnswStore) store;
  }

  /** An active semantic record created and updated at {@code time}. */
  static MemoryRecord record(Namespace ns, String id, String content, Instant time) {
    return MemoryRecord.builder()
        .namespace(ns)
        .id(id)
        .profile("workspace")
        .content(content)
        .times(time)
        .build();
  }

  static MemoryRecord record(Namespace ns, String id, String content) {
    return record(ns, id, content, T0);
  }
}
