package dev.memsidecar.provider.lucene;

import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.conformance.MemoryStoreConformance;
import java.nio.file.Path;
import java.util.Map;

/** The shared conformance suite with reciprocal rank fusion instead of the default blend. */
class TestLuceneHnswRrfConformance extends MemoryStoreConformance {
  @Override
  protected MemoryProvider provider() {
    return new LuceneHnswProvider();
  }

  @Override
  protected Map<String, String> settings(Path dataDirectory) {
    return Map.of(LuceneHnswProvider.FUSION, "rrf");
  }
}
