package dev.memsidecar.language.dedupe;

import java.util.List;
import java.util.Set;

/**
 * What comparing two memories reads in one language ({@link MemoryComparison}): how its words meet
 * (stems), which words mark a change, a negation or a copula, which words are filler rather than
 * subject, and how it writes dates, times and days. The comparison asks every language and combines
 * the answers, so a text may mix languages. Implementations are immutable and thread-safe.
 */
public interface DedupeRules {
  /**
   * The form under which forms of one word of this language meet ("deploys", "deployed",
   * "deploying"); the word itself when this language does not stem it.
   */
  String stem(String word);

  /**
   * Whether the text says something changed: "now", "instead", "no longer", 改为, 现在.
   *
   * @param terms the text's terms ({@link dev.memsidecar.language.Terms#of})
   * @param lower the whole text, lower-cased
   */
  boolean marksChange(Set<String> terms, String lower);

  /** Whether the text is negated: "not", "never", "n't", 不要, 没有. */
  boolean negates(Set<String> terms, String lower);

  /** Whether the text states a value with a copula: "is", "are", "set to", 是, 为. */
  boolean links(Set<String> terms, String lower);

  /** Whether a term (stemmed) is itself a negation that a subject leaves out: 不用, 没有. */
  boolean isNegation(String term);

  /**
   * Whether a word, or its stem, is filler rather than subject: change markers, negations,
   * "currently", "again", "set".
   */
  boolean isFiller(String word);

  /**
   * The relation a stem stands for, so that words of one relation meet: "liv", "bas", "locat" give
   * {@code @location}; "mov", "relocat" give {@code @moved} (which meets {@code @location}); null
   * for any other stem.
   */
  String concept(String stem);

  /**
   * The text a subject is read from: with this language's markers and function words blanked
   * (Chinese, written without spaces, needs it: 改为, 的, 了); the text itself for a language that
   * needs nothing.
   */
  String subjectText(String text);

  /**
   * Where the text states an old value it says no longer holds, as {@code [start, end)} spans of
   * the text: "Tuesday" in "Thursday, not Tuesday", "not Tuesday but Thursday", "changed from
   * Tuesday to Thursday", "instead of npm"; "drinks coffee" in "no longer drinks coffee", "doesn't
   * live in Paris anymore"; 周二 in "不是周二，而是周四", "从周二改成周四"; 喝咖啡 in "不再喝咖啡了". Empty when it states
   * none, or for a language that reads none.
   */
  default List<int[]> retractions(String text) {
    return List.of();
  }

  /** Adds the dates written in this language's words ("March 1st", 3月1日). */
  void findDates(ValueScan scan);

  /** Adds the times written in this language's words ("noon", 下午3点). */
  void findTimes(ValueScan scan);

  /** Adds the days of the week ("Tuesdays", 周二). */
  void findDays(ValueScan scan);
}
