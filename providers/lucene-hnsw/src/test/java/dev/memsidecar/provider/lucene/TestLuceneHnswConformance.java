package dev.memsidecar.provider.lucene;

import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.conformance.MemoryStoreConformance;

/**
 * The shared conformance suite, run against a real index under a temporary directory, which the
 * index's write lock holds against other processes.
 */
class TestLuceneHnswConformance extends MemoryStoreConformance {
  @Override
  protected MemoryProvider provider() {
    return new LuceneHnswProvider();
  }

  @Override
  protected boolean locksDataDirectory() {
    return true;
  }
}
