package dev.memsidecar.api;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a provider gets to open one profile's store. Settings reach it as plain strings (the
 * profile's {@code spec.settings}); the typed getters parse and bound them and fail with
 * INVALID_ARGUMENT naming {@code spec.settings.<key>}, so every provider reports bad settings the
 * same way. A getter never echoes the value of a key the provider declares {@link
 * MemoryProvider#sensitiveSettings() sensitive}: it does not know which keys those are, so it never
 * echoes a value it cannot parse at all.
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
        throw bad(key, "unknown setting '" + key + "'; known settings: " + new TreeSet<>(known));
      }
    }
  }

  /** The setting {@code key} as given, or {@code fallback} when absent. */
  public String stringSetting(String key, String fallback) {
    return settings.getOrDefault(key, fallback);
  }

  /** The setting {@code key} as an int in {@code min..max}, or {@code fallback} when absent. */
  public int intSetting(String key, int fallback, int min, int max) {
    return (int) longSetting(key, fallback, min, max);
  }

  /** The setting {@code key} as a long in {@code min..max}, or {@code fallback} when absent. */
  public long longSetting(String key, long fallback, long min, long max) {
    String raw = settings.get(key);
    if (raw == null) {
      return fallback;
    }
    long value;
    try {
      value = Long.parseLong(raw.strip());
    } catch (NumberFormatException e) {
      throw bad(key, key + " must be a whole number " + min + ".." + max);
    }
    if (value < min || value > max) {
      throw bad(key, key + " must be " + min + ".." + max + ": " + value);
    }
    return value;
  }

  /** The setting {@code key} as a finite double in {@code min..max}, or {@code fallback}. */
  public double doubleSetting(String key, double fallback, double min, double max) {
    String raw = settings.get(key);
    if (raw == null) {
      return fallback;
    }
    double value;
    try {
      value = Double.parseDouble(raw.strip());
    } catch (NumberFormatException e) {
      throw bad(key, key + " must be a number " + min + ".." + max);
    }
    if (!(value >= min && value <= max)) {
      throw bad(key, key + " must be " + min + ".." + max + ": " + value);
    }
    return value;
  }

  /** The setting {@code key}, which must be {@code true} or {@code false}, or {@code fallback}. */
  public boolean booleanSetting(String key, boolean fallback) {
    String raw = settings.get(key);
    if (raw == null) {
      return fallback;
    }
    return switch (raw.strip().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw bad(key, key + " must be true or false");
    };
  }

  /** The setting {@code key}, which must be one of {@code allowed} (lower case), or fallback. */
  public String choiceSetting(String key, String fallback, Set<String> allowed) {
    String raw = settings.get(key);
    if (raw == null) {
      return fallback;
    }
    String value = raw.strip().toLowerCase(Locale.ROOT);
    if (!allowed.contains(value)) {
      throw bad(key, key + " must be one of " + new TreeSet<>(allowed));
    }
    return value;
  }

  private MemoryException bad(String key, String message) {
    return MemoryException.invalidArgument(
        "spec.settings." + key, "profile '" + profileId + "': " + message);
  }
}
