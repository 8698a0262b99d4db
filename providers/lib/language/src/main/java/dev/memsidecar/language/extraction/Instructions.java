package dev.memsidecar.language.extraction;

import java.util.regex.Pattern;

/**
 * What an instruction to remember asks to keep, in any language: the language's marker and vetoes
 * ({@link ExtractionLexicon#instruction}), then the courtesy words of every language ("for me",
 * "please") and the quotes around it dropped. Stateless and thread-safe.
 */
public final class Instructions {
  private Instructions() {}

  /** The shortest memory an instruction may ask to keep, in characters. */
  private static final int MIN_CHARS = 3;

  private static final Pattern COURTESY = courtesy();
  private static final Pattern QUOTES = Pattern.compile("^[\"'“「]|[\"'”」]$");

  private static Pattern courtesy() {
    String words = AnyLanguage.alternation(SharedLexicon::courtesyWords);
    return Pattern.compile(
        "(?i)[\\s,]*" + (words.isEmpty() ? "" : "(?:" + words + ")?") + "[\\s.!?。！？]*$");
  }

  /**
   * What {@code sentence}, an instruction to remember in the language of {@code lexicon}, asks to
   * keep; "" when the memory is the next sentence ("Remember this:"); null when it is no
   * instruction or asks to keep fewer than three characters.
   *
   * @param named whether the speaker is a named person of a conversation
   */
  public static String rest(String sentence, ExtractionLexicon lexicon, boolean named) {
    String rest = lexicon.instruction(sentence, named);
    if (rest == null) {
      return null;
    }
    rest = COURTESY.matcher(rest).replaceAll("");
    rest = QUOTES.matcher(rest).replaceAll("").strip();
    rest = lexicon.trimClosingParticles(rest);
    if (rest.isEmpty() && Punctuation.endsWithColon(sentence)) {
      return "";
    }
    return rest.length() < MIN_CHARS ? null : rest;
  }
}
