package dev.memsidecar.api;

import java.util.Set;

/**
 * A kind of {@link Extractor}, found with {@link java.util.ServiceLoader} (list the implementation
 * in {@code META-INF/services/dev.memsidecar.api.ExtractorProvider}) by {@link #name()} (lower
 * case, {@link MemoryProvider#NAME}), and selected by {@code memory.extractor.name}. Built in:
 * {@code rules} (offline, the default) and {@code openai} (any OpenAI-compatible chat endpoint).
 */
public interface ExtractorProvider {
  /** The name configuration selects it by, e.g. "rules". */
  String name();

  /** Setting keys whose values are secrets, shown as {@code ***}. Empty by default. */
  default Set<String> sensitiveSettings() {
    return Set.of();
  }

  /**
   * A ready extractor for {@code settings} ({@code memory.extractor.settings}).
   *
   * @throws MemoryException INVALID_ARGUMENT naming a setting it does not know or cannot use
   */
  Extractor open(Settings settings);
}
