package dev.memsidecar.conformance;

import dev.memsidecar.api.Capability;
import dev.memsidecar.api.MemoryProvider;
import java.util.Set;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The kit run against {@link InMemoryProvider}, a store that keeps every promise: once with records
 * and files, once with records only, once with files only, so each capability branch of the kit
 * runs.
 */
class TestInMemoryConformance {

  /** What all three share: an in-memory store has nothing that could outlive its process. */
  abstract static class InMemoryConformance extends MemoryStoreConformance {
    @Override
    @Test
    @Disabled("in memory: nothing outlives the process, and it needs constructor arguments")
    public void acknowledgedWritesSurviveKillOfTheProcess() {}
  }

  @Nested
  class RecordsAndFiles extends InMemoryConformance {
    @Override
    protected MemoryProvider provider() {
      return new InMemoryProvider(Set.of(Capability.RECORDS, Capability.FILES));
    }
  }

  @Nested
  class RecordsOnly extends InMemoryConformance {
    @Override
    protected MemoryProvider provider() {
      return new InMemoryProvider(Set.of(Capability.RECORDS));
    }
  }

  @Nested
  class FilesOnly extends InMemoryConformance {
    @Override
    protected MemoryProvider provider() {
      return new InMemoryProvider(Set.of(Capability.FILES));
    }
  }
}
