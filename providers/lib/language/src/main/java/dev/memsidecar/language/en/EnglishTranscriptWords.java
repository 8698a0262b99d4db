package dev.memsidecar.language.en;

import dev.memsidecar.language.extraction.TranscriptWords;
import dev.memsidecar.language.extraction.WordSets;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * How an English transcript labels its speakers: a capitalised name of up to three words ({@code
 * Caroline:}, {@code Mary Ann:}), a role ({@code User:}, {@code assistant:}); a header {@code
 * [session date: ...]}.
 */
final class EnglishTranscriptWords {
  private EnglishTranscriptWords() {}

  /** Words that head a line of text, not a turn: "Note:", "Error:", "Step:". */
  private static final Set<String> NOT_SPEAKERS =
      WordSets.of(
          """
          note notes error warning warn info example usage step output input command commands tip
          todo correction update answer question reason summary remember important hint result fix
          cause solution ps edit source title subject date time re fwd nb fyi btw goal plan status
          description steps name email phone address location version url host port path file branch
          repo repository problem context task request response query q a caution danger also then
          first next finally deadline owner contact reminder memo done why how what when where who
          see ok okay yes no
          """);

  static final TranscriptWords WORDS =
      new TranscriptWords(
          "session[ _]?date|session[ _]?time|date|time|timestamp",
          "[\\p{Lu}][\\p{L}\\p{M}'.-]*(?: [\\p{Lu}\\d][\\p{L}\\p{M}\\d'.-]*){0,2}"
              + "|[Uu]ser|[Aa]ssistant|[Hh]uman|AI|[Aa]gent|[Bb]ot|[Ss]ystem",
          Set.of("user", "human", "me"),
          Set.of("assistant", "ai", "agent", "bot", "system", "model"),
          NOT_SPEAKERS,
          Pattern.compile("(?i)\\b(?:i|i'm|i've|i'd|i'll|my|me|mine|we|we're|our)\\b"),
          "the user",
          "the agent");
}
