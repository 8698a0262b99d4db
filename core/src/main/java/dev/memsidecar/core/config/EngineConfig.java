package dev.memsidecar.core.config;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.List;

/**
 * Everything the engine needs, already validated and merged from defaults, files and overrides.
 *
 * @param dataDir where all generated data lives (one sub-directory per profile)
 * @param flags the four memory flags
 * @param profiles the active profiles (after {@code memory.refs}), in order
 * @param gateThreshold the write gate's threshold, 0..10 (default 7.0)
 * @param embedder the embedder name, e.g. "bge-small-en-q" (the default), "bge-small-en" or "hash"
 * @param maintenance {@code memory.maintenance}
 * @param pluginsDir the plugins folder (provider jars), or {@code null} for none; it need not exist
 * @param filesProvider the provider that keeps the memory files of profiles whose own provider
 *     keeps none ({@code memory.deepagentsMem.provider}), or {@code null} for none
 * @param runs how BeginRun and EndRun behave
 * @param sessions how sessions are kept
 * @param store the one database of everything the sidecar persists ({@code memory.store.*}), or
 *     {@code null} for the embedded H2 files in {@code dataDir}
 */
public record EngineConfig(
    Path dataDir,
    Flags flags,
    List<ProfileSpec> profiles,
    double gateThreshold,
    String embedder,
    Maintenance maintenance,
    Path pluginsDir,
    String filesProvider,
    RunConfig runs,
    SessionConfig sessions,
    SharedStore store) {

  public static final double DEFAULT_GATE_THRESHOLD = 7.0;
  public static final String DEFAULT_EMBEDDER = "bge-small-en-q";
  public static final String DEFAULT_FILES_PROVIDER = "deepagents-files";

  public EngineConfig {
    requireNonNull(dataDir, "dataDir is null");
    requireNonNull(flags, "flags is null");
    profiles = List.copyOf(profiles);
    requireNonNull(embedder, "embedder is null");
    requireNonNull(maintenance, "maintenance is null");
    requireNonNull(runs, "runs is null");
    requireNonNull(sessions, "sessions is null");
  }

  /** A configuration with the default {@link SessionConfig}. */
  public EngineConfig(
      Path dataDir,
      Flags flags,
      List<ProfileSpec> profiles,
      double gateThreshold,
      String embedder,
      Maintenance maintenance,
      Path pluginsDir,
      String filesProvider,
      RunConfig runs) {
    this(
        dataDir,
        flags,
        profiles,
        gateThreshold,
        embedder,
        maintenance,
        pluginsDir,
        filesProvider,
        runs,
        SessionConfig.DEFAULT,
        null);
  }

  /**
   * The embedded defaults: profiles workspace and user on langmem-sqlite, all flags on, no plugins
   * folder, memory files kept by deepagents-files.
   */
  public static EngineConfig defaults(Path dataDir) {
    return new EngineConfig(
        dataDir,
        Flags.ALL_ON,
        List.of(
            ProfileSpec.of("workspace", ScopeKind.WORKSPACE),
            ProfileSpec.of("user", ScopeKind.USER)),
        DEFAULT_GATE_THRESHOLD,
        DEFAULT_EMBEDDER,
        Maintenance.DEFAULT,
        null,
        DEFAULT_FILES_PROVIDER,
        RunConfig.DEFAULT);
  }
}
