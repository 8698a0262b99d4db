package dev.memsidecar.conformance;

import dev.memsidecar.api.Capability;
import dev.memsidecar.api.MemoryProvider;
import java.util.Set;
import org.junit.jupiter.api.Nested;

/**
 * The kit run against {@link InMemoryProvider}, a store that keeps every promise: once with records
 * and files, once with records only, once with files only, so each capability branch of the kit
 * runs.
 */
class TestInMemoryConformance {

  @Nested
  class RecordsAndFiles extends MemoryStoreConformance {
    @Override
    protected MemoryProvider provider() {
      return new InMemoryProvider(Set.of(Capability.RECORDS, Capability.FILES));
    }
  }

  @Nested
  class RecordsOnly extends MemoryStoreConformance {
    @Override
    protected MemoryProvider provider() {
      return new InMemoryProvider(Set.of(Capability.RECORDS));
    }
  }

  @Nested
  class FilesOnly extends MemoryStoreConformance {
    @Override
    protected MemoryProvider provider() {
      return new InMemoryProvider(Set.of(Capability.FILES));
    }
  }
}
