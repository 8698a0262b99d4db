package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The plugins of a plugins folder: each {@code *.jar} directly in it is one plugin, and each
 * sub-folder is one plugin made of all the jars inside (a provider with its own libraries). Every
 * plugin gets a class loader of its own whose parent shows it the JDK and the {@code
 * dev.memsidecar.api} package only (after Trino's PluginClassLoader), so a plugin's libraries never
 * clash with ours or another plugin's, and it cannot reach into the engine. {@link #close()} closes
 * the class loaders (and so their jar files) at shutdown.
 */
public final class Plugins implements AutoCloseable {
  static final String API_PACKAGE = "dev.memsidecar.api.";
  private static final System.Logger LOG = System.getLogger(Plugins.class.getName());

  /**
   * One loaded plugin.
   *
   * @param name the jar's or sub-folder's file name
   * @param loader its class loader
   */
  public record Plugin(String name, URLClassLoader loader) {
    public Plugin {
      requireNonNull(name, "name is null");
      requireNonNull(loader, "loader is null");
    }
  }

  private final Path dir;
  private final List<Plugin> plugins;

  private Plugins(Path dir, List<Plugin> plugins) {
    this.dir = dir;
    this.plugins = List.copyOf(plugins);
  }

  /** No plugins folder. */
  public static Plugins none() {
    return new Plugins(null, List.of());
  }

  /**
   * The plugins in {@code dir}, in file-name order; none when {@code dir} is null or absent.
   *
   * @param apiLoader the loader that defines the {@code dev.memsidecar.api} classes
   * @throws StartupException if the folder cannot be read
   */
  public static Plugins load(Path dir, ClassLoader apiLoader) {
    if (dir == null || !Files.isDirectory(dir)) {
      return new Plugins(dir, List.of());
    }
    ClassLoader parent = new ApiOnlyClassLoader(apiLoader);
    List<Plugin> plugins = new ArrayList<>();
    for (Path entry : list(dir)) {
      List<Path> jars =
          Files.isDirectory(entry)
              ? list(entry).stream().filter(Plugins::isJar).toList()
              : isJar(entry) ? List.of(entry) : List.of();
      if (!jars.isEmpty()) {
        String name = entry.getFileName().toString();
        plugins.add(new Plugin(name, new URLClassLoader("plugin:" + name, urls(jars), parent)));
      }
    }
    return new Plugins(dir, plugins);
  }

  /** The plugins, in file-name order. */
  public List<Plugin> list() {
    return plugins;
  }

  /** Their names. */
  public List<String> names() {
    return plugins.stream().map(Plugin::name).toList();
  }

  /** Where plugin jars go, for messages ("add the jar to ..."); {@code null} when none is set. */
  public Path dir() {
    return dir;
  }

  /**
   * Runs {@code call} with {@code loader} as the thread's context class loader, so a plugin's
   * libraries that look classes up through it (ServiceLoader, JDBC drivers, logging) find their own
   * jars; the previous context loader is restored afterwards.
   */
  public static <T> T withContextLoader(ClassLoader loader, Supplier<T> call) {
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    if (previous == loader) {
      return call.get();
    }
    thread.setContextClassLoader(loader);
    try {
      return call.get();
    } finally {
      thread.setContextClassLoader(previous);
    }
  }

  /** Closes every plugin's class loader; classes already loaded keep working. Idempotent. */
  @Override
  public void close() {
    for (Plugin plugin : plugins) {
      try {
        plugin.loader().close();
      } catch (IOException e) {
        LOG.log(System.Logger.Level.WARNING, "closing plugin " + plugin.name() + " failed", e);
      }
    }
  }

  private static boolean isJar(Path p) {
    return Files.isRegularFile(p) && p.getFileName().toString().endsWith(".jar");
  }

  private static List<Path> list(Path dir) {
    try (Stream<Path> s = Files.list(dir)) {
      return s.sorted().toList();
    } catch (IOException e) {
      throw new StartupException("cannot read plugins folder " + dir + ": " + e, e);
    }
  }

  private static URL[] urls(List<Path> jars) {
    URL[] urls = new URL[jars.size()];
    for (int i = 0; i < urls.length; i++) {
      try {
        urls[i] = jars.get(i).toUri().toURL();
      } catch (MalformedURLException e) {
        throw new StartupException("bad plugin path " + jars.get(i), e);
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
