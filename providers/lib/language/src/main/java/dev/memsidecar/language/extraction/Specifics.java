package dev.memsidecar.language.extraction;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How specific a sentence is: its content words, how many of them are concrete, and its specifics
 * (numbers, proper names, dates and canonical tokens).
 *
 * @param content the content words ({@link ExtractionLexicon#countWords})
 * @param count the specifics: up to two numbers, up to two proper names, one for any date words,
 *     two per canonical token
 * @param dates the date words, at most two
 * @param concrete the content words that name a specific thing
 */
public record Specifics(int content, int count, int dates, int concrete) {

  /** Concrete words in one sentence that make it specific without a name or a number. */
  public static final int SPECIFIC_WORDS = 3;

  private static final Pattern NUMBER = Pattern.compile("\\d+(?:[.,:]\\d+)*");

  /**
   * The specifics of {@code sentence}, its words read by {@code lexicon} (the sentence's language);
   * the names of {@code speaker} and {@code addressee} (may be null) are not specifics.
   */
  public static Specifics of(
      String sentence, ExtractionLexicon lexicon, String speaker, String addressee) {
    Set<String> names = new HashSet<>();
    names.add(speaker.toLowerCase(Locale.ROOT));
    if (addressee != null) {
      names.add(addressee.toLowerCase(Locale.ROOT));
    }
    WordCount words = lexicon.countWords(sentence, names);
    int numbers = 0;
    Matcher n = NUMBER.matcher(sentence);
    while (n.find()) {
      numbers++;
    }
    int proper = lexicon.countProperNames(sentence, names);
    int dates = Math.min(AnyLanguage.countDateWords(sentence), 2);
    int tokens = WorkspaceTokens.of(sentence).size();
    return new Specifics(
        words.content(),
        Math.min(numbers, 2) + proper + (dates > 0 ? 1 : 0) + 2 * tokens,
        dates,
        words.concrete());
  }
}
