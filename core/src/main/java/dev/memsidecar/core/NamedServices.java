package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryProvider;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The implementations of one SPI found by name with {@link ServiceLoader}, on the classpath and in
 * each plugin (in the spirit of Lucene's {@code NamedSPILoader}): memory providers, embedders, and
 * whatever SPI comes next. Names and aliases must match {@link MemoryProvider#NAME} (lower case);
 * none at all, a malformed name, or two implementations claiming one name (as name or alias) fail
 * start-up naming both. A lookup of a name that does not exist fails with the names that do and
 * where a jar providing it would go. Immutable and thread-safe.
 *
 * @param <S> the SPI type
 */
public final class NamedServices<S> {
  /** Where services not from a plugin come from. */
  public static final String CLASSPATH = "classpath";

  private static final Pattern NAME = Pattern.compile(MemoryProvider.NAME);

  /**
   * One implementation.
   *
   * @param name its canonical name
   * @param aliases other names that select it
   * @param service the instance
   * @param source {@link #CLASSPATH} or the plugin it came from
   * @param pluginLoader the plugin's class loader, or {@code null} for the classpath
   */
  public record Entry<S>(
      String name, Set<String> aliases, S service, String source, ClassLoader pluginLoader) {
    public boolean fromPlugin() {
      return pluginLoader != null;
    }
  }

  private final String kind;
  private final Path pluginsDir;
  private final Map<String, Entry<S>> byName = new TreeMap<>();
  private final Map<String, Entry<S>> byAlias = new TreeMap<>();

  private NamedServices(String kind, Path pluginsDir, Collection<Entry<S>> entries) {
    this.kind = kind;
    this.pluginsDir = pluginsDir;
    if (entries.isEmpty()) {
      throw new StartupException("no " + kind + " found: " + jarHint());
    }
    for (Entry<S> e : entries) {
      claim(byName, e.name(), e);
      for (String alias : e.aliases()) {
        claim(byAlias, alias, e);
      }
    }
    for (String alias : byAlias.keySet()) {
      if (byName.containsKey(alias)) {
        throw new StartupException(
            "two "
                + kind
                + "s are named '"
                + alias
                + "': "
                + describe(byName.get(alias))
                + " by name and "
                + describe(byAlias.get(alias))
                + " by alias");
      }
    }
  }

  /**
   * Every implementation of {@code type} that {@code appLoader} sees, then those of each plugin.
   *
   * @param kind what they are, for messages ("memory provider")
   * @param name an implementation's name
   * @param aliases an implementation's other names
   */
  public static <S> NamedServices<S> load(
      Class<S> type,
      String kind,
      Function<S, String> name,
      Function<S, Set<String>> aliases,
      ClassLoader appLoader,
      Plugins plugins) {
    List<Entry<S>> entries = new ArrayList<>();
    for (S s : services(type, appLoader, CLASSPATH)) {
      entries.add(entry(kind, s, name, aliases, CLASSPATH, null));
    }
    for (Plugins.Plugin plugin : plugins.list()) {
      // A plugin's own lookups (its ServiceLoader use, JDBC drivers) see its jars while it loads.
      List<S> found =
          Plugins.withContextLoader(
              plugin.loader(), () -> services(type, plugin.loader(), "plugin " + plugin.name()));
      for (S s : found) {
        // The plugin's loader delegates to its parent first, so classpath services are not seen
        // twice: its parent shows only the JDK and the api.
        entries.add(entry(kind, s, name, aliases, plugin.name(), plugin.loader()));
      }
    }
    return new NamedServices<>(kind, plugins.dir(), entries);
  }

  /** Services given directly (tests, tools): all from the classpath. */
  public static <S> NamedServices<S> of(
      String kind, Function<S, String> name, Function<S, Set<String>> aliases, List<S> services) {
    List<Entry<S>> entries = new ArrayList<>();
    for (S s : services) {
      entries.add(entry(kind, s, name, aliases, CLASSPATH, null));
    }
    return new NamedServices<>(kind, null, entries);
  }

  /**
   * The implementation called {@code nameOrAlias} (any case).
   *
   * @param setting the configuration key that named it, for the message
   * @throws StartupException listing the names that exist and where a jar would go
   */
  public Entry<S> entry(String nameOrAlias, String setting) {
    Entry<S> e = find(nameOrAlias);
    if (e == null) {
      throw new StartupException(
          "no "
              + kind
              + " named '"
              + nameOrAlias
              + "' ("
              + setting
              + "); found: "
              + names()
              + (byAlias.isEmpty() ? "" : " (aliases: " + byAlias.keySet() + ")")
              + ". "
              + jarHint());
    }
    return e;
  }

  /** Whether {@code nameOrAlias} (any case) names an implementation. */
  public boolean contains(String nameOrAlias) {
    return find(nameOrAlias) != null;
  }

  /** The canonical names, sorted. */
  public List<String> names() {
    return List.copyOf(byName.keySet());
  }

  /** Every implementation, sorted by name. */
  public List<Entry<S>> all() {
    return List.copyOf(byName.values());
  }

  private String jarHint() {
    return "a jar providing one goes on the classpath or in the plugins folder"
        + (pluginsDir == null ? " (--plugins DIR)" : " " + pluginsDir);
  }

  private Entry<S> find(String nameOrAlias) {
    String key = nameOrAlias.toLowerCase(Locale.ROOT);
    Entry<S> e = byName.get(key);
    return e != null ? e : byAlias.get(key);
  }

  private static <S> List<S> services(Class<S> type, ClassLoader loader, String from) {
    List<S> out = new ArrayList<>();
    try {
      ServiceLoader.load(type, loader).forEach(out::add);
    } catch (ServiceConfigurationError e) {
      throw new StartupException(
          "cannot load a " + type.getSimpleName() + " from " + from + ": " + e.getMessage(), e);
    }
    return out;
  }

  private static <S> Entry<S> entry(
      String kind,
      S s,
      Function<S, String> name,
      Function<S, Set<String>> aliases,
      String source,
      ClassLoader loader) {
    String n =
        requireNonNull(name.apply(s), () -> kind + " " + s.getClass().getName() + " has no name");
    checkName(kind, s, n);
    Set<String> a = Set.copyOf(aliases.apply(s));
    a.forEach(alias -> checkName(kind, s, alias));
    return new Entry<>(n, a, s, source, loader);
  }

  private static void checkName(String kind, Object s, String name) {
    if (!NAME.matcher(name).matches()) {
      throw new StartupException(
          kind
              + " "
              + s.getClass().getName()
              + " has the name '"
              + name
              + "'; names must match "
              + MemoryProvider.NAME
              + " (lower case)");
    }
  }

  private void claim(Map<String, Entry<S>> map, String name, Entry<S> e) {
    Entry<S> previous = map.putIfAbsent(name, e);
    if (previous != null) {
      throw new StartupException(
          "two "
              + kind
              + "s are named '"
              + name
              + "': "
              + describe(previous)
              + " and "
              + describe(e));
    }
  }

  private static String describe(Entry<?> e) {
    return e.service().getClass().getName() + " (" + e.source() + ")";
  }
}
