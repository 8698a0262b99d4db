package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Loads provider plugins from a folder: each {@code *.jar} directly in it is one plugin, and each
 * sub-folder is one plugin made of all the jars inside (a provider with its own libraries). Every
 * plugin gets a class loader of its own whose parent shows it the JDK and the {@code
 * dev.memsidecar.api} package only (after Trino's PluginClassLoader), so a plugin's libraries never
 * clash with ours or another plugin's, and it cannot reach into the engine.
 */
public final class PluginLoader {
  static final String API_PACKAGE = "dev.memsidecar.api.";

  private PluginLoader() {}

  /**
   * One loaded plugin.
   *
   * @param name the jar's or sub-folder's file name
   * @param loader its class loader
   */
  public record Plugin(String name, ClassLoader loader) {
    public Plugin {
      requireNonNull(name, "name is null");
      requireNonNull(loader, "loader is null");
    }
  }

  /**
   * The plugins in {@code dir}, in file-name order; none when {@code dir} is null or absent.
   *
   * @param apiLoader the loader that defines the {@code dev.memsidecar.api} classes
   */
  public static List<Plugin> load(Path dir, ClassLoader apiLoader) {
    if (dir == null || !Files.isDirectory(dir)) {
      return List.of();
    }
    ClassLoader parent = new ApiOnlyClassLoader(apiLoader);
    List<Plugin> plugins = new ArrayList<>();
    for (Path entry : list(dir)) {
      List<Path> jars =
          Files.isDirectory(entry) ? list(entry).stream().filter(PluginLoader::isJar).toList()
              : isJar(entry) ? List.of(entry) : List.of();
      if (!jars.isEmpty()) {
        String name = entry.getFileName().toString();
        plugins.add(new Plugin(name, new URLClassLoader("plugin:" + name, urls(jars), parent)));
      }
    }
    return List.copyOf(plugins);
  }

  private static boolean isJar(Path p) {
    return Files.isRegularFile(p) && p.getFileName().toString().endsWith(".jar");
  }

  private static List<Path> list(Path dir) {
    try (Stream<Path> s = Files.list(dir)) {
      return s.sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read plugins folder " + dir, e);
    }
  }

  private static URL[] urls(List<Path> jars) {
    URL[] urls = new URL[jars.size()];
    for (int i = 0; i < urls.length; i++) {
      try {
        urls[i] = jars.get(i).toUri().toURL();
      } catch (MalformedURLException e) {
        throw new IllegalStateException("bad plugin path " + jars.get(i), e);
      }
    }
    return urls;
  }

  /** Shows JDK classes (the platform loader) and the api package; nothing else, no resources. */
  static final class ApiOnlyClassLoader extends ClassLoader {
    private final ClassLoader api;

    ApiOnlyClassLoader(ClassLoader api) {
      super("memsidecar-api-only", ClassLoader.getPlatformClassLoader());
      this.api = requireNonNull(api, "api is null");
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (name.startsWith(API_PACKAGE)) {
        return api.loadClass(name);
      }
      return super.loadClass(name, resolve);
    }
  }
}
