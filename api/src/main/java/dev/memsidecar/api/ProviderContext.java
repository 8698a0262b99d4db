package dev.memsidecar.api;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a provider gets to open one profile's store.
 *
 * @param profileId the memory profile, e.g. {@code workspace}
 * @param dataDirectory a directory of this profile's own, created by the engine; a store keeps its
 *     files there unless its settings say otherwise
 * @param settings the profile's {@code spec.settings}: the provider validates its own keys
 * @param embedder turns text into vectors; the same instance embeds search queries
 */
public record ProviderContext(
    String profileId, Path dataDirectory, Map<String, String> settings, Embedder embedder) {

  public ProviderContext {
    requireNonNull(profileId, "profileId is null");
    requireNonNull(dataDirectory, "dataDirectory is null");
    settings = settings == null ? Map.of() : Map.copyOf(settings);
    requireNonNull(embedder, "embedder is null");
  }

  /** Fails with INVALID_ARGUMENT naming the first setting not in {@code known}. */
  public void requireOnly(Set<String> known) {
    for (String key : new TreeSet<>(settings.keySet())) {
      if (!known.contains(key)) {
        throw MemoryException.invalidArgument(
            "spec.settings." + key,
            "profile '"
                + profileId
                + "': unknown setting '"
                + key
                + "'; known settings: "
                + new TreeSet<>(known));
      }
    }
  }

  /** The setting {@code key}, or {@code fallback} when absent. */
  public String setting(String key, String fallback) {
    return settings.getOrDefault(key, fallback);
  }
}
