package dev.memsidecar.language.extraction;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The relative date phrases of one language ("yesterday", "last week", "昨天", "上周六") and the tense
 * markers that decide how a bare phrase reads ("on Saturday": the last one in the past tense, the
 * next one in the future). {@link DatePhrases} reads them in every language at once. Immutable.
 *
 * @param rules the phrases, in the order they are tried: a phrase found by an earlier rule is not
 *     read again by a later one, so longer phrases come first ("the day before yesterday" before
 *     "yesterday")
 * @param future the markers of the future tense ("will", "next", "打算"), counted
 * @param past the markers of the past tense ("was", "ago", "-ed", "了"), counted
 * @param open what is written between a phrase and its date: " (", "（"
 * @param close what is written after the date: ")", "）"
 */
public record DatePhraseRules(
    List<DatePhraseRule> rules, Pattern future, Pattern past, String open, String close) {
  /** Checks the arguments and copies the rules. */
  public DatePhraseRules {
    rules = List.copyOf(rules);
    requireNonNull(future, "future is null");
    requireNonNull(past, "past is null");
    requireNonNull(open, "open is null");
    requireNonNull(close, "close is null");
  }

  /** How many future tense markers {@code text} holds. */
  public int futureMarkers(String text) {
    return (int) future.matcher(text).results().count();
  }

  /** How many past tense markers {@code text} holds. */
  public int pastMarkers(String text) {
    return (int) past.matcher(text).results().count();
  }

  /** {@code date} as written after its phrase: " (7 May 2023)". */
  public String enclose(String date) {
    return open + date + close;
  }
}
