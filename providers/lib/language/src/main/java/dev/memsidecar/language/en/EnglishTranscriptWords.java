package dev.memsidecar.language.en;

import dev.memsidecar.language.extraction.TranscriptWords;
import dev.memsidecar.language.extraction.WordSets;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * How an English transcript labels its speakers: a capitalised name of up to three words ({@code
 * Caroline:}, {@code Mary Ann:}), a role ({@code User:}, {@code assistant:}); a header {@code
 * [session date: ...]}. Stateless and thread-safe.
 */
final class EnglishTranscriptWords implements TranscriptWords {

  /** A person speaking of themselves: a lone {@code Caroline: I went ...} line is a turn. */
  private static final Pattern FIRST_PERSON =
      Pattern.compile("(?i)\\b(?:i|i'm|i've|i'd|i'll|my|me|mine|we|we're|our)\\b");

  private static final Set<String> USER_LABELS = Set.of("user", "human", "me");
  private static final Set<String> AGENT_LABELS =
      Set.of("assistant", "ai", "agent", "bot", "system", "model");

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

  @Override
  public String headerLabels() {
    return "session[ _]?date|date|time|session[ _]?time";
  }

  @Override
  public String speakerLabel() {
    return "[\\p{Lu}][\\p{L}\\p{M}'.-]*(?: [\\p{Lu}\\d][\\p{L}\\p{M}\\d'.-]*){0,2}"
        + "|[Uu]ser|[Aa]ssistant|[Hh]uman|AI|[Aa]gent|[Bb]ot|[Ss]ystem";
  }

  @Override
  public Set<String> userLabels() {
    return USER_LABELS;
  }

  @Override
  public Set<String> agentLabels() {
    return AGENT_LABELS;
  }

  @Override
  public Set<String> notSpeakerLabels() {
    return NOT_SPEAKERS;
  }

  @Override
  public boolean speaksOfSelf(String text) {
    return FIRST_PERSON.matcher(text).find();
  }

  @Override
  public String userName() {
    return "the user";
  }

  @Override
  public String agentName() {
    return "the agent";
  }
}
