package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryProvider;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * The memory providers found with {@link ServiceLoader}, by name and alias. Zero providers, or two
 * claiming one name, fail start-up; looking up a name that does not exist fails with the names that
 * do.
 */
public final class ProviderRegistry {
  private final Map<String, MemoryProvider> byName = new TreeMap<>();
  private final Map<String, MemoryProvider> byAlias = new TreeMap<>();

  public ProviderRegistry(Collection<MemoryProvider> providers) {
    if (providers.isEmpty()) {
      throw new IllegalStateException(
          "no memory provider found: the classpath and the plugins folder hold none");
    }
    for (MemoryProvider provider : providers) {
      String name = requireNonNull(provider.name(), "provider name is null");
      claim(byName, name, provider);
      for (String alias : provider.aliases()) {
        claim(byAlias, alias, provider);
      }
    }
    for (String alias : byAlias.keySet()) {
      if (byName.containsKey(alias)) {
        throw new IllegalStateException(
            "provider name '" + alias + "' is also an alias of " + describe(byAlias.get(alias)));
      }
    }
  }

  /** Every provider {@code loader} can see. */
  public static ProviderRegistry load(ClassLoader loader) {
    List<MemoryProvider> found = new ArrayList<>();
    ServiceLoader.load(MemoryProvider.class, loader).forEach(found::add);
    return new ProviderRegistry(found);
  }

  /** The provider called {@code nameOrAlias}, or a failure listing the names that exist. */
  public MemoryProvider get(String nameOrAlias) {
    String key = nameOrAlias.toLowerCase(Locale.ROOT);
    MemoryProvider provider = byName.containsKey(key) ? byName.get(key) : byAlias.get(key);
    if (provider == null) {
      throw new IllegalArgumentException(
          "no memory provider named '"
              + nameOrAlias
              + "'; found: "
              + names()
              + " (aliases: "
              + byAlias.keySet()
              + "). A custom provider's jar goes on the classpath or in the plugins folder.");
    }
    return provider;
  }

  /** The canonical names, sorted. */
  public List<String> names() {
    return List.copyOf(byName.keySet());
  }

  private static void claim(Map<String, MemoryProvider> map, String name, MemoryProvider p) {
    MemoryProvider previous = map.putIfAbsent(name, p);
    if (previous != null) {
      throw new IllegalStateException(
          "two memory providers are named '" + name + "': " + describe(previous) + " and "
              + describe(p));
    }
  }

  private static String describe(MemoryProvider p) {
    return p.getClass().getName();
  }
}
