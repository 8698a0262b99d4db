package dev.memsidecar.api;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

/**
 * What a provider gets to open one profile's store. Settings reach it as plain strings (the
 * profile's {@code spec.settings}); the typed getters ({@link Settings}) parse and bound them and
 * fail with INVALID_ARGUMENT naming {@code spec.settings.<key>}, so every provider reports bad
 * settings the same way.
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

  /** The settings with typed getters; failures name this profile. */
  public Settings typedSettings() {
    return new Settings("profile '" + profileId + "'", settings);
  }

  /** Fails with INVALID_ARGUMENT naming the first setting not in {@code known}. */
  public void requireOnly(Set<String> known) {
    typedSettings().requireOnly(known);
  }

  /** See {@link Settings#string}. */
  public String stringSetting(String key, String fallback) {
    return typedSettings().string(key, fallback);
  }

  /** See {@link Settings#integer}. */
  public int intSetting(String key, int fallback, int min, int max) {
    return typedSettings().integer(key, fallback, min, max);
  }

  /** See {@link Settings#longInteger}. */
  public long longSetting(String key, long fallback, long min, long max) {
    return typedSettings().longInteger(key, fallback, min, max);
  }

  /** See {@link Settings#decimal}. */
  public double doubleSetting(String key, double fallback, double min, double max) {
    return typedSettings().decimal(key, fallback, min, max);
  }

  /** See {@link Settings#bool}. */
  public boolean booleanSetting(String key, boolean fallback) {
    return typedSettings().bool(key, fallback);
  }

  /** See {@link Settings#choice}. */
  public String choiceSetting(String key, String fallback, Set<String> allowed) {
    return typedSettings().choice(key, fallback, allowed);
  }
}
