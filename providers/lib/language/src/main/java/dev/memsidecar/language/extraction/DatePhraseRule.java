package dev.memsidecar.language.extraction;

import static java.util.Objects.requireNonNull;

import java.time.LocalDate;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One way of reading a relative date phrase: its pattern and what a match means on a session date.
 *
 * @param pattern the phrase
 * @param cues strings in lower case, one of which every match holds ("ago" for "two days ago"): a
 *     text holding none of them skips the pattern, which is most of the price of reading a text
 * @param resolver the date a match names
 */
public record DatePhraseRule(Pattern pattern, List<String> cues, Resolver resolver) {
  /** Checks the arguments and copies the cues. */
  public DatePhraseRule {
    requireNonNull(pattern, "pattern is null");
    cues = List.copyOf(cues);
    if (cues.isEmpty()) {
      throw new IllegalArgumentException("a rule needs a cue: " + pattern);
    }
    for (String cue : cues) {
      if (cue.isEmpty() || !cue.equals(cue.toLowerCase(Locale.ROOT))) {
        throw new IllegalArgumentException("a cue is a lower-case string: '" + cue + "'");
      }
    }
    requireNonNull(resolver, "resolver is null");
  }

  /** Whether {@code lowerCaseText} (a text in lower case) holds one of the cues. */
  public boolean mayMatch(String lowerCaseText) {
    for (String cue : cues) {
      if (lowerCaseText.contains(cue)) {
        return true;
      }
    }
    return false;
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
