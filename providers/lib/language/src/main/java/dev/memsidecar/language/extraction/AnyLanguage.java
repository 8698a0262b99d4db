package dev.memsidecar.language.extraction;

import dev.memsidecar.language.Languages;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The rules that hold for text in any language, read in every language at once ({@link
 * Languages#all}, the default last): a Chinese sentence may hold English words of a workspace ("部署到
 * staging"), an English one a Chinese date. Each joins the {@link SharedLexicon} of every language.
 * Stateless and thread-safe.
 */
public final class AnyLanguage {
  private AnyLanguage() {}

  private static final List<ExtractionRules> RULES =
      Languages.all().stream().map(l -> l.extraction()).toList();

  /** How many times {@link #stripLeadingChatter} strips at the most. */
  private static final int MAX_CHATTER = 4;

  /**
   * The non-empty shares of every language of one alternation, joined with {@code |}; empty when no
   * language has one.
   */
  static String alternation(Function<SharedLexicon, String> share) {
    return RULES.stream()
        .map(r -> share.apply(r.shared()))
        .filter(s -> !s.isEmpty())
        .collect(Collectors.joining("|"));
  }

  private static boolean finds(Function<SharedLexicon, Pattern> share, String text) {
    return RULES.stream().anyMatch(r -> share.apply(r.shared()).matcher(text).find());
  }

  /** Whether {@code sentence} holds words of a workspace in some language. */
  public static boolean isTechnical(String sentence) {
    return finds(SharedLexicon::technical, sentence);
  }

  /** Whether {@code sentence} hedges in some language. */
  public static boolean isHedged(String sentence) {
    return finds(SharedLexicon::hedges, sentence);
  }

  /** Whether {@code sentence} speaks of now only, in some language. */
  public static boolean isShortTerm(String sentence) {
    return finds(SharedLexicon::now, sentence);
  }

  /** Whether {@code sentence} tells of something done, not a state, in some language. */
  public static boolean tellsOfSomethingDone(String sentence) {
    return RULES.stream()
        .map(ExtractionRules::shared)
        .anyMatch(s -> s.done().matcher(s.states().matcher(sentence).replaceAll(" ")).find());
  }

  /** Whether {@code sentence} names a future date in some language. */
  public static boolean namesFutureDate(String sentence) {
    return finds(SharedLexicon::futureDates, sentence);
  }

  /** Whether {@code sentence} names an absolute date in some language. */
  public static boolean namesAbsoluteDate(String sentence) {
    return finds(SharedLexicon::absoluteDates, sentence);
  }

  /** How many words of dates {@code sentence} holds, in every language. */
  public static int countDateWords(String sentence) {
    return RULES.stream()
        .mapToInt(r -> (int) r.shared().dateWords().matcher(sentence).results().count())
        .sum();
  }

  /** Whether {@code sentence} starts by acknowledging, in some language. */
  public static boolean isAcknowledgement(String sentence) {
    return RULES.stream()
        .anyMatch(r -> r.shared().acknowledgements().matcher(sentence).lookingAt());
  }

  /** Whether {@code text} presents a shared image as the speaker's own, in some language. */
  public static boolean presentsOwnThing(String text) {
    return finds(SharedLexicon::presentsOwn, text);
  }

  /** Whether {@code word} (lower case) tells no fact in some language. */
  public static boolean isFiller(String word) {
    return RULES.stream().anyMatch(r -> r.lexicon().isFiller(word));
  }

  /**
   * Whether {@code word} (lower case) is prose that ends a command's arguments in some language.
   */
  public static boolean isProseWord(String word) {
    return RULES.stream().anyMatch(r -> r.shared().proseWords().contains(word));
  }

  /**
   * {@code sentence} without the leading interjections and forms of address of every language,
   * however they follow one another ("Oh wow, hey Mel! ..."), stripped; four runs at the most.
   */
  public static String stripLeadingChatter(String sentence) {
    String out = sentence;
    for (int i = 0; i < MAX_CHATTER; i++) {
      String before = out;
      for (ExtractionRules r : RULES) {
        Matcher m = r.shared().leadingChatter().matcher(out);
        if (m.lookingAt() && m.end() > 0) {
          out = out.substring(m.end()).strip();
        }
      }
      if (out.equals(before)) {
        break;
      }
    }
    return out;
  }
}
