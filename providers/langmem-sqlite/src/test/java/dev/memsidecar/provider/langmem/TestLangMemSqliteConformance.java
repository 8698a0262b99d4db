package dev.memsidecar.provider.langmem;

import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.conformance.MemoryStoreConformance;

/**
 * The provider conformance kit against {@code langmem-sqlite} on its default H2 file in the test's
 * data directory, which H2 locks against other processes. What is specific to this provider is
 * tested in {@link TestLangMemSqliteStore} and {@link TestLangMemSqliteProvider}.
 */
class TestLangMemSqliteConformance extends MemoryStoreConformance {

  @Override
  protected MemoryProvider provider() {
    return new LangMemSqliteProvider();
  }

  @Override
  protected boolean locksDataDirectory() {
    return true;
  }
}
