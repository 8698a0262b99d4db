package dev.memsidecar.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.conformance.InMemoryProvider;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TestNamedServices {
  /** A provider with any name and aliases; it opens nothing. */
  private record Named(String name, Set<String> aliases) implements MemoryProvider {
    @Override
    public MemoryStore open(ProviderContext context) {
      throw new UnsupportedOperationException();
    }
  }

  @Test
  void findsByNameAndAliasInAnyCase() {
    Named p = new Named("acme-redis", Set.of("redis"));
    NamedServices<MemoryProvider> services = Engines.providers(new InMemoryProvider(), p);
    assertSame(p, services.entry("acme-redis", "spec.provider").service());
    assertSame(p, services.entry("REDIS", "spec.provider").service());
    assertEquals(List.of("acme-redis", "in-memory"), services.names());
    assertEquals(NamedServices.CLASSPATH, services.entry("redis", "x").source());
  }

  @Test
  void unknownNameListsWhatExistsAndWhereAJarGoes() {
    NamedServices<MemoryProvider> services =
        Engines.providers(new InMemoryProvider(), new Named("acme-redis", Set.of("redis")));
    StartupException e =
        assertThrows(StartupException.class, () -> services.entry("acme-mongo", "spec.provider"));
    assertTrue(e.getMessage().contains("'acme-mongo' (spec.provider)"), e.getMessage());
    assertTrue(e.getMessage().contains("[acme-redis, in-memory]"), e.getMessage());
    assertTrue(e.getMessage().contains("(aliases: [redis])"), e.getMessage());
    assertTrue(e.getMessage().contains("plugins folder"), e.getMessage());
  }

  @Test
  void twoImplementationsWithOneNameFailStartUp() {
    StartupException byName =
        assertThrows(
            StartupException.class,
            () -> Engines.providers(new Named("dup", Set.of()), new Named("dup", Set.of())));
    assertTrue(byName.getMessage().contains("two memory providers are named 'dup'"));
    StartupException byAlias =
        assertThrows(
            StartupException.class,
            () -> Engines.providers(new Named("a", Set.of("b")), new Named("b", Set.of())));
    assertTrue(byAlias.getMessage().contains("named 'b'"), byAlias.getMessage());
  }

  @Test
  void namesMustBeLowerCaseAndShort() {
    for (String bad : List.of("Acme", "acme redis", "", "-acme", "a".repeat(65))) {
      StartupException e =
          assertThrows(
              StartupException.class, () -> Engines.providers(new Named(bad, Set.of())), bad);
      assertTrue(e.getMessage().contains("names must match"), e.getMessage());
    }
    assertThrows(
        StartupException.class, () -> Engines.providers(new Named("ok", Set.of("Not-Ok"))));
  }

  @Test
  void noImplementationAtAllFailsStartUp() {
    StartupException e = assertThrows(StartupException.class, Engines::providers);
    assertTrue(e.getMessage().contains("no memory provider found"), e.getMessage());
  }
}
