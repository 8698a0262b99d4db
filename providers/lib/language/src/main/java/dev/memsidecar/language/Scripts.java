package dev.memsidecar.language;

/**
 * Which script a text is in: Han, Hiragana, Katakana and Hangul (CJK: written without spaces
 * between words) or not. Stateless and thread-safe.
 */
public final class Scripts {
  private Scripts() {}

  /** Whether {@code cp} is a Han, Hiragana, Katakana or Hangul character. */
  public static boolean isCjk(int cp) {
    Character.UnicodeScript s = Character.UnicodeScript.of(cp);
    return s == Character.UnicodeScript.HAN
        || s == Character.UnicodeScript.HIRAGANA
        || s == Character.UnicodeScript.KATAKANA
        || s == Character.UnicodeScript.HANGUL;
  }

  /** Whether {@code cp} is a Han character (Chinese characters, also kanji and hanja). */
  public static boolean isHan(int cp) {
    return Character.UnicodeScript.of(cp) == Character.UnicodeScript.HAN;
  }

  /** Whether {@code text} holds at least one Han character. */
  public static boolean hasHan(String text) {
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      if (isHan(cp)) {
        return true;
      }
      i += Character.charCount(cp);
    }
    return false;
  }

  /** Whether {@code text} holds at least one CJK character. */
  public static boolean hasCjk(String text) {
    return text.codePoints().anyMatch(Scripts::isCjk);
  }

  /**
   * Whether most of {@code text} is CJK: it holds CJK characters, at least as many as words of
   * other letters.
   */
  public static boolean isMostlyCjk(String text) {
    int cjk = 0;
    int otherWords = 0;
    boolean inWord = false;
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      i += Character.charCount(cp);
      if (isCjk(cp)) {
        cjk++;
        inWord = false;
      } else if (Character.isLetter(cp)) {
        if (!inWord) {
          otherWords++;
        }
        inWord = true;
      } else {
        inWord = false;
      }
    }
    return cjk > 0 && cjk >= otherWords;
  }
}
