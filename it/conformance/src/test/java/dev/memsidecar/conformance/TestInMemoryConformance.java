package dev.memsidecar.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.Capability;
import dev.memsidecar.api.MemoryProvider;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The kit run against {@link InMemoryProvider}, a store that keeps every promise but durability
 * across processes: once with records and files, once with records only, once with files only, so
 * each capability branch of the kit runs.
 */
class TestInMemoryConformance {

  @Test
  void serviceLoaderFindsTheInMemoryProviderWithRecordsAndFiles() {
    List<MemoryProvider> found =
        ServiceLoader.load(MemoryProvider.class).stream()
            .map(ServiceLoader.Provider::get)
            .filter(p -> p.name().equals(InMemoryProvider.NAME))
            .toList();
    assertEquals(1, found.size(), "providers named " + InMemoryProvider.NAME);
    assertEquals(Set.of(Capability.RECORDS, Capability.FILES), found.get(0).capabilities());
  }

  /** What all three share: an in-memory store loses everything with its process. */
  abstract static class InMemoryConformance extends MemoryStoreConformance {
    /**
     * The crash test must catch a store that acknowledges writes it then loses, and this one loses
     * them all: so the kit's crash test is one that can fail.
     */
    @Override
    @Test
    public void acknowledgedWritesSurviveKillOfTheProcess() {
      AssertionError failure =
          assertThrows(AssertionError.class, super::acknowledgedWritesSurviveKillOfTheProcess);
      assertTrue(failure.getMessage().startsWith("lost the acknowledged "), failure.getMessage());
    }
  }

  @Nested
  class RecordsAndFiles extends InMemoryConformance {
    @Override
    protected MemoryProvider provider() {
      return new InMemoryProvider();
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
