package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import com.google.inject.AbstractModule;
import com.google.inject.CreationException;
import com.google.inject.Guice;
import com.google.inject.Provides;
import com.google.inject.ProvisionException;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import com.google.inject.spi.Message;
import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.ExtractorProvider;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.core.config.EngineConfig;
import dev.memsidecar.core.config.SharedStore;
import dev.memsidecar.core.control.ControlStore;
import dev.memsidecar.core.control.SqlControlStore;
import dev.memsidecar.core.curated.CuratedMemory;
import dev.memsidecar.core.curated.WorkspaceFiles;
import dev.memsidecar.core.events.EventBus;
import dev.memsidecar.core.learning.LearningService;
import dev.memsidecar.core.maintenance.DeepAgentsTarget;
import dev.memsidecar.core.maintenance.HousekeepingTarget;
import dev.memsidecar.core.maintenance.LangMemTarget;
import dev.memsidecar.core.maintenance.MaintenanceService;
import dev.memsidecar.core.maintenance.MaintenanceTarget;
import dev.memsidecar.core.maintenance.SkillsTarget;
import dev.memsidecar.core.run.Extractors;
import dev.memsidecar.core.run.RunService;
import dev.memsidecar.core.sessions.SessionService;
import dev.memsidecar.core.skills.ModelSynthesizer;
import dev.memsidecar.core.skills.SkillMiner;
import dev.memsidecar.core.skills.SkillService;
import dev.memsidecar.core.toolrules.ToolRuleService;
import dev.memsidecar.language.TextRules;
import java.time.Clock;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Wires the engine from an {@link EngineConfig}. Providers and embedders are found by name with
 * {@link NamedServices} through {@code appLoader} (the application class loader) and in each plugin
 * of the plugins folder.
 */
public final class CoreModule extends AbstractModule {
  private final EngineConfig config;
  private final ClassLoader appLoader;

  /** Completes with null when the embedder answered its first call, else with its failure. */
  private final CompletableFuture<Throwable> embedderLoad = new CompletableFuture<>();

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
      return embedderLoaded(Guice.createInjector(this).getInstance(MemoryEngine.class));
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
    bind(TextRules.class).toInstance(TextRules.standard());
    bind(MemoryEngine.class).in(Singleton.class);
    bind(CallActivity.class).in(Singleton.class);
    // The maintenance targets: one line each. A target is a MaintenanceTarget; its name is then
    // valid in memory.maintenance.targets and AdminService.RunMaintenance.
    Multibinder<MaintenanceTarget> targets =
        Multibinder.newSetBinder(binder(), MaintenanceTarget.class);
    targets.addBinding().to(LangMemTarget.class);
    targets.addBinding().to(DeepAgentsTarget.class);
    targets.addBinding().to(HousekeepingTarget.class);
    targets.addBinding().to(SkillsTarget.class);
  }

  @Provides
  @Singleton
  LangMemTarget langMemTarget(ProfileCatalog profiles, MemoryWriter writer, TextRules text) {
    return new LangMemTarget(profiles, writer, config.maintenance().records(), text);
  }

  @Provides
  @Singleton
  DeepAgentsTarget deepAgentsTarget(ProfileCatalog profiles) {
    return new DeepAgentsTarget(profiles);
  }

  @Provides
  @Singleton
  HousekeepingTarget housekeepingTarget(ControlStore control) {
    return new HousekeepingTarget(control, config.maintenance().housekeeping());
  }

  @Provides
  @Singleton
  MaintenanceService maintenance(
      Set<MaintenanceTarget> targets, ControlStore control, EventBus events, Clock clock) {
    MaintenanceService service =
        new MaintenanceService(targets, config.maintenance(), control, events, clock);
    service.start();
    return service;
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
  Embedder embedder(Plugins plugins, CallActivity calls) {
    NamedServices.Entry<Embedder> e =
        NamedServices.load(
                Embedder.class, "embedder", Embedder::name, x -> Set.of(), appLoader, plugins)
            .entry(config.embedder(), "memory.embedder");
    Embedder configured =
        e.fromPlugin() ? new PluginEmbedder(e.service(), e.pluginLoader()) : e.service();
    // A model loads on its first call, which takes seconds: load it beside the rest of start-up
    // (engine() waits for it), so a model that cannot load fails start-up and the first request
    // does not wait.
    Thread load = new Thread(() -> embedderLoad.complete(warmUp(configured)), "embedder-load");
    load.setDaemon(true);
    load.start();
    return new RecentEmbeddings(configured, calls);
  }

  private static Throwable warmUp(Embedder embedder) {
    try {
      embedder.embed("memsidecar");
      return null;
    } catch (RuntimeException | LinkageError failure) {
      return failure;
    }
  }

  /** Waits for the embedder's first call; fails start-up (closing the engine) if it failed. */
  private MemoryEngine embedderLoaded(MemoryEngine engine) {
    Throwable failure = embedderLoad.join();
    if (failure == null) {
      return engine;
    }
    engine.close();
    throw new StartupException(
        "memory.embedder: embedder '" + config.embedder() + "' cannot start: " + failure, failure);
  }

  @Provides
  @Singleton
  ProfileCatalog profileCatalog(
      NamedServices<MemoryProvider> providers, Embedder embedder, CallActivity calls) {
    ProfileCatalog catalog =
        new ProfileCatalog(
            config.profiles(), providers, embedder, config.dataDir(), config.filesProvider());
    calls.watchVectors(catalog::pendingVectors);
    return catalog;
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
    SharedStore store = config.store();
    return store == null
        ? SqlControlStore.open(config.dataDir())
        : SqlControlStore.open(store.url(), store.credentials());
  }

  @Provides
  @Singleton
  SessionService sessions(
      ControlStore control, Embedder embedder, Clock clock, CallActivity calls) {
    return new SessionService(control, embedder, clock, config.sessions(), calls);
  }

  @Provides
  @Singleton
  EventBus events() {
    return new EventBus();
  }

  @Provides
  @Singleton
  ToolRuleService toolRules(
      AccessPolicy access, ControlStore control, EventBus events, Clock clock, TextRules text) {
    return new ToolRuleService(access, control, events, clock, text);
  }

  @Provides
  @Singleton
  LearningService learning(ControlStore control, EventBus events, Clock clock, SkillMiner miner) {
    return new LearningService(control, events, clock, miner);
  }

  @Provides
  @Singleton
  WorkspaceFiles workspaceFiles() {
    return new WorkspaceFiles(config.dataDir());
  }

  @Provides
  @Singleton
  CuratedMemory curated(WorkspaceFiles files) {
    return new CuratedMemory(files);
  }

  @Provides
  @Singleton
  SkillMiner skillMiner(
      ControlStore control,
      AccessPolicy access,
      Recall recall,
      Embedder embedder,
      Extractors extractors,
      EventBus events,
      Clock clock) {
    // The configured extractor's model drafts skills when it has one (openai); rules has none,
    // and the offline draft stays.
    return new SkillMiner(
        control,
        control,
        access,
        recall,
        embedder,
        new ModelSynthesizer(extractors.name(), extractors::draftSkill, events, clock),
        events,
        clock);
  }

  @Provides
  @Singleton
  SkillService skills(
      ControlStore control,
      WorkspaceFiles files,
      AccessPolicy access,
      Embedder embedder,
      SkillMiner miner,
      EventBus events,
      Clock clock) {
    return new SkillService(control, files, access, embedder, miner, events, clock);
  }

  @Provides
  @Singleton
  MemoryWriter writer(
      ControlStore control, EventBus events, Embedder embedder, Clock clock, TextRules text) {
    return new MemoryWriter(control, events, embedder, clock, text, config.runs().shortTermTtl());
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
      MemoryWriter writer,
      SessionService sessions,
      Clock clock,
      CuratedMemory curated,
      SkillService skills) {
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
        writer,
        sessions,
        clock,
        config.runs(),
        curated,
        skills);
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
