package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

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
 */
public final class ProfileCatalog implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(ProfileCatalog.class.getName());

  /**
   * One profile as the engine uses it.
   *
   * @param spec as configured
   * @param provider the canonical provider name (aliases resolved)
   * @param store its open store, or {@code null} when the profile is disabled
   */
  public record ActiveProfile(ProfileSpec spec, String provider, MemoryStore store) {
    public String id() {
      return spec.id();
    }
  }

  private final Map<String, ActiveProfile> profiles = new LinkedHashMap<>();

  public ProfileCatalog(
      List<ProfileSpec> specs, ProviderRegistry registry, Embedder embedder, Path dataDir) {
    requireNonNull(embedder, "embedder is null");
    try {
      for (ProfileSpec spec : specs) {
        MemoryProvider provider = provider(registry, spec);
        MemoryStore store = spec.enabled() ? open(provider, spec, embedder, dataDir) : null;
        profiles.put(spec.id(), new ActiveProfile(spec, provider.name(), store));
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
      if (profile.store() != null) {
        try {
          profile.store().close();
        } catch (RuntimeException e) {
          LOG.log(System.Logger.Level.WARNING, "closing profile " + profile.id() + " failed", e);
        }
      }
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
      MemoryProvider provider, ProfileSpec spec, Embedder embedder, Path dataDir) {
    Path dir = dataDir.resolve("profiles").resolve(spec.id());
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create data directory " + dir, e);
    }
    try {
      return provider.open(new ProviderContext(spec.id(), dir, spec.settings(), embedder));
    } catch (MemoryException e) {
      throw new IllegalStateException(
          "profile '" + spec.id() + "' (provider " + provider.name() + "): " + e.getMessage(), e);
    }
  }
}
