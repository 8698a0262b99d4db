package dev.memsidecar.language.en;

/**
 * A light English stemmer for keyword matching: the first step of Porter's algorithm (M. F. Porter,
 * "An algorithm for suffix stripping", 1980), which folds plurals and the {@code -ed} and {@code
 * -ing} forms ("hikes", "hiked", "hiking" all give "hike"; "painted", "painting", "paints" give
 * "paint"; "stories" gives "stori", as does "story"). Only words of lower-case ASCII letters are
 * stemmed; anything else (digits, other scripts) comes back unchanged. Stateless and thread-safe.
 */
public final class EnglishStemmer {
  private EnglishStemmer() {}

  /** The stem of one lower-cased word. */
  public static String stem(String word) {
    if (word.length() < 3 || !lowerCaseLetters(word)) {
      return word;
    }
    StringBuilder w = new StringBuilder(word);
    step1a(w);
    step1b(w);
    step1c(w);
    return w.toString();
  }

  /**
   * {@link #stem} with a final "e" dropped from a stem of three letters or more, so that forms meet
   * which the stem alone keeps apart: "use", "uses", "used" and "using" all give "us"; "delete",
   * "deleted" and "deleting" give "delet"; "lives" and "living" give "liv". For comparing word
   * forms (dedupe, verb base forms), where a fold too many costs less than a missed pair; the
   * rankers use {@link #stem}.
   */
  public static String looseStem(String word) {
    String s = stem(word);
    int n = s.length();
    return n >= 3 && s.charAt(n - 1) == 'e' && lowerCaseLetters(s) ? s.substring(0, n - 1) : s;
  }

  private static boolean lowerCaseLetters(String word) {
    for (int i = 0; i < word.length(); i++) {
      char c = word.charAt(i);
      if (c < 'a' || c > 'z') {
        return false;
      }
    }
    return true;
  }

  private static void step1a(StringBuilder w) {
    if (endsWith(w, "sses")) {
      w.setLength(w.length() - 2);
    } else if (endsWith(w, "ies")) {
      w.setLength(w.length() - 2);
    } else if (endsWith(w, "ss")) {
      // unchanged
    } else if (endsWith(w, "s") && w.length() > 3) {
      w.setLength(w.length() - 1);
    }
  }

  private static void step1b(StringBuilder w) {
    if (endsWith(w, "eed")) {
      if (measure(w, w.length() - 3) > 0) {
        w.setLength(w.length() - 1);
      }
      return;
    }
    int cut;
    if (endsWith(w, "ed")) {
      cut = 2;
    } else if (endsWith(w, "ing")) {
      cut = 3;
    } else {
      return;
    }
    int stemEnd = w.length() - cut;
    if (!hasVowel(w, stemEnd)) {
      return;
    }
    w.setLength(stemEnd);
    if (endsWith(w, "at") || endsWith(w, "bl") || endsWith(w, "iz")) {
      w.append('e');
    } else if (doubleConsonant(w)) {
      char last = w.charAt(w.length() - 1);
      if (last != 'l' && last != 's' && last != 'z') {
        w.setLength(w.length() - 1);
      }
    } else if (measure(w, w.length()) == 1 && cvc(w)) {
      w.append('e');
    }
  }

  private static void step1c(StringBuilder w) {
    if (endsWith(w, "y") && hasVowel(w, w.length() - 1)) {
      w.setCharAt(w.length() - 1, 'i');
    }
  }

  private static boolean endsWith(StringBuilder w, String suffix) {
    int off = w.length() - suffix.length();
    if (off < 0) {
      return false;
    }
    for (int i = 0; i < suffix.length(); i++) {
      if (w.charAt(off + i) != suffix.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** Whether {@code w[i]} is a consonant in Porter's sense ("y" after a consonant is a vowel). */
  private static boolean consonant(StringBuilder w, int i) {
    switch (w.charAt(i)) {
      case 'a', 'e', 'i', 'o', 'u':
        return false;
      case 'y':
        return i == 0 || !consonant(w, i - 1);
      default:
        return true;
    }
  }

  /** Porter's m: the number of vowel-consonant sequences in {@code w[0..end)}. */
  private static int measure(StringBuilder w, int end) {
    int m = 0;
    int i = 0;
    while (i < end && consonant(w, i)) {
      i++;
    }
    while (i < end) {
      while (i < end && !consonant(w, i)) {
        i++;
      }
      if (i >= end) {
        break;
      }
      while (i < end && consonant(w, i)) {
        i++;
      }
      m++;
    }
    return m;
  }

  private static boolean hasVowel(StringBuilder w, int end) {
    for (int i = 0; i < end; i++) {
      if (!consonant(w, i)) {
        return true;
      }
    }
    return false;
  }

  private static boolean doubleConsonant(StringBuilder w) {
    int n = w.length();
    return n >= 2 && w.charAt(n - 1) == w.charAt(n - 2) && consonant(w, n - 1);
  }

  /** Ends consonant-vowel-consonant, the last not w, x or y ("hop", not "snow"). */
  private static boolean cvc(StringBuilder w) {
    int n = w.length();
    if (n < 3 || !consonant(w, n - 1) || consonant(w, n - 2) || !consonant(w, n - 3)) {
      return false;
    }
    char c = w.charAt(n - 1);
    return c != 'w' && c != 'x' && c != 'y';
  }
}
