package dev.memsidecar.core;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.ExtractorProvider;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.conformance.InMemoryProvider;
import dev.memsidecar.core.config.Flags;
import dev.memsidecar.core.config.Maintenance;
import dev.memsidecar.core.config.ProfileSpec;
import dev.memsidecar.core.config.RunConfig;
import dev.memsidecar.core.config.ScopeKind;
import dev.memsidecar.core.config.SessionConfig;
import dev.memsidecar.core.control.ControlStore;
import dev.memsidecar.core.control.ControlStoresForTests;
import dev.memsidecar.core.curated.CuratedMemory;
import dev.memsidecar.core.curated.WorkspaceFiles;
import dev.memsidecar.core.events.EventBus;
import dev.memsidecar.core.learning.LearningService;
import dev.memsidecar.core.maintenance.DeepAgentsTarget;
import dev.memsidecar.core.maintenance.HousekeepingTarget;
import dev.memsidecar.core.maintenance.LangMemTarget;
import dev.memsidecar.core.maintenance.MaintenanceService;
import dev.memsidecar.core.maintenance.SkillsTarget;
import dev.memsidecar.core.run.Extractors;
import dev.memsidecar.core.run.RunService;
import dev.memsidecar.core.sessions.SessionService;
import dev.memsidecar.core.skills.OfflineSynthesizer;
import dev.memsidecar.core.skills.SkillMiner;
import dev.memsidecar.core.skills.SkillService;
import dev.memsidecar.core.toolrules.ToolRuleService;
import dev.memsidecar.language.TextRules;
import dev.memsidecar.toolkit.HashEmbedder;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Engines for core's tests, wired by hand over the kit's {@link InMemoryProvider} (records and
 * memory files, kept per data directory for the life of the JVM, so an engine reopened on the same
 * directory finds what an earlier one wrote).
 */
final class Engines {
  static final String PROVIDER = InMemoryProvider.NAME;

  private Engines() {}

  /** An enabled profile on the in-memory provider. */
  static ProfileSpec profile(String id, ScopeKind scope) {
    return new ProfileSpec(id, scope, PROVIDER, true, "", Map.of(), Map.of());
  }

  /** A disabled profile on the in-memory provider. */
  static ProfileSpec disabled(String id, ScopeKind scope) {
    return new ProfileSpec(id, scope, PROVIDER, false, "", Map.of(), Map.of());
  }

  /** Providers given directly, as the classpath would hold them. */
  static NamedServices<MemoryProvider> providers(MemoryProvider... providers) {
    return NamedServices.of(
        "memory provider", MemoryProvider::name, MemoryProvider::aliases, List.of(providers));
  }

  static MemoryEngine open(Path data, Flags flags, List<ProfileSpec> specs, Clock clock) {
    return open(data, flags, specs, clock, providers(new InMemoryProvider()), null);
  }

  /**
   * @param filesProvider the provider keeping memory files for profiles whose own keeps none
   */
  static MemoryEngine open(
      Path data,
      Flags flags,
      List<ProfileSpec> specs,
      Clock clock,
      NamedServices<MemoryProvider> providers,
      String filesProvider) {
    return open(
        data,
        flags,
        specs,
        clock,
        providers,
        filesProvider,
        ScriptedExtractor.provider(),
        RunConfig.DEFAULT);
  }

  /**
   * @param extractor the extractor EndRun uses (its fallback is the same one unless it is named
   *     "rules", so give a "rules" provider too when a test needs the fallback)
   */
  static MemoryEngine open(
      Path data,
      Flags flags,
      List<ProfileSpec> specs,
      Clock clock,
      NamedServices<MemoryProvider> providers,
      String filesProvider,
      NamedServices<ExtractorProvider> extractors,
      RunConfig runs) {
    return open(
        data, flags, specs, clock, providers, filesProvider, extractors, runs, Maintenance.DEFAULT);
  }

  /**
   * @param maintenance the maintenance targets' settings; the schedule is never started here (tests
   *     call {@code engine.maintenance().runNow})
   */
  static MemoryEngine open(
      Path data,
      Flags flags,
      List<ProfileSpec> specs,
      Clock clock,
      NamedServices<MemoryProvider> providers,
      String filesProvider,
      NamedServices<ExtractorProvider> extractors,
      RunConfig runs,
      Maintenance maintenance) {
    CallActivity calls = new CallActivity();
    Embedder embedder = new RecentEmbeddings(new HashEmbedder(), calls);
    ProfileCatalog catalog = new ProfileCatalog(specs, providers, embedder, data, filesProvider);
    NamespaceResolver namespaces = new NamespaceResolver();
    AccessPolicy access = new AccessPolicy(catalog, namespaces, flags);
    Recall recall = new Recall(access, embedder, clock);
    WriteGate gate = new WriteGate(7.0);
    ControlStore control = ControlStoresForTests.open(data);
    EventBus events = new EventBus();
    ToolRuleService toolRules =
        new ToolRuleService(access, control, events, clock, TextRules.standard());
    MemoryWriter writer =
        new MemoryWriter(
            control, events, embedder, clock, TextRules.standard(), runs.shortTermTtl());
    WorkspaceFiles workspaceFiles = new WorkspaceFiles(data);
    CuratedMemory curated = new CuratedMemory(workspaceFiles);
    SkillMiner miner =
        new SkillMiner(
            control, control, access, recall, embedder, new OfflineSynthesizer(), events, clock);
    SkillService skills =
        new SkillService(control, workspaceFiles, access, embedder, miner, events, clock);
    RunService runService =
        new RunService(
            catalog,
            access,
            namespaces,
            recall,
            control,
            events,
            new Extractors(extractors, runs),
            toolRules,
            gate,
            writer,
            new SessionService(control, embedder, clock, SessionConfig.DEFAULT),
            clock,
            runs,
            curated,
            skills);
    return new MemoryEngine(
        catalog,
        providers,
        embedder,
        access,
        gate,
        writer,
        clock,
        new MemoryFiles(access, curated, skills),
        Plugins.none(),
        recall,
        runService,
        toolRules,
        new LearningService(control, events, clock, miner),
        skills,
        new MaintenanceService(
            List.of(
                new LangMemTarget(catalog, writer, maintenance.records(), TextRules.standard()),
                new DeepAgentsTarget(catalog),
                new HousekeepingTarget(control, maintenance.housekeeping()),
                new SkillsTarget(miner)),
            maintenance,
            control,
            events,
            clock),
        calls);
  }

  /** A clock that reads {@code now}. */
  static Clock clock(Supplier<Instant> now) {
    return new Clock() {
      @Override
      public ZoneId getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(ZoneId zone) {
        return this;
      }

      @Override
      public Instant instant() {
        return now.get();
      }
    };
  }
}
