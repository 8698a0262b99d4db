package dev.memsidecar.language.extraction;

import static java.util.Objects.requireNonNull;

import java.time.LocalDate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One way of reading a relative date phrase: its pattern and what a match means on a session date.
 *
 * @param pattern the phrase
 * @param resolver the date a match names
 */
public record DatePhraseRule(Pattern pattern, Resolver resolver) {
  /** Checks the arguments. */
  public DatePhraseRule {
    requireNonNull(pattern, "pattern is null");
    requireNonNull(resolver, "resolver is null");
  }

  /** The tense of the sentence a phrase is in, by its markers. */
  public record Tense(boolean future, boolean past) {}

  /** What a match of a phrase means. */
  @FunctionalInterface
  public interface Resolver {
    /**
     * The date match {@code m} names on {@code day}, as the language writes it ("7 May 2023", "the
     * week of 1 May 2023"), or null to leave the phrase alone.
     */
    String resolve(Matcher m, LocalDate day, Tense tense);
  }
}
