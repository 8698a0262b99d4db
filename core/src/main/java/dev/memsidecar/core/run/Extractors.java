package dev.memsidecar.core.run;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.ExtractionRequest;
import dev.memsidecar.api.Extractor;
import dev.memsidecar.api.ExtractorProvider;
import dev.memsidecar.api.MemoryCandidate;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.Settings;
import dev.memsidecar.api.SkillDraftRequest;
import dev.memsidecar.core.NamedServices;
import dev.memsidecar.core.Plugins;
import dev.memsidecar.core.StartupException;
import dev.memsidecar.core.config.RunConfig;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The configured {@link Extractor} ({@code memory.extractor}) and the {@value #FALLBACK} extractor
 * it falls back to when it fails, so a broken model endpoint never loses a run: EndRun then reports
 * {@code memory.extraction.failed} and goes on with the rules. Thread-safe.
 */
public final class Extractors {
  /** The extractor every failure falls back to: offline and deterministic. */
  public static final String FALLBACK = "rules";

  private final String name;
  private final Extractor primary;
  private final Extractor fallback;

  /**
   * What one extraction gave.
   *
   * @param candidates what was found
   * @param extractor the name of the extractor that found it
   * @param failure why the configured extractor failed (the fallback ran instead), or null
   */
  public record Extraction(List<MemoryCandidate> candidates, String extractor, String failure) {}

  /**
   * Opens the configured extractor and the fallback.
   *
   * @throws StartupException when either does not exist or refuses its settings
   */
  public Extractors(NamedServices<ExtractorProvider> providers, RunConfig config) {
    requireNonNull(providers, "providers is null");
    NamedServices.Entry<ExtractorProvider> entry =
        providers.entry(config.extractor(), "memory.extractor.name");
    this.name = entry.name();
    this.primary = open(entry, config.extractorSettings());
    this.fallback =
        entry.name().equals(FALLBACK)
            ? primary
            : open(providers.entry(FALLBACK, "the fallback extractor"), Map.of());
  }

  /** The configured extractor's name. */
  public String name() {
    return name;
  }

  /**
   * The candidates of {@code request}, from the configured extractor or, if it fails, the rules.
   */
  public Extraction extract(ExtractionRequest request) {
    try {
      return new Extraction(primary.extract(request), name, null);
    } catch (RuntimeException e) {
      if (primary == fallback) {
        throw e;
      }
      String why =
          e instanceof MemoryException m ? m.getMessage() : e.getClass().getSimpleName() + ": " + e;
      return new Extraction(fallback.extract(request), FALLBACK, why);
    }
  }

  /**
   * A SKILL.md the configured extractor's model writes for a skill candidate ({@link
   * Extractor#draftSkill}); empty when it has no model. Never falls back: the caller keeps its own
   * draft when this is empty or throws.
   */
  public Optional<String> draftSkill(SkillDraftRequest request) {
    return primary.draftSkill(request);
  }

  private static Extractor open(
      NamedServices.Entry<ExtractorProvider> entry, Map<String, String> settings) {
    Settings typed = new Settings("extractor '" + entry.name() + "'", settings);
    try {
      if (!entry.fromPlugin()) {
        return entry.service().open(typed);
      }
      ClassLoader loader = entry.pluginLoader();
      Extractor opened = Plugins.withContextLoader(loader, () -> entry.service().open(typed));
      return new Extractor() {
        @Override
        public List<MemoryCandidate> extract(ExtractionRequest request) {
          return Plugins.withContextLoader(loader, () -> opened.extract(request));
        }

        @Override
        public Optional<String> draftSkill(SkillDraftRequest request) {
          return Plugins.withContextLoader(loader, () -> opened.draftSkill(request));
        }
      };
    } catch (MemoryException e) {
      throw new StartupException("memory.extractor: " + e.getMessage(), e);
    }
  }
}
