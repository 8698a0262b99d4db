package dev.memsidecar.language;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The words of a text, the same way for embedding and keyword matching: lower-cased (root locale),
 * split on anything but letters, digits and underscore; Han, Hiragana, Katakana and Hangul
 * characters give one term each plus one per adjacent pair (bigrams), since those scripts do not
 * separate words with spaces. Thread-safe and stateless.
 */
public final class Terms {
  private Terms() {}

  /** Every term of {@code text} in order, stopwords included. */
  public static List<String> of(String text) {
    List<String> out = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    int prevCjk = -1;
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      i += Character.charCount(cp);
      if (Scripts.isCjk(cp)) {
        flush(word, out);
        out.add(new String(Character.toChars(cp)));
        if (prevCjk >= 0) {
          out.add(new String(Character.toChars(prevCjk)) + new String(Character.toChars(cp)));
        }
        prevCjk = cp;
        continue;
      }
      prevCjk = -1;
      if (Character.isLetterOrDigit(cp) || cp == '_') {
        word.appendCodePoint(cp);
      } else {
        flush(word, out);
      }
    }
    flush(word, out);
    return out;
  }

  /**
   * The terms of {@code text} that carry meaning: {@link #of} less the stopwords of every language
   * ({@link Languages#isStopword}).
   */
  public static List<String> keywords(String text) {
    List<String> all = of(text);
    all.removeIf(Terms::isStopword);
    return all;
  }

  /**
   * The speaker label of a chat line: the text before the first {@code ": "} of {@code content}
   * when it comes within the first {@value #MAX_SPEAKER_CHARS} characters, holds no line break and
   * is not blank ({@code "Caroline: I went to a support group"} gives {@code "Caroline"}); else the
   * empty string.
   */
  public static String speaker(String content) {
    int colon = content.indexOf(": ");
    if (colon <= 0 || colon > MAX_SPEAKER_CHARS) {
      return "";
    }
    String label = content.substring(0, colon);
    return label.indexOf('\n') >= 0 || label.isBlank() ? "" : label.strip();
  }

  /** The longest speaker label {@link #speaker} recognises. */
  public static final int MAX_SPEAKER_CHARS = 40;

  /** Whether {@code term} is too common to carry meaning in some language. */
  public static boolean isStopword(String term) {
    return Languages.isStopword(term);
  }

  private static void flush(StringBuilder word, List<String> out) {
    if (!word.isEmpty()) {
      out.add(word.toString().toLowerCase(Locale.ROOT));
      word.setLength(0);
    }
  }
}
