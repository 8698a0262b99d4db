package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import com.google.inject.AbstractModule;
import com.google.inject.CreationException;
import com.google.inject.Guice;
import com.google.inject.Provides;
import com.google.inject.ProvisionException;
import com.google.inject.Singleton;
import com.google.inject.spi.Message;
import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.ExtractorProvider;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.core.config.EngineConfig;
import dev.memsidecar.core.control.ControlStore;
import dev.memsidecar.core.control.H2ControlStore;
import dev.memsidecar.core.events.EventBus;
import dev.memsidecar.core.run.Extractors;
import dev.memsidecar.core.run.RunService;
import dev.memsidecar.core.toolrules.ToolRuleService;
import java.time.Clock;
import java.util.Collection;
import java.util.Set;

/**
 * Wires the engine from an {@link EngineConfig}. Providers and embedders are found by name with
 * {@link NamedServices} through {@code appLoader} (the application class loader) and in each plugin
 * of the plugins folder.
 */
public final class CoreModule extends AbstractModule {
  private final EngineConfig config;
  private final ClassLoader appLoader;

  public CoreModule(EngineConfig config, ClassLoader appLoader) {
    this.config = requireNonNull(config, "config is null");
    this.appLoader = requireNonNull(appLoader, "appLoader is null");
  }

  /**
   * The engine of this module's configuration, built by Guice.
   *
   * @throws StartupException when it cannot start, whatever the cause (not wrapped in Guice's
   *     report)
   */
  public MemoryEngine engine() {
    try {
      return Guice.createInjector(this).getInstance(MemoryEngine.class);
    } catch (ProvisionException e) {
      throw unwrap(e.getErrorMessages(), e);
    } catch (CreationException e) {
      throw unwrap(e.getErrorMessages(), e);
    }
  }

  @Override
  protected void configure() {
    bind(EngineConfig.class).toInstance(config);
    bind(Clock.class).toInstance(Clock.systemUTC());
    bind(NamespaceResolver.class).toInstance(new NamespaceResolver());
    bind(WriteGate.class).toInstance(new WriteGate(config.gateThreshold()));
    bind(MemoryEngine.class).in(Singleton.class);
  }

  @Provides
  @Singleton
  Plugins plugins() {
    return Plugins.load(config.pluginsDir(), appLoader);
  }

  @Provides
  @Singleton
  NamedServices<MemoryProvider> providers(Plugins plugins) {
    return NamedServices.load(
        MemoryProvider.class,
        "memory provider",
        MemoryProvider::name,
        MemoryProvider::aliases,
        appLoader,
        plugins);
  }

  @Provides
  @Singleton
  Embedder embedder(Plugins plugins) {
    NamedServices.Entry<Embedder> e =
        NamedServices.load(
                Embedder.class, "embedder", Embedder::name, x -> Set.of(), appLoader, plugins)
            .entry(config.embedder(), "memory.embedder");
    return e.fromPlugin() ? new PluginEmbedder(e.service(), e.pluginLoader()) : e.service();
  }

  @Provides
  @Singleton
  ProfileCatalog profileCatalog(NamedServices<MemoryProvider> providers, Embedder embedder) {
    return new ProfileCatalog(
        config.profiles(), providers, embedder, config.dataDir(), config.filesProvider());
  }

  @Provides
  @Singleton
  AccessPolicy accessPolicy(ProfileCatalog profiles, NamespaceResolver namespaces) {
    return new AccessPolicy(profiles, namespaces, config.flags());
  }

  @Provides
  @Singleton
  Recall recall(AccessPolicy access, Embedder embedder, Clock clock) {
    return new Recall(access, embedder, clock);
  }

  @Provides
  @Singleton
  Extractors extractors(Plugins plugins) {
    return new Extractors(
        NamedServices.load(
            ExtractorProvider.class,
            "extractor",
            ExtractorProvider::name,
            p -> Set.of(),
            appLoader,
            plugins),
        config.runs());
  }

  @Provides
  @Singleton
  ControlStore controlStore() {
    return H2ControlStore.open(config.dataDir());
  }

  @Provides
  @Singleton
  EventBus events() {
    return new EventBus();
  }

  @Provides
  @Singleton
  ToolRuleService toolRules(
      AccessPolicy access, ControlStore control, EventBus events, Clock clock) {
    return new ToolRuleService(access, control, events, clock);
  }

  @Provides
  @Singleton
  RunService runs(
      ProfileCatalog profiles,
      AccessPolicy access,
      NamespaceResolver namespaces,
      Recall recall,
      ControlStore control,
      EventBus events,
      Extractors extractors,
      ToolRuleService toolRules,
      WriteGate gate,
      Embedder embedder,
      Clock clock) {
    return new RunService(
        profiles,
        access,
        namespaces,
        recall,
        control,
        events,
        extractors,
        toolRules,
        gate,
        embedder,
        clock,
        config.runs());
  }

  private static RuntimeException unwrap(Collection<Message> messages, RuntimeException e) {
    for (Message m : messages) {
      if (m.getCause() instanceof StartupException cause) {
        return cause;
      }
      if (m.getCause() instanceof RuntimeException cause) {
        return new StartupException(cause.toString(), cause);
      }
    }
    return new StartupException(e.getMessage(), e);
  }
}
