package dev.memsidecar.provider.lucene;

import java.nio.file.Path;
import java.util.Map;

/** The shared conformance suite with int8 scalar-quantized HNSW vectors instead of float32. */
class TestLuceneHnswInt8Conformance extends TestLuceneHnswConformance {
  @Override
  protected Map<String, String> settings(Path dataDirectory) {
    return Map.of(LuceneHnswProvider.VECTORS, "int8");
  }
}
