package dev.memsidecar.language;

import dev.memsidecar.language.en.English;
import dev.memsidecar.language.zh.Chinese;
import java.util.List;

/**
 * The languages this build reads, and which one reads a given text. English is the default: a text
 * no other language claims is read as English. Stateless and thread-safe.
 */
public final class Languages {
  private static final Language DEFAULT = new English();

  /** Every language but the default, in the order they are asked to claim a text. */
  private static final List<Language> CLAIMING = List.of(new Chinese());

  private static final List<Language> ALL =
      java.util.stream.Stream.concat(CLAIMING.stream(), java.util.stream.Stream.of(DEFAULT))
          .toList();

  private Languages() {}

  /** Every language, the default last. */
  public static List<Language> all() {
    return ALL;
  }

  /** The language that reads {@code text}: the first that claims it, else the default (English). */
  public static Language of(String text) {
    for (Language l : CLAIMING) {
      if (l.claims(text)) {
        return l;
      }
    }
    return DEFAULT;
  }

  /** The default language, English. */
  public static Language byDefault() {
    return DEFAULT;
  }

  /**
   * The stem of one lower-cased word, by whichever language stems it (each stems only its own
   * words); the word itself when none does.
   */
  public static String stem(String word) {
    for (Language l : ALL) {
      String s = l.stem(word);
      if (!s.equals(word)) {
        return s;
      }
    }
    return word;
  }

  /** Whether {@code term} (lower case) is a stopword of some language. */
  public static boolean isStopword(String term) {
    for (Language l : ALL) {
      if (l.stopwords().contains(term)) {
        return true;
      }
    }
    return false;
  }
}
