package dev.memsidecar.language.extraction;

import java.util.Set;

/**
 * The sentence patterns and word lists of one language that the {@code rules} extractor reads. Two
 * kinds of method:
 *
 * <ul>
 *   <li>the first group reads a sentence written in this language, and the extractor asks them of
 *       the language that reads the sentence ({@link dev.memsidecar.language.Languages#of});
 *   <li>the second group says what this language contributes to a rule that holds for text in any
 *       language, as words of one language show up in text of another ("deploy" in a Chinese
 *       sentence); the extractor asks them of every language at once through {@link AnyLanguage},
 *       {@link CommandLines}, {@link WorkspaceTokens} and {@link Attachments}. A language with
 *       nothing to contribute answers false, zero, or the text unchanged.
 * </ul>
 *
 * Implementations are stateless and thread-safe.
 */
public interface ExtractionLexicon {

  /**
   * What an instruction to remember asks to keep ("please remember that X", "记住X"): the text after
   * the marker, stripped, or null when {@code sentence} is no such instruction. Between people
   * ({@code named}) a language may demand a plainer request ("Remember, I'm here for you" is
   * advice). {@link Instructions#rest} trims what this returns.
   */
  String instruction(String sentence, boolean named);

  /**
   * {@code rest} of an instruction without this language's closing particles ("哦", "吧"); most
   * languages return it unchanged.
   */
  String trimClosingParticles(String rest);

  /**
   * What a correction states ("actually, it's Thursday", "不对，是周四"): the text after its marker, ""
   * when the marker stands alone, or null when {@code sentence} is no correction.
   */
  String correctionRest(String sentence);

  /**
   * {@code rest} of a correction made whole with the subject of {@code context}, the sentence it
   * corrects (not blank): "it's Thursday" after "The deploy day is Tuesday." is "The deploy day is
   * Thursday"; {@code rest} unchanged when it cannot.
   */
  String completeCorrection(String rest, String context);

  /** Whether {@code sentence} states a like or dislike ("I prefer", "我不喜欢"). */
  boolean isPreference(String sentence);

  /** Whether {@code sentence} states who the speaker is ("my name is", "I work at", "我叫"). */
  boolean isIdentity(String sentence);

  /** Whether {@code sentence} speaks in the first person, singular or plural. */
  boolean isFirstPerson(String sentence);

  /** Whether {@code sentence} speaks in the first person singular. */
  boolean isFirstPersonSingular(String sentence);

  /**
   * Whether {@code sentence} speaks of its speaker: in the first person; for the user of an agent
   * run ({@code named} false) only in the singular ("we deploy on Thursdays" is the team's).
   */
  default boolean isAboutSpeaker(String sentence, boolean named) {
    return named ? isFirstPerson(sentence) : isFirstPersonSingular(sentence);
  }

  /**
   * Whether {@code sentence} states a procedure without a command line: "always run X before Y",
   * "to deploy, run ...", "先...再...".
   */
  boolean isProcedure(String sentence);

  /**
   * The content words of {@code sentence} (neither stopwords, fillers nor {@code names}, the lower
   * case names of the speaker and the addressee) and how many of them are concrete (name a thing,
   * not a feeling or a verdict).
   */
  WordCount countWords(String sentence, Set<String> names);

  /** The proper names {@code sentence} holds, other than {@code names} (lower case); at most 2. */
  int countProperNames(String sentence, Set<String> names);

  /** Whether {@code word} (lower case) is an evaluative or discourse word that tells no fact. */
  boolean isFiller(String word);
}
