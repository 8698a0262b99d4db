package dev.memsidecar.core.run;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.language.TextRules;
import java.util.Optional;

/**
 * Drops memory candidates not worth a record, before the write gate sees them: what an agent run
 * says about itself, pleasantries, questions and scraps, in every language the build reads. The
 * rules and the reasons they give are the language module's ({@link
 * dev.memsidecar.language.lowvalue.LowValueFilter}, through {@link TextRules}); this class is the
 * engine's entry to them. Stateless and thread-safe.
 */
public final class LowValueFilter {
  private LowValueFilter() {}

  /**
   * Why {@code content} is not worth storing ({@code low-value: greeting}, {@code low-value: run
   * instruction}, ...), or empty to keep it.
   */
  public static Optional<String> reason(String content) {
    requireNonNull(content, "content is null");
    return TextRules.standard().lowValueReason(content);
  }
}
