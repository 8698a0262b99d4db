package dev.memsidecar.core.control;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.text.Normalizer;
import java.util.HexFormat;
import java.util.Locale;

/**
 * When two tool rules are "the same rule": their texts are equal once normalised, that is after
 * Unicode NFKC (full-width letters become plain ones), lower-casing ({@link Locale#ROOT}),
 * collapsing every run of white space to one space and trimming it, and dropping trailing sentence
 * punctuation ({@value #TRAILING}, with any space between). So "Never email Sarah." and " never
 * EMAIL sarah!" are one rule; "never email Sarah" and "never email Bob" are two; punctuation inside
 * a rule, or a trailing "/" or quote, still counts.
 *
 * <p>The store keys a rule by the SHA-256 of its normalised text ({@link #key}), so the key has a
 * fixed size however long the rule is (an index entry in PostgreSQL is limited to about 2,700
 * bytes). Also the cuts of long text the tool tables keep ({@link #cut}). Stateless.
 */
final class ToolRuleText {
  /** Punctuation dropped from the end of a rule: ASCII and CJK sentence ends and separators. */
  static final String TRAILING = ".,;:!?…。，；：！？、";

  private ToolRuleText() {}

  /** {@code rule} normalised (empty when it holds nothing but space and trailing punctuation). */
  static String normalise(String rule) {
    String folded = Normalizer.normalize(rule, Normalizer.Form.NFKC).toLowerCase(Locale.ROOT);
    StringBuilder out = new StringBuilder(folded.length());
    boolean space = false;
    for (int i = 0; i < folded.length(); ) {
      int cp = folded.codePointAt(i);
      i += Character.charCount(cp);
      if (Character.isWhitespace(cp) || Character.isSpaceChar(cp)) {
        space = true;
        continue;
      }
      if (space && !out.isEmpty()) {
        out.append(' ');
      }
      space = false;
      out.appendCodePoint(cp);
    }
    int end = out.length();
    while (end > 0 && (TRAILING.indexOf(out.charAt(end - 1)) >= 0 || out.charAt(end - 1) == ' ')) {
      end--;
    }
    out.setLength(end);
    return out.toString();
  }

  /**
   * The hex SHA-256 of {@link #normalise}d {@code rule}, over its UTF-16 code units (so even an
   * unpaired surrogate counts), or empty when the normalised text is empty.
   */
  static String key(String rule) {
    String normal = normalise(rule);
    if (normal.isEmpty()) {
      return "";
    }
    byte[] units = new byte[normal.length() * 2];
    for (int i = 0; i < normal.length(); i++) {
      char ch = normal.charAt(i);
      units[2 * i] = (byte) (ch >>> 8);
      units[2 * i + 1] = (byte) ch;
    }
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(units));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /**
   * The first {@code max} chars of {@code text}, one fewer if that would split a surrogate pair.
   */
  static String cut(String text, int max) {
    if (text.length() <= max) {
      return text;
    }
    int end = max;
    if (end > 0
        && Character.isHighSurrogate(text.charAt(end - 1))
        && Character.isLowSurrogate(text.charAt(end))) {
      end--;
    }
    return text.substring(0, end);
  }
}
