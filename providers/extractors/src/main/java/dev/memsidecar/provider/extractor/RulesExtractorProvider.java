package dev.memsidecar.provider.extractor;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Extractor;
import dev.memsidecar.api.ExtractorProvider;
import dev.memsidecar.api.Settings;
import java.util.Set;

/**
 * The {@code rules} extractor (the default): offline, deterministic, English and Chinese. It takes
 * no settings; any key fails {@link #open} with INVALID_ARGUMENT naming it. See {@link
 * RulesExtractor} for what it catches and how it scores. Stateless and thread-safe.
 */
public final class RulesExtractorProvider implements ExtractorProvider {
  public static final String NAME = "rules";

  /** For {@link java.util.ServiceLoader}. */
  public RulesExtractorProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Extractor open(Settings settings) {
    requireNonNull(settings, "settings is null");
    settings.requireOnly(Set.of());
    return new RulesExtractor();
  }
}
