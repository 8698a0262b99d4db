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
 *       {@link CommandLines}, {@link CanonicalTokens} and {@link Attachments}. A language with
 *       nothing to contribute answers false, zero, or the text unchanged.
 * </ul>
 *
 * Implementations are stateless and thread-safe.
 */
public interface ExtractionLexicon {

  // --- a sentence of this language ------------------------------------------------------------

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

  // --- contributions to rules read in every language ----------------------------------------

  /** Whether {@code sentence} holds this language's words of a workspace (repo, deploy, 部署). */
  boolean isTechnical(String sentence);

  /** Whether {@code sentence} hedges in this language ("maybe", "I think", "可能"). */
  boolean isHedged(String sentence);

  /** Whether {@code sentence} speaks of now only ("today", "right now", "目前"). */
  boolean isShortTerm(String sentence);

  /** Whether {@code sentence} tells of something done ("went", "finished", "了"), not a state. */
  boolean tellsOfSomethingDone(String sentence);

  /** Whether {@code sentence} names a future date ("tomorrow", "next week", "明天"). */
  boolean namesFutureDate(String sentence);

  /** Whether {@code sentence} names an absolute date ("8 May", "in 2022", "5月8日"). */
  boolean namesAbsoluteDate(String sentence);

  /** How many words of dates {@code sentence} holds (month and weekday names, years, 年/月/日). */
  int countDateWords(String sentence);

  /** Whether {@code sentence} starts by acknowledging ("Noted", "Memory stored", "好的"). */
  boolean isAcknowledgement(String sentence);

  /**
   * Whether {@code text} presents a shared image as the speaker's own thing ("Here's my painting",
   * "Take a look at this", "这是我画的").
   */
  boolean presentsOwnThing(String text);

  /**
   * {@code sentence} without its leading interjections and forms of address ("Oh wow, ", "Hey Mel!
   * "), stripped; unchanged when it has none in this language.
   */
  String stripLeadingChatter(String sentence);

  /**
   * Whether {@code word} (lower case) is prose that ends a command's arguments ("before", "the").
   */
  boolean isProseWord(String word);

  /**
   * The courtesy words that may end an instruction to remember ("please", "for later"), as a
   * regular expression alternation; empty when none.
   */
  String courtesyWords();

  /**
   * The nouns that open an attachment marker ({@code [image: ...]}, {@code [图片：...]}), as a regular
   * expression alternation; empty when none.
   */
  String attachmentNouns();

  /**
   * A port number as this language writes it ({@code port 8080}, {@code 端口 8080}), as a regular
   * expression; empty when none.
   */
  String portPhrase();
}
