package dev.memsidecar.language.extraction;

import java.time.LocalDate;
import java.util.List;

/**
 * The relative date phrases of one language ("yesterday", "last week", "昨天", "上周六") and the tense
 * markers that decide how a bare phrase reads ("on Saturday": the last one in the past tense, the
 * next one in the future). {@link DatePhrases} asks them of every language at once. Implementations
 * are immutable and thread-safe.
 */
public interface DatePhraseRules {
  /**
   * The phrases, in the order they are tried: a phrase found by an earlier rule is not read again
   * by a later one, so longer phrases come first ("the day before yesterday" before "yesterday").
   */
  List<DatePhraseRule> rules();

  /**
   * Whether {@code text} holds a word without which none of this language's rules can match; a text
   * no language's test passes skips every rule.
   */
  boolean mayNameDate(String text);

  /** How many future tense markers {@code text} holds ("will", "next", "打算"). */
  int futureMarkers(String text);

  /** How many past tense markers {@code text} holds ("was", "ago", "-ed", "了"). */
  int pastMarkers(String text);

  /** A date this language's rules read, as written after its phrase: " (7 May 2023)". */
  String enclose(String date);

  /** {@code day} as this language writes a date: "7 May 2023", "2023年5月7日". */
  String format(LocalDate day);
}
