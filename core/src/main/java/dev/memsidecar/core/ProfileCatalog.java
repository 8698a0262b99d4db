package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Capability;
import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.PendingVectors;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.core.config.ProfileSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The active memory profiles and their open stores. Each enabled profile's store is opened at
 * start-up in {@code <data>/profiles/<profile>/}, so a bad provider name or setting fails start-up
 * rather than the first call; a disabled profile is checked but never opened.
 *
 * <p>Every enabled profile also has a memory file ({@code /memories/<profile>.md}): kept by its own
 * store when its provider has {@link Capability#FILES}, otherwise by a store of the configured
 * files provider ({@code memory.deepagentsMem.provider}, {@code deepagents-files} by default) in
 * {@code <data>/profiles/<profile>/files/}; with no files provider configured, such a profile has
 * no memory file.
 */
public final class ProfileCatalog implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(ProfileCatalog.class.getName());

  /** How a sensitive setting's value is shown. */
  public static final String MASK = "***";

  /**
   * One profile as the engine uses it.
   *
   * @param spec as configured
   * @param provider the canonical provider name (aliases resolved)
   * @param capabilities what the provider declares
   * @param store its open store, or {@code null} when the profile is disabled
   * @param files the store keeping its memory file, or {@code null} (disabled, or no file store)
   * @param shownSettings its settings with the provider's sensitive ones masked, for display
   */
  public record ActiveProfile(
      ProfileSpec spec,
      String provider,
      Set<Capability> capabilities,
      MemoryStore store,
      MemoryStore files,
      Map<String, String> shownSettings) {
    public String id() {
      return spec.id();
    }

    /** Whether its records can be read and written (enabled, provider declares RECORDS). */
    public boolean hasRecords() {
      return store != null && capabilities.contains(Capability.RECORDS);
    }
  }

  private final Map<String, ActiveProfile> profiles = new LinkedHashMap<>();

  /**
   * Opens the store of every enabled profile in {@code specs}.
   *
   * @param filesProvider the provider keeping the memory files of profiles whose own provider keeps
   *     none, or {@code null} for none
   * @throws StartupException naming the profile when a provider is missing or cannot open
   */
  public ProfileCatalog(
      List<ProfileSpec> specs,
      NamedServices<MemoryProvider> providers,
      Embedder embedder,
      Path dataDir,
      String filesProvider) {
    requireNonNull(embedder, "embedder is null");
    NamedServices.Entry<MemoryProvider> fileEntry =
        filesProvider == null
            ? null
            : providers.entry(filesProvider, "memory.deepagentsMem.provider");
    if (fileEntry != null && !fileEntry.service().capabilities().contains(Capability.FILES)) {
      throw new StartupException(
          "memory.deepagentsMem.provider '"
              + filesProvider
              + "' keeps no memory files (it does"
              + " not declare "
              + Capability.FILES
              + ")");
    }
    try {
      for (ProfileSpec spec : specs) {
        NamedServices.Entry<MemoryProvider> entry =
            providers.entry(spec.provider(), "spec.provider of profile '" + spec.id() + "'");
        MemoryProvider provider = entry.service();
        Set<Capability> capabilities = Set.copyOf(provider.capabilities());
        Map<String, String> shown = masked(spec.settings(), provider.sensitiveSettings());
        Path dir = dataDir.resolve("profiles").resolve(spec.id());
        MemoryStore store = null;
        MemoryStore files = null;
        if (spec.enabled()) {
          store = open(entry, spec, spec.settings(), embedder, dir);
          // Registered before the file store opens, so a failure below still closes it.
          profiles.put(
              spec.id(), new ActiveProfile(spec, entry.name(), capabilities, store, null, shown));
          if (capabilities.contains(Capability.FILES)) {
            files = store;
          } else if (fileEntry != null) {
            files = open(fileEntry, spec, Map.of(), embedder, dir.resolve("files"));
          }
          LOG.log(
              System.Logger.Level.INFO,
              "profile ''{0}'' ({1}) on provider ''{2}'' from {3}, capabilities {4}, settings {5}",
              spec.id(),
              spec.scopeKind().id(),
              entry.name(),
              entry.source(),
              capabilities,
              shown);
        }
        profiles.put(
            spec.id(), new ActiveProfile(spec, entry.name(), capabilities, store, files, shown));
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** The profile called {@code id}, or NOT_FOUND naming the profiles that exist. */
  public ActiveProfile get(String id) {
    ActiveProfile profile = profiles.get(id);
    if (profile == null) {
      throw MemoryException.notFound(
          "unknown profile " + Ids.quote(id) + "; profiles: " + List.copyOf(profiles.keySet()));
    }
    return profile;
  }

  /** Every active profile, in configuration order. */
  public List<ActiveProfile> all() {
    return List.copyOf(profiles.values());
  }

  /**
   * The records waiting for their vectors in every enabled profile's store ({@link
   * MemoryStore#pendingVectors}): how many in all, and the longest wait. A store that fails to say
   * counts as none waiting.
   */
  public PendingVectors pendingVectors() {
    long records = 0;
    Duration oldest = Duration.ZERO;
    for (ActiveProfile profile : profiles.values()) {
      if (profile.store() == null) {
        continue;
      }
      try {
        PendingVectors pending = profile.store().pendingVectors();
        records += pending.records();
        if (pending.oldestWait().compareTo(oldest) > 0) {
          oldest = pending.oldestWait();
        }
      } catch (RuntimeException e) {
        // Only a hint for scheduling; GetStatus reports the store's failure.
      }
    }
    return new PendingVectors(records, oldest);
  }

  @Override
  public void close() {
    for (ActiveProfile profile : profiles.values()) {
      closeQuietly(profile, profile.store());
      if (profile.files() != profile.store()) {
        closeQuietly(profile, profile.files());
      }
    }
  }

  /** {@code settings} with the values of {@code sensitive} keys replaced by {@value #MASK}. */
  static Map<String, String> masked(Map<String, String> settings, Set<String> sensitive) {
    Map<String, String> out = new TreeMap<>(settings);
    out.replaceAll((k, v) -> sensitive.contains(k) ? MASK : v);
    return Map.copyOf(out);
  }

  private static void closeQuietly(ActiveProfile profile, MemoryStore store) {
    if (store == null) {
      return;
    }
    try {
      store.close();
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "closing profile " + profile.id() + " failed", e);
    }
  }

  private static MemoryStore open(
      NamedServices.Entry<MemoryProvider> entry,
      ProfileSpec spec,
      Map<String, String> settings,
      Embedder embedder,
      Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new StartupException(
          "profile '" + spec.id() + "': cannot create data directory " + dir + ": " + e, e);
    }
    ProviderContext context = new ProviderContext(spec.id(), dir, settings, embedder);
    try {
      if (!entry.fromPlugin()) {
        return entry.service().open(context);
      }
      ClassLoader loader = entry.pluginLoader();
      return new PluginStore(
          Plugins.withContextLoader(loader, () -> entry.service().open(context)), loader);
    } catch (MemoryException e) {
      throw new StartupException(
          "profile '" + spec.id() + "' (provider " + entry.name() + "): " + e.getMessage(), e);
    } catch (RuntimeException e) {
      throw new StartupException(
          "profile '" + spec.id() + "' (provider " + entry.name() + ") failed to open: " + e, e);
    }
  }
}
