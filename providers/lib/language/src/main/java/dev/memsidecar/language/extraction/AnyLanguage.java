package dev.memsidecar.language.extraction;

import dev.memsidecar.language.Languages;
import java.util.List;

/**
 * The rules that hold for text in any language, read in every language at once: a Chinese sentence
 * may hold English words of a workspace ("部署到 staging"), an English one a Chinese date. Each asks
 * the second group of {@link ExtractionLexicon} of every language ({@link Languages#all}).
 * Stateless and thread-safe.
 */
public final class AnyLanguage {
  private AnyLanguage() {}

  private static final List<ExtractionLexicon> LEXICONS =
      Languages.all().stream().map(l -> l.extraction().lexicon()).toList();

  /** How many times {@link #stripLeadingChatter} strips at the most. */
  private static final int MAX_CHATTER = 4;

  /** Every language's lexicon, the default last. */
  static List<ExtractionLexicon> lexicons() {
    return LEXICONS;
  }

  /** Whether {@code sentence} holds words of a workspace in some language. */
  public static boolean isTechnical(String sentence) {
    return LEXICONS.stream().anyMatch(l -> l.isTechnical(sentence));
  }

  /** Whether {@code sentence} hedges in some language. */
  public static boolean isHedged(String sentence) {
    return LEXICONS.stream().anyMatch(l -> l.isHedged(sentence));
  }

  /** Whether {@code sentence} speaks of now only, in some language. */
  public static boolean isShortTerm(String sentence) {
    return LEXICONS.stream().anyMatch(l -> l.isShortTerm(sentence));
  }

  /** Whether {@code sentence} tells of something done, in some language. */
  public static boolean tellsOfSomethingDone(String sentence) {
    return LEXICONS.stream().anyMatch(l -> l.tellsOfSomethingDone(sentence));
  }

  /** Whether {@code sentence} names a future date in some language. */
  public static boolean namesFutureDate(String sentence) {
    return LEXICONS.stream().anyMatch(l -> l.namesFutureDate(sentence));
  }

  /** Whether {@code sentence} names an absolute date in some language. */
  public static boolean namesAbsoluteDate(String sentence) {
    return LEXICONS.stream().anyMatch(l -> l.namesAbsoluteDate(sentence));
  }

  /** How many words of dates {@code sentence} holds, in every language. */
  public static int countDateWords(String sentence) {
    return LEXICONS.stream().mapToInt(l -> l.countDateWords(sentence)).sum();
  }

  /** Whether {@code sentence} starts by acknowledging, in some language. */
  public static boolean isAcknowledgement(String sentence) {
    return LEXICONS.stream().anyMatch(l -> l.isAcknowledgement(sentence));
  }

  /** Whether {@code text} presents a shared image as the speaker's own, in some language. */
  public static boolean presentsOwnThing(String text) {
    return LEXICONS.stream().anyMatch(l -> l.presentsOwnThing(text));
  }

  /** Whether {@code word} (lower case) tells no fact in some language. */
  public static boolean isFiller(String word) {
    return LEXICONS.stream().anyMatch(l -> l.isFiller(word));
  }

  /**
   * Whether {@code word} (lower case) is prose that ends a command's arguments in some language.
   */
  public static boolean isProseWord(String word) {
    return LEXICONS.stream().anyMatch(l -> l.isProseWord(word));
  }

  /**
   * {@code sentence} without the leading interjections and forms of address of every language,
   * however they follow one another ("Oh wow, hey Mel! ..."), at most four times over.
   */
  public static String stripLeadingChatter(String sentence) {
    String out = sentence;
    for (int i = 0; i < MAX_CHATTER; i++) {
      String before = out;
      for (ExtractionLexicon l : LEXICONS) {
        out = l.stripLeadingChatter(out);
      }
      if (out.equals(before)) {
        break;
      }
    }
    return out;
  }
}
