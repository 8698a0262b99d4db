package dev.memsidecar.provider.deepagents;

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
  static final String PROFILE = "workspace";
  static final Instant T0 = Instant.parse("2025-03-01T08:00:00.123456789Z");

  private Fixtures() {}

  static MemoryStore open(Path dir) {
    return open(dir, new HashEmbedder());
  }

  static MemoryStore open(Path dir, Embedder embedder) {
    return new DeepAgentsFilesProvider()
        .open(new ProviderContext(PROFILE, dir, Map.of(), embedder));
  }

  /** An active semantic record created and updated at {@code time}. */
  static MemoryRecord record(Namespace ns, String id, String content, Instant time) {
    return MemoryRecord.builder()
        .namespace(ns)
        .id(id)
        .profile(PROFILE)
        .content(content)
        .times(time)
        .build();
  }

  static MemoryRecord record(Namespace ns, String id, String content) {
    return record(ns, id, content, T0);
  }
}
