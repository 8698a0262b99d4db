package dev.memsidecar.provider.lucene;

import java.nio.file.Path;
import java.util.Map;

/** The shared conformance suite with reciprocal rank fusion instead of the default blend. */
class TestLuceneHnswRrfConformance extends TestLuceneHnswConformance {
  @Override
  protected Map<String, String> settings(Path dataDirectory) {
    return Map.of(LuceneHnswProvider.FUSION, "rrf");
  }
}
