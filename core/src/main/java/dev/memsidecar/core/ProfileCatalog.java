package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Capability;
import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.core.config.ProfileSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The active memory profiles and their open stores. Each enabled profile's store is opened at
 * start-up in {@code <data>/profiles/<profile>/}, so a bad provider name or setting fails start-up
 * rather than the first call; a disabled profile is checked but never opened.
 *
 * <p>Every enabled profile also has a memory file ({@code /memories/<profile>.md}): kept by its own
 * store when its provider has {@link Capability#FILES}, otherwise by a {@value #FILES_PROVIDER}
 * store in {@code <data>/profiles/<profile>/files/} (none when that provider is absent).
 */
public final class ProfileCatalog implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(ProfileCatalog.class.getName());

  /**
   * One profile as the engine uses it.
   *
   * @param spec as configured
   * @param provider the canonical provider name (aliases resolved)
   * @param store its open store, or {@code null} when the profile is disabled
   * @param files the store keeping its memory file, or {@code null} (disabled, or no file store)
   */
  public record ActiveProfile(
      ProfileSpec spec, String provider, MemoryStore store, MemoryStore files) {
    public String id() {
      return spec.id();
    }
  }

  /** The provider that keeps memory files for profiles whose own provider cannot. */
  public static final String FILES_PROVIDER = "deepagents-files";

  private final Map<String, ActiveProfile> profiles = new LinkedHashMap<>();

  public ProfileCatalog(
      List<ProfileSpec> specs, ProviderRegistry registry, Embedder embedder, Path dataDir) {
    requireNonNull(embedder, "embedder is null");
    try {
      for (ProfileSpec spec : specs) {
        MemoryProvider provider = provider(registry, spec);
        Path dir = dataDir.resolve("profiles").resolve(spec.id());
        MemoryStore store = null;
        MemoryStore files = null;
        if (spec.enabled()) {
          store = open(provider, spec, spec.settings(), embedder, dir);
          // Registered before the file store opens, so a failure below still closes it.
          profiles.put(spec.id(), new ActiveProfile(spec, provider.name(), store, null));
          if (provider.capabilities().contains(Capability.FILES)) {
            files = store;
          } else if (registry.names().contains(FILES_PROVIDER)) {
            files =
                open(registry.get(FILES_PROVIDER), spec, Map.of(), embedder, dir.resolve("files"));
          }
        }
        profiles.put(spec.id(), new ActiveProfile(spec, provider.name(), store, files));
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
          "unknown profile '" + id + "'; profiles: " + List.copyOf(profiles.keySet()));
    }
    return profile;
  }

  /** Every active profile, in configuration order. */
  public List<ActiveProfile> all() {
    return List.copyOf(profiles.values());
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

  private static MemoryProvider provider(ProviderRegistry registry, ProfileSpec spec) {
    try {
      return registry.get(spec.provider());
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("profile '" + spec.id() + "': " + e.getMessage(), e);
    }
  }

  private static MemoryStore open(
      MemoryProvider provider,
      ProfileSpec spec,
      Map<String, String> settings,
      Embedder embedder,
      Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create data directory " + dir, e);
    }
    try {
      return provider.open(new ProviderContext(spec.id(), dir, settings, embedder));
    } catch (MemoryException e) {
      throw new IllegalStateException(
          "profile '" + spec.id() + "' (provider " + provider.name() + "): " + e.getMessage(), e);
    }
  }
}
