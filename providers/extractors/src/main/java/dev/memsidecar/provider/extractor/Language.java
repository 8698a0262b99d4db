package dev.memsidecar.provider.extractor;

/** Which script a text is in, as far as the rules extractor cares. Stateless and thread-safe. */
final class Language {
  private Language() {}

  /** Whether {@code cp} is a Han, Hiragana, Katakana or Hangul character. */
  static boolean isCjk(int cp) {
    Character.UnicodeScript s = Character.UnicodeScript.of(cp);
    return s == Character.UnicodeScript.HAN
        || s == Character.UnicodeScript.HIRAGANA
        || s == Character.UnicodeScript.KATAKANA
        || s == Character.UnicodeScript.HANGUL;
  }

  /** Whether {@code text} holds at least one CJK character. */
  static boolean hasCjk(String text) {
    return text.codePoints().anyMatch(Language::isCjk);
  }

  /** Whether most letters of {@code text} are CJK: then it is treated as Chinese. */
  static boolean isChinese(String text) {
    int cjk = 0;
    int latinWords = 0;
    boolean inWord = false;
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      i += Character.charCount(cp);
      if (isCjk(cp)) {
        cjk++;
        inWord = false;
      } else if (Character.isLetter(cp)) {
        if (!inWord) {
          latinWords++;
        }
        inWord = true;
      } else {
        inWord = false;
      }
    }
    return cjk > 0 && cjk >= latinWords;
  }
}
