package dev.memsidecar.language.extraction;

import java.util.regex.Pattern;

/**
 * Punctuation and spacing, the same in every language (the full-width marks of CJK text included).
 * Stateless and thread-safe.
 */
public final class Punctuation {
  private Punctuation() {}

  private static final Pattern QUESTION = Pattern.compile("[?？][?？!！.。\\s]*$");
  private static final Pattern QUESTION_MARK_END = Pattern.compile("[?？]\\W*$");
  private static final Pattern SPACES = Pattern.compile("[ \\t]+");
  private static final Pattern TRAILING_EXCLAMATIONS = Pattern.compile("[!！~～]+$");

  /**
   * {@code sentence} with curly single quotes straight, runs of spaces and tabs one space, and
   * stripped.
   */
  public static String normalize(String sentence) {
    String s = sentence.replace('\u2019', '\'').replace('\u2018', '\'');
    return SPACES.matcher(s).replaceAll(" ").strip();
  }

  /** Whether {@code sentence} ends with a question mark, perhaps followed by more marks. */
  public static boolean isQuestion(String sentence) {
    return QUESTION.matcher(sentence).find();
  }

  /**
   * Whether {@code sentence} ends with a question mark followed by nothing but non-word characters
   * (a closing quote, an emoji).
   */
  public static boolean endsAsking(String sentence) {
    return QUESTION_MARK_END.matcher(sentence).find();
  }

  /**
   * {@code text} ended like a sentence: stripped, trailing exclamation marks and tildes dropped,
   * then {@code fullStop} added unless it ends in one of {@code endings}; empty stays empty.
   */
  public static String terminate(String text, String endings, String fullStop) {
    String t = TRAILING_EXCLAMATIONS.matcher(text.strip()).replaceAll("");
    if (t.isEmpty()) {
      return t;
    }
    return endings.indexOf(t.charAt(t.length() - 1)) >= 0 ? t : t + fullStop;
  }

  /** Whether {@code sentence} ends with a colon, the lead of what follows ("Run this:"). */
  public static boolean endsWithColon(String sentence) {
    return sentence.endsWith(":") || sentence.endsWith("：");
  }
}
