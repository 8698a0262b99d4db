package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryProvider;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The memory providers found with {@link ServiceLoader} on the classpath and in plugins, by name
 * and alias. Zero providers, or two claiming one name, fail start-up; looking up a name that does
 * not exist fails with the names that do.
 */
public final class ProviderRegistry {
  /** Where providers not from a plugin come from. */
  public static final String CLASSPATH = "classpath";

  private final Map<String, MemoryProvider> byName = new TreeMap<>();
  private final Map<String, MemoryProvider> byAlias = new TreeMap<>();
  private final Map<String, String> sources = new TreeMap<>();
  private final List<String> plugins;

  /** Providers all from the classpath. */
  public ProviderRegistry(Collection<MemoryProvider> providers) {
    this(providers, p -> CLASSPATH, List.of());
  }

  /**
   * @param sourceOf where each provider came from: {@link #CLASSPATH} or a plugin's name
   * @param plugins the names of the plugins loaded, with or without providers
   */
  public ProviderRegistry(
      Collection<MemoryProvider> providers,
      Function<MemoryProvider, String> sourceOf,
      List<String> plugins) {
    this.plugins = List.copyOf(plugins);
    if (providers.isEmpty()) {
      throw new IllegalStateException(
          "no memory provider found: the classpath and the plugins folder hold none");
    }
    for (MemoryProvider provider : providers) {
      String name = requireNonNull(provider.name(), "provider name is null");
      claim(byName, name, provider);
      sources.put(name, sourceOf.apply(provider));
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
    return load(loader, List.of());
  }

  /** Every provider {@code loader} can see, and those of each plugin. */
  public static ProviderRegistry load(ClassLoader loader, List<PluginLoader.Plugin> plugins) {
    List<MemoryProvider> found = new ArrayList<>();
    Map<MemoryProvider, String> source = new IdentityHashMap<>();
    ServiceLoader.load(MemoryProvider.class, loader).forEach(found::add);
    for (PluginLoader.Plugin plugin : plugins) {
      for (MemoryProvider p : ServiceLoader.load(MemoryProvider.class, plugin.loader())) {
        found.add(p);
        source.put(p, plugin.name());
      }
    }
    return new ProviderRegistry(
        found,
        p -> source.getOrDefault(p, CLASSPATH),
        plugins.stream().map(PluginLoader.Plugin::name).toList());
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

  /** Every provider, sorted by name. */
  public List<MemoryProvider> all() {
    return List.copyOf(byName.values());
  }

  /** The names of the plugins loaded from the plugins folder. */
  public List<String> plugins() {
    return plugins;
  }

  /** Where the provider called {@code name} came from: {@link #CLASSPATH} or a plugin's name. */
  public String sourceOf(String name) {
    return sources.get(name);
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
