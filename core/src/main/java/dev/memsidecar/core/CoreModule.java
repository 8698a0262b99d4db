package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import com.google.inject.AbstractModule;
import com.google.inject.CreationException;
import com.google.inject.Guice;
import com.google.inject.ProvisionException;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.spi.Message;
import dev.memsidecar.api.Embedder;
import dev.memsidecar.core.config.EngineConfig;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Wires the engine from an {@link EngineConfig}. Providers and embedders are found with {@link
 * ServiceLoader} through {@code providerLoader} (the application class loader, or one that also
 * sees the plugins folder).
 */
public final class CoreModule extends AbstractModule {
  private final EngineConfig config;
  private final ClassLoader providerLoader;

  public CoreModule(EngineConfig config, ClassLoader providerLoader) {
    this.config = requireNonNull(config, "config is null");
    this.providerLoader = requireNonNull(providerLoader, "providerLoader is null");
  }

  /**
   * The engine of this module's configuration, built by Guice. A start-up failure is rethrown as
   * the exception that caused it, not wrapped in Guice's report.
   */
  public MemoryEngine engine() {
    try {
      return Guice.createInjector(this).getInstance(MemoryEngine.class);
    } catch (ProvisionException | CreationException e) {
      for (Message m : e instanceof ProvisionException p ? p.getErrorMessages() : ((CreationException) e).getErrorMessages()) {
        if (m.getCause() instanceof RuntimeException cause) {
          throw cause;
        }
      }
      throw e;
    }
  }

  @Override
  protected void configure() {
    bind(EngineConfig.class).toInstance(config);
    bind(Clock.class).toInstance(Clock.systemUTC());
    bind(NamespaceResolver.class).toInstance(new NamespaceResolver());
    bind(AccessPolicy.class).toInstance(new AccessPolicy(config.flags()));
    bind(WriteGate.class).toInstance(new WriteGate(config.gateThreshold()));
    bind(MemoryEngine.class).in(Singleton.class);
  }

  @Provides
  @Singleton
  List<PluginLoader.Plugin> plugins() {
    return PluginLoader.load(config.pluginsDir(), providerLoader);
  }

  @Provides
  @Singleton
  ProviderRegistry providerRegistry(List<PluginLoader.Plugin> plugins) {
    return ProviderRegistry.load(providerLoader, plugins);
  }

  @Provides
  @Singleton
  Embedder embedder(List<PluginLoader.Plugin> plugins) {
    List<String> names = new ArrayList<>();
    List<ClassLoader> loaders = new ArrayList<>(List.of(providerLoader));
    plugins.forEach(p -> loaders.add(p.loader()));
    for (ClassLoader loader : loaders) {
      for (Embedder e : ServiceLoader.load(Embedder.class, loader)) {
        if (e.name().equals(config.embedder())) {
          return e;
        }
        names.add(e.name());
      }
    }
    throw new IllegalStateException(
        "no embedder named '" + config.embedder() + "' (memory.embedder); found: " + names);
  }

  @Provides
  @Singleton
  ProfileCatalog profileCatalog(ProviderRegistry registry, Embedder embedder) {
    return new ProfileCatalog(config.profiles(), registry, embedder, config.dataDir());
  }
}
